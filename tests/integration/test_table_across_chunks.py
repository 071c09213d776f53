"""A table a chunk cuts is read whole: a question about one row is answered by that row, read
under the table's header, though the chunker put the header and the row in different chunks
(a chunk may end after a table's first row). Text from a hotel's rate card (English) and a
property manager's renovation rules (Traditional Chinese)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from services.bootstrap import Services
from services.retrieval.chunker import chunk_text
from tests.support.corpus import doc, owner_corpus, write_corpus

RATE_CARD = (
    "Function Room Rental Rate Card 2026 – Lumen Bay Singapore Marina\n"
    "All prices in SGD, subject to 10% service charge and prevailing GST.\n\n"
    "| Venue | Half day (up to 4 hrs) | Full day (up to 9 hrs) | Theatre capacity |\n"
    "|---|---|---|---|\n"
    "| Marina Ballroom (whole) | 12,000 | 18,000 | 700 |\n"
    "| Marina Ballroom Section 1 or 2 | 6,500 | 9,800 | 320 |\n"
    "| Orchid Room | 1,800 | 2,800 | 80 |\n"
    "| Jasmine Room | 1,200 | 1,900 | 40 |\n\n"
    "Room rental is waived when the F&B minimum for the venue is met (see banquet menus). "
    "Overtime is charged at 20% of the full-day rate per hour."
)
RENOVATION = (
    "裝修工程申請及施工守則（第2版）\n生效日期：2026年7月1日\n\n"
    "2. 申請程序\n"
    "2.1 業主須於工程展開前最少10個工作天，向管理處遞交「裝修申請表」、承辦商商業登記副本、"
    "工人名單及工程範圍說明。\n"
    "2.2 管理處於收妥齊全文件後5個工作天內以書面回覆。\n"
    "2.3 業主須繳付裝修按金港幣5,000元（以支票或轉數快FPS繳付），另收取行政費港幣300元"
    "（不設退還）。\n"
    "2.4 涉及拆除或改動間隔牆、更換窗戶或改動水電喉管者，須另附認可人士或註冊承建商簽署之"
    "圖則。\n\n"
    "3. 施工時間\n"
    "| 項目 | 時間 |\n"
    "|---|---|\n"
    "| 一般工程 | 星期一至六 09:00–18:00 |\n"
    "| 鑽鑿、打拆等高噪音工程 | 星期一至五 10:00–12:00、14:00–17:00 |\n"
    "| 星期日及公眾假期 | 不准施工 |\n"
)


@pytest.mark.parametrize(
    ("body", "language", "query", "row"),
    [
        (
            RATE_CARD,
            "en",
            "Orchid Room half day rental how much?",
            "| Orchid Room | 1,800 | 2,800 | 80 |",
        ),
        (
            RENOVATION,
            "zh-Hant",
            "鑽鑿工程的施工時間是幾點到幾點？",
            "| 鑽鑿、打拆等高噪音工程 | 星期一至五 10:00–12:00、14:00–17:00 |",
        ),
    ],
)
def test_a_row_in_another_chunk_than_its_header_answers_read_under_it(
    services: Services, tmp_path: Path, body: str, language: str, query: str, row: str
) -> None:
    chunks = chunk_text(body)
    header = next(line for line in body.splitlines() if line.startswith("| "))
    assert not any(header in c.text and row in c.text for c in chunks), "the table is cut"
    corpus = owner_corpus(
        "T",
        "Tables",
        [doc("TABLE", 1, tenant_id="T", language=language, body=body, approved_by="t.owner")],
    )
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus))
    services.index.sync()
    principal = services.directory.principal("t.owner")
    result = services.retrieval.retrieve(principal, query, k=1, as_of=date(2026, 12, 1))
    assert result.status == "ok", result.missing
    assert [e.quote for e in result.evidence] == [row]

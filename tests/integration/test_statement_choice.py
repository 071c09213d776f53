"""Governed retrieval with the real embedder (USE multilingual, its default) chooses a document's
answer among statements that cover the question equally: the retrieval service hands its
embedding to the conflict reader (services/retrieval/statements.py `_chosen`). Texts in the
style of an HR rule set (Traditional Chinese) and a service contract (Simplified Chinese)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.settings import Settings
from tests.support.corpus import corpus_dict, doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.retrieval import AS_OF, who

DOCUMENTS = [
    doc(
        "HR-TRAVEL",
        1,
        title="國內出差旅費報支辦法（115年7月1日修正）",
        body="第五條（長期出差）\n連續出差逾14日者，自第15日起日支費按八折計給；住宿費上限不變。"
        "\n\n第六條（報支期限）\n出差結束後30日內，檢附出差申請單及單據於系統報支。",
    ),
    doc(
        "HR-EXPENSE",
        1,
        title="費用報銷作業要點（114年6月1日施行）",
        body="一、報銷期限\n一般費用應於支出之日起30日內檢據報銷；差旅費應於出差返回後14日內"
        "檢據報支。",
    ),
    doc(
        "CT-CREDIT",
        1,
        title="华信证券 SaaS 服务合同",
        language="zh-Hans",
        body="3. 服务抵扣：月度可用性低于 99.95% 但不低于 99.5% 的，抵扣当月服务费的 10%。\n"
        "4. 抵扣上限：每月服务抵扣合计不超过当月服务费的 50%。\n"
        "5. 申请方式：甲方须在事件结束后 30 日内书面申请服务抵扣，逾期视为放弃。",
    ),
    doc(
        "ORD-CREDIT",
        1,
        title="华信证券 2026 年度订单",
        language="zh-Hans",
        body="特别约定：服务抵扣每月合计最高为当月服务费的 30%。",
    ),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    root = tmp_path_factory.mktemp("statement-choice")
    services = bootstrap.build(Settings(home=root / "home"), clock=FakeClock(), ids=SequentialIds())
    bootstrap.initialise(services)
    corpus = corpus_dict()
    corpus["documents"] += DOCUMENTS
    services.importer.import_file(write_corpus(root / "corpus.json", corpus))
    services.index.sync()
    yield services
    services.close()


@pytest.mark.parametrize(
    ("query", "values"),
    [
        ("出差回來之後，旅費要在幾天內報掉？", {"HR-TRAVEL": "30 day", "HR-EXPENSE": "14 day"}),
        ("华信每个月服务抵扣最多能抵多少？", {"CT-CREDIT": "50 %", "ORD-CREDIT": "30 %"}),
    ],
)
def test_the_statement_the_question_asks_for_is_each_document_s_answer(
    store: Services, query: str, values: dict[str, str]
) -> None:
    result = store.retrieval.retrieve(who(store, "a.sales"), query, k=5, as_of=AS_OF)
    assert store.index.embedder.name.startswith("use")
    assert result.status == "source_conflict"
    assert [{v.document_id: v.value for v in c.values} for c in result.conflicts] == [values]
    cited = {e.evidence_id for e in result.evidence}
    assert all(v.evidence_id in cited for c in result.conflicts for v in c.values)

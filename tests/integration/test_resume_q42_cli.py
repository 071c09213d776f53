"""The reference scenario (docs/product.md) end to end from the CLI on the demo corpus, on
SQLite and PostgreSQL.

The CLI runs in-process (typer's CliRunner: the same `app`, settings from the same MEMDESK_*
variables); the console script's own process boundary and exit codes are covered in test_cli.py.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from services.cli.main import app
from tests.conftest import principal

SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"
DEMO_CORPUS = Path(__file__).resolve().parents[2] / "data" / "demo-corpus.json"
FORBIDDEN = {("SOP-LEADTIME", 1), ("B-PRICE", 1), ("DRAFT-INJECT", 1)}


def memdesk(settings, *args: str) -> Result:
    env = {
        "MEMDESK_HOME": str(settings.home),
        "MEMDESK_DATABASE_URL": settings.database_url,
        "MEMDESK_EMBEDDING_BACKEND": settings.embedding_backend,
        "MEMDESK_ANALYZER": "offline",
        "MEMDESK_GEMINI_API_KEY": None,
    }
    return CliRunner().invoke(app, list(args), env=env)


def test_q42_resumes_end_to_end_from_the_cli(services, settings):
    imported = memdesk(settings, "import", str(DEMO_CORPUS))
    assert imported.exit_code == 0, imported.output
    loaded = services
    # One resume per backend; each check below names one behaviour.
    done = memdesk(
        settings,
        "resume",
        "--as",
        "a.sales",
        "Q42",
        "--supplement",
        SUPPLEMENT,
        "--as-of",
        "2026-11-29",
        "--json",
    )
    assert done.exit_code == 0, done.output
    resumed = json.loads(done.stdout)
    ends_awaiting_approval(resumed)
    material_and_quantity_are_not_asked_again(resumed)
    sop_v2_is_cited_with_offsets_that_slice_to_the_quote(resumed, loaded)
    superseded_other_tenant_and_injection_documents_are_never_used(resumed)
    engineering_confirmations_wait_for_engineers(resumed, loaded)
    the_run_leaves_audit_rows(resumed, loaded)
    the_special_inspection_exception_replaces_the_standard_lead_time(resumed, loaded)
    no_two_claims_state_the_same_span(resumed)


def ends_awaiting_approval(resumed):
    assert resumed["state"]["status"] == "awaiting_approval"
    assert resumed["decision"]["status"] == "ready_for_review"
    assert resumed["decision"]["proposed_next_action"] == "human_review"
    assert resumed["run_id"].startswith("run-")


def material_and_quantity_are_not_asked_again(resumed):
    assert not {"material", "quantity"} & set(resumed["decision"]["missing_fields"])
    assert resumed["state"]["confirmed"]["material"] == "SUS304"
    assert resumed["state"]["confirmed"]["quantity"] == 1200
    claims = " ".join(claim["text"] for claim in resumed["decision"]["claims"])
    assert "material" not in claims and "數量？" not in claims


def sop_v2_is_cited_with_offsets_that_slice_to_the_quote(resumed, loaded):
    sales = principal(loaded, "a.sales")
    cited = {eid for claim in resumed["decision"]["claims"] for eid in claim["evidence_ids"]}
    evidence = {item["evidence_id"]: item for item in resumed["evidence"]}
    assert cited <= set(evidence)
    sop = [evidence[eid] for eid in cited if evidence[eid]["document_id"] == "SOP-LEADTIME"]
    assert sop and all(item["version"] == 2 for item in sop)
    for item in evidence.values():
        body = loaded.knowledge.get(sales, item["document_id"], item["version"])
        assert body.body[item["start"] : item["end"]] == item["quote"]
        assert body.content_hash == item["content_hash"]


def superseded_other_tenant_and_injection_documents_are_never_used(resumed):
    used = {(item["document_id"], item["version"]) for item in resumed["evidence"]}
    assert not used & FORBIDDEN
    text = json.dumps(resumed["decision"], ensure_ascii=False)
    assert "10 日" not in text and "寄出" not in text and "忽略" not in text


def engineering_confirmations_wait_for_engineers(resumed, loaded):
    items = loaded.approval_flow.current(principal(loaded, "a.sales"), "Q42")
    engineering = [item for item in items if item.kind == "engineering"]
    assert engineering and {item.required_role for item in engineering} == {"engineer"}
    assert all(item.payload["citation"]["document_id"] == "SOP-INSPECTION" for item in engineering)
    assert {item.status for item in items} == {"pending"}  # nothing approved by itself
    assert "engineering_confirmation" in resumed["state"]["pending"]


def the_run_leaves_audit_rows(resumed, loaded):
    admin = principal(loaded, "a.admin")
    actions = set(loaded.audit.actions(admin))
    assert {"task.transition", "run.retrieval", "run.model_call", "approval.requested"} <= actions
    assert {"run.finished"} <= actions
    run_rows = loaded.audit.search(admin, subject_id=resumed["run_id"])
    assert any(row.action == "run.retrieval" for row in run_rows)


def test_another_tenant_cannot_resume_the_task(loaded, settings):
    # (the small test corpus is enough here: only identity matters)
    done = memdesk(settings, "resume", "--as", "b.sales", "Q42", "--json")
    assert done.exit_code == 2
    assert "task not found: Q42" in done.stderr
    assert loaded.tasks.get(principal(loaded, "a.sales"), "Q42").state.revision == 1


def the_special_inspection_exception_replaces_the_standard_lead_time(resumed, loaded):
    """Section 三 of SOP-LEADTIME v2 sets the standard lead time aside for orders with special
    inspection, which the customer confirmed: the draft states that clause, cited on its own."""
    body = loaded.knowledge.get(principal(loaded, "a.sales"), "SOP-LEADTIME", 2).body
    section = body.index("三、特殊檢驗")
    claims = resumed["decision"]["claims"]
    cited = [(claim, eid) for claim in claims for eid in claim["evidence_ids"]]
    exception = [
        (claim, eid)
        for claim, eid in cited
        if eid.startswith("SOP-LEADTIME@2:") and int(eid.split(":")[1].split("-")[0]) == section
    ]
    assert exception, [c["text"] for c in claims]
    claim, _ = exception[0]
    assert "不直接適用標準交期" in claim["text"]
    assert "標準交期 15 日" not in json.dumps(claims, ensure_ascii=False)  # the rule set aside


def no_two_claims_state_the_same_span(resumed):
    spans = []
    for claim in resumed["decision"]["claims"]:
        for eid in claim["evidence_ids"]:
            ref, _, offsets = eid.partition(":")
            start, _, end = offsets.partition("-")
            spans.append((ref, int(start), int(end)))
    for index, (ref, start, end) in enumerate(spans):
        for other_ref, other_start, other_end in spans[index + 1 :]:
            assert not (ref == other_ref and start < other_end and other_start < end), spans
    texts = [claim["text"] for claim in resumed["decision"]["claims"]]
    assert len(texts) == len(set(texts))

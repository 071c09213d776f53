"""View shaping for the console (services/views): highlight segments, drafts, timeline, changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.contracts.task_state import TaskState, TaskStatus
from services.core.errors import InvalidInput
from services.desk.changes import changes_since
from services.desk.drafts import draft
from services.desk.evidence import evidence_view
from services.desk.highlight import segments
from services.desk.service import _as_written
from services.desk.timeline import timeline
from services.records.knowledge import DocumentView, content_hash
from services.records.tasks import CheckpointRecord, TaskEventRecord
from services.retrieval.facts import aligned_normalize
from services.retrieval.types import Evidence

T0 = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
BODY = "新版：標準交期 15 日；特殊檢驗另評估。\n$x$ <img src=x>"


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        ([], [(BODY, False)]),
        ([(3, 12)], [(BODY[:3], False), (BODY[3:12], True), (BODY[12:], False)]),
        ([(0, len(BODY))], [(BODY, True)]),
        ([(3, 8), (6, 12)], [(BODY[:3], False), (BODY[3:12], True), (BODY[12:], False)]),
        ([(3, 5), (5, 7)], [(BODY[:3], False), (BODY[3:7], True), (BODY[7:], False)]),
        ([(4, 4)], [(BODY, False)]),
    ],
    ids=["none", "middle", "whole", "overlapping", "touching", "empty-span"],
)
def test_segments_cover_the_body_and_mark_the_spans(spans, expected):
    got = segments(BODY, spans)
    assert [(s.text, s.highlight) for s in got] == expected
    assert "".join(s.text for s in got) == BODY


@pytest.mark.parametrize("span", [(-1, 3), (3, 2), (0, len(BODY) + 1)])
def test_a_span_outside_the_body_is_an_error_not_clamped(span):
    with pytest.raises(InvalidInput):
        segments(BODY, [span])


@settings(max_examples=60, deadline=None)
@given(
    body=st.text(max_size=40),
    raw=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), max_size=4),
)
def test_segments_always_reassemble_the_body_at_their_offsets(body, raw):
    spans = [(min(a, b, len(body)), min(max(a, b), len(body))) for a, b in raw]
    got = segments(body, spans)
    assert "".join(s.text for s in got) == body
    for segment in got:
        assert body[segment.start : segment.end] == segment.text
    highlighted = {i for s in got if s.highlight for i in range(s.start, s.end)}
    assert highlighted == {i for a, b in spans for i in range(a, b)}


def evidence(document_id: str, version: int, start: int, end: int, **extra: object) -> Evidence:
    return Evidence(
        evidence_id=f"{document_id}@{version}:{start}-{end}",
        document_id=document_id,
        version=version,
        chunk_id="c1",
        knowledge_class=str(extra.get("knowledge_class", "fact")),
        doc_type="sop",
        title="交期",
        start=start,
        end=end,
        quote="標準交期 15 日",
        content_hash="sha256:x",
    )


def test_a_draft_resolves_citations_from_the_run_pool_and_labels_history():
    pool = [
        evidence("SOP-LEADTIME", 2, 3, 12),
        evidence("QUOTE-2025-117", 1, 0, 9, knowledge_class="history"),
    ]
    decision = {
        "task_id": "Q42",
        "state_revision": 3,
        "status": "ready_for_review",
        "claims": [
            {"text": "標準交期 15 日", "evidence_ids": ["SOP-LEADTIME@2:3-12"]},
            {"text": "過去報價 12 日", "evidence_ids": ["QUOTE-2025-117@1:0-9", "MAIL-42@1:5-9"]},
        ],
        "missing_fields": [],
        "proposed_next_action": "human_review",
    }
    shaped = draft("run-1", decision, pool)
    assert shaped.decision_version == 3
    first, second = shaped.claims
    assert [(c.ref, c.start, c.end, c.quote) for c in first.citations] == [
        ("SOP-LEADTIME@2", 3, 12, "標準交期 15 日")
    ]
    assert [c.is_history for c in second.citations] == [True, False]
    # Outside the pool: still located by its id, but with no quote to show.
    assert second.citations[1].ref == "MAIL-42@1" and second.citations[1].quote is None


def state(revision: int, **changes: object) -> TaskState:
    base: dict[str, object] = {
        "tenant_id": "A",
        "task_id": "Q42",
        "revision": revision,
        "status": TaskStatus.waiting_input,
        "confirmed": {"material": "SUS304", "quantity": 1200},
        "pending": ["special_inspection"],
        "next_step": "retrieve",
    }
    return TaskState.model_validate({**base, **changes})


def checkpoint(revision: int, snapshot: TaskState, stage: str = "updated") -> CheckpointRecord:
    return CheckpointRecord(
        id=revision,
        revision=revision,
        stage=stage,
        run_id=None,
        state=snapshot,
        relied_on=[],
        at=T0 + timedelta(minutes=revision),
    )


def event(revision: int, kind: str, actor: str, note: str | None = None) -> TaskEventRecord:
    return TaskEventRecord(
        id=revision,
        revision=revision,
        kind=kind,
        actor=actor,
        run_id=None,
        at=T0 + timedelta(minutes=revision),
        detail={"note": note} if note else {},
    )


def test_changes_since_lists_field_changes_and_who_wrote_each_revision():
    seen = state(2)
    now = state(
        4,
        status=TaskStatus.awaiting_approval,
        confirmed={"material": "SUS304", "quantity": 1500},
        pending=[],
    )
    diff = changes_since(
        2,
        now,
        [checkpoint(2, seen), checkpoint(4, now)],
        [event(2, "updated", "a.sales"), event(3, "conflict_resolved", "a.sales2", "客戶改量")],
    )
    assert diff.stale
    assert [(c.field, c.before, c.after) for c in diff.changes] == [
        ("status", "waiting_input", "awaiting_approval"),
        ("confirmed.quantity", 1200, 1500),
        ("pending", ["special_inspection"], []),
    ]
    assert diff.writes == ["r3 conflict_resolved by a.sales2: 客戶改量"]


def test_timeline_is_newest_first_with_checkpoints_on_their_events():
    from services.agents.runs import RunView

    run = RunView.model_validate(
        {
            "run_id": "run-1",
            "tenant_id": "A",
            "task_id": "Q42",
            "requested_by": "a.sales",
            "status": "succeeded",
            "supplement": "客戶確認需要特殊檢驗",
            "as_of": None,
            "attempts": 1,
            "max_attempts": 3,
            "available_at": T0,
            "claimed_by": None,
            "heartbeat_at": None,
            "cancel_requested": False,
            "prompt_id": None,
            "prompt_version": None,
            "model": None,
            "model_calls": 0,
            "tokens_in": 0,
            "tokens_out": 0,
            "cost_usd": 0.0,
            "decision": {"status": "ready_for_review"},
            "review": None,
            "error": None,
            "created_at": T0 + timedelta(minutes=1, seconds=30),
            "started_at": None,
            "finished_at": T0 + timedelta(minutes=2, seconds=30),
            "timings": {},
        }
    )
    rows = timeline(
        [event(1, "created", "a.sales"), event(2, "transition", "a.sales")],
        [checkpoint(1, state(1), "created"), checkpoint(2, state(2), "restoring")],
        [run],
    )
    assert [(r.source, r.title) for r in rows] == [
        ("run", "run_finished"),
        ("event", "transition"),
        ("run", "run_queued"),
        ("event", "created"),
    ]
    assert rows[0].status == "succeeded"
    assert rows[1].checkpoint == "restoring"
    assert rows[2].detail == "客戶確認需要特殊檢驗"  # the whole supplement


def document(body: str, **extra: object) -> DocumentView:
    base: dict[str, object] = {
        "tenant_id": "A",
        "document_id": "SOP-LEADTIME",
        "version": 2,
        "doc_type": "sop",
        "knowledge_class": "fact",
        "status": "approved",
        "valid_from": date(2026, 1, 1),
        "valid_to": None,
        "language": "zh-Hant",
        "title": "交期",
        "body": body,
        "content_hash": content_hash(body),
        "customer_id": None,
        "acl": ["tenant"],
        "approved_by": "a.owner",
        "approved_at": None,
        "created_by": "seed",
        "created_at": T0,
        "status_reason": None,
        "legal_hold": False,
    }
    return DocumentView.model_validate({**base, **extra})


@pytest.mark.parametrize(
    ("stored_hash", "recorded_quote", "hash_ok", "quote_matches"),
    [
        (None, "標準交期 15 日", True, True),
        ("sha256:" + "0" * 64, "標準交期 15 日", False, True),
        (None, "標準交期 10 日", True, False),
        (None, None, True, None),
    ],
    ids=["all-good", "tampered-body", "moved-quote", "no-recorded-quote"],
)
def test_evidence_view_checks_hash_quote_and_validity(
    stored_hash, recorded_quote, hash_ok, quote_matches
):
    doc = document(BODY)
    if stored_hash:
        doc = doc.model_copy(update={"content_hash": stored_hash})
    view = evidence_view(
        evidence_id="SOP-LEADTIME@2:3-12",
        document=doc,
        start=3,
        end=12,
        recorded_quote=recorded_quote,
        recorded_hash=doc.content_hash,
        as_of=date(2026, 11, 29),
        eligible=True,
        versions=[document(BODY, version=1, status="superseded"), doc],
    )
    assert view.quote == BODY[3:12] == "標準交期 15 日"
    assert (view.hash_ok, view.quote_matches, view.valid) == (hash_ok, quote_matches, True)
    assert [(s.text, s.highlight) for s in view.segments][1] == ("標準交期 15 日", True)
    assert [(v.version, v.cited) for v in view.versions] == [(1, False), (2, True)]


def test_evidence_view_flags_offsets_outside_the_body_without_raising():
    view = evidence_view(
        evidence_id="SOP-LEADTIME@2:3-999",
        document=document(BODY, valid_to=date(2026, 6, 1)),
        start=3,
        end=999,
        recorded_quote="x",
        recorded_hash=None,
        as_of=date(2026, 11, 29),
        eligible=False,
        versions=[],
    )
    assert (view.span_ok, view.quote_matches, view.valid) == (False, False, False)
    assert [s.highlight for s in view.segments] == [False]


@pytest.mark.parametrize(
    ("quote", "shown"),
    [
        ("本公司標準交期為 15 日", "標準交期"),  # Traditional stays Traditional
        ("本公司标准交期为 15 日", "标准交期"),  # Simplified stays Simplified
        ("ＳＵＳ３０４標準交期：１２ 日", "標準交期"),  # full-width text around it
    ],
)
def test_a_conflicts_fact_is_shown_in_the_documents_own_script(quote, shown):
    key = aligned_normalize(quote)[0]
    fact = key[key.index("标准交期") : key.index("标准交期") + 4]
    assert _as_written(fact, [{"quote": quote}]) == shown


def test_a_fact_no_quote_holds_is_shown_as_its_key():
    assert _as_written("膜厚", [{"quote": "unrelated"}]) == "膜厚"

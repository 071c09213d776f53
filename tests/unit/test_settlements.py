"""A person's settlement of conflicting sources applied to a later run's gathered evidence."""

from __future__ import annotations

from datetime import UTC, datetime

from services.agents.settlements import Settlement, apply, settlements
from services.contracts.memory_input import InputConflict, Need
from services.records.tasks import TaskEventRecord
from services.retrieval.types import Evidence

FACT = "a6061-t6硬陽極膜厚"


def evidence(document_id: str, version: int = 1) -> Evidence:
    return Evidence(
        evidence_id=f"{document_id}@{version}:0-20",
        document_id=document_id,
        version=version,
        chunk_id="c",
        knowledge_class="fact",
        doc_type="sop",
        title=document_id,
        start=0,
        end=20,
        quote="膜厚",
        content_hash="sha256:x",
    )


POOL = {
    e.evidence_id: e
    for e in (evidence("SOP-ANODIZE"), evidence("SOP-ANODIZE-QC"), evidence("SOP-PACK"))
}


def need(key: str, ids: list[str], status: str = "source_conflict") -> Need:
    return Need(
        key=key,
        label=key,
        query=key,
        required=True,
        source="pending",
        retrieval_status=status,
        evidence_ids=ids,
    )


def conflict(need_key: str, fact: str = FACT) -> InputConflict:
    return InputConflict(
        need=need_key,
        fact=fact,
        values=[
            {
                "value": "25 µm",
                "evidence_id": "SOP-ANODIZE@1:0-20",
                "document_id": "SOP-ANODIZE",
                "version": 1,
            },
            {
                "value": "35 µm",
                "evidence_id": "SOP-ANODIZE-QC@1:0-20",
                "document_id": "SOP-ANODIZE-QC",
                "version": 1,
            },
        ],
    )


NEEDS = [
    need("film_thickness", ["SOP-ANODIZE@1:0-20", "SOP-ANODIZE-QC@1:0-20"]),
    need("packing", ["SOP-PACK@1:0-20"], status="ok"),
]


def test_a_settled_conflict_is_dropped_with_the_losing_source():
    applied = apply(
        NEEDS,
        POOL,
        [conflict("film_thickness")],
        {FACT: Settlement(fact=FACT, chosen="SOP-ANODIZE-QC@1", reason="QC 規範")},
    )
    assert applied.conflicts == []
    thickness, packing = applied.needs
    assert thickness.evidence_ids == ["SOP-ANODIZE-QC@1:0-20"]
    assert thickness.retrieval_status == "ok"
    assert packing == NEEDS[1]
    assert sorted(applied.pool) == ["SOP-ANODIZE-QC@1:0-20", "SOP-PACK@1:0-20"]
    assert applied.settled == [
        {"need": "film_thickness", "fact": FACT, "chosen": "SOP-ANODIZE-QC@1"}
    ]


def test_a_choice_of_another_version_does_not_settle_a_new_disagreement():
    conflicts = [conflict("film_thickness")]
    applied = apply(
        NEEDS, POOL, conflicts, {FACT: Settlement(fact=FACT, chosen="SOP-ANODIZE-QC@2", reason="")}
    )
    assert applied.conflicts == conflicts and applied.needs == NEEDS and applied.pool == POOL


def test_other_facts_stay_contested():
    conflicts = [conflict("film_thickness"), conflict("film_thickness", fact="鹽霧試驗時數")]
    applied = apply(
        NEEDS, POOL, conflicts, {FACT: Settlement(fact=FACT, chosen="SOP-ANODIZE@1", reason="")}
    )
    assert [c.fact for c in applied.conflicts] == ["鹽霧試驗時數"]
    assert applied.needs[0].retrieval_status == "source_conflict"  # still contested
    assert applied.needs[0].evidence_ids == ["SOP-ANODIZE@1:0-20"]


def test_the_latest_settlement_of_a_fact_wins():
    def settled(n: int, chosen: str) -> TaskEventRecord:
        return TaskEventRecord(
            id=n,
            revision=n,
            kind="source_conflict_settled",
            actor="a.sales",
            run_id=None,
            at=datetime(2026, 11, 29, tzinfo=UTC),
            detail={"fact": FACT, "chosen": chosen, "reason": f"r{n}"},
        )

    found = settlements([settled(1, "SOP-ANODIZE@1:0-20"), settled(2, "SOP-ANODIZE-QC@1:5-9")])
    assert found == {FACT: Settlement(fact=FACT, chosen="SOP-ANODIZE-QC@1", reason="r2")}

"""People's settlements of conflicting sources, applied to what a run gathered.

When a reviewer has recorded which source is authoritative for a fact (a task event
`source_conflict_settled`, see services/desk.py), a later run of the task no longer stops on
that disagreement: the conflict is dropped, the losing version is taken out of that need's
evidence, and the need counts as answered. Only the exact document version the person chose
settles it; a newer version of either source brings the conflict back to a person.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from services.contracts.evidence_id import parse_evidence_id
from services.contracts.memory_input import InputConflict, Need
from services.records.tasks import TaskEventRecord
from services.retrieval.types import Evidence

SETTLED = "source_conflict_settled"


class Settlement(BaseModel):
    model_config = ConfigDict(frozen=True)

    fact: str
    chosen: str  # DOC@VERSION
    reason: str


class Applied(BaseModel):
    model_config = ConfigDict(frozen=True)

    needs: list[Need]
    pool: dict[str, Evidence]
    conflicts: list[InputConflict]
    settled: list[dict[str, str]]  # what was applied, for the run's events


def settlements(events: list[TaskEventRecord]) -> dict[str, Settlement]:
    """The latest settlement per fact, from the task's events."""
    latest: dict[str, Settlement] = {}
    for event in events:
        if event.kind != SETTLED:
            continue
        parsed = parse_evidence_id(str(event.detail.get("chosen", "")))
        fact = event.detail.get("fact")
        if parsed is None or not isinstance(fact, str):
            continue
        document_id, version, _, _ = parsed
        latest[fact] = Settlement(
            fact=fact, chosen=f"{document_id}@{version}", reason=str(event.detail.get("reason"))
        )
    return latest


def apply(
    needs: list[Need],
    pool: dict[str, Evidence],
    conflicts: list[InputConflict],
    settled: dict[str, Settlement],
) -> Applied:
    remaining: list[InputConflict] = []
    losers: dict[str, set[str]] = {}  # need key -> losing DOC@VERSION refs
    applied: list[dict[str, str]] = []
    for conflict in conflicts:
        settlement = settled.get(conflict.fact)
        refs = {f"{v.get('document_id')}@{v.get('version')}" for v in conflict.values}
        if settlement is None or settlement.chosen not in refs:
            remaining.append(conflict)
            continue
        losers.setdefault(conflict.need, set()).update(refs - {settlement.chosen})
        applied.append({"need": conflict.need, "fact": conflict.fact, "chosen": settlement.chosen})
    if not applied:
        return Applied(needs=needs, pool=pool, conflicts=conflicts, settled=[])
    contested = {conflict.need for conflict in remaining}
    new_needs = []
    for need in needs:
        lost = losers.get(need.key)
        if not lost:
            new_needs.append(need)
            continue
        kept = [eid for eid in need.evidence_ids if eid in pool and pool[eid].ref not in lost]
        update: dict[str, object] = {"evidence_ids": kept}
        if need.key not in contested and need.retrieval_status == "source_conflict":
            update["retrieval_status"] = "ok"
        new_needs.append(need.model_copy(update=update))
    # Evidence no need points at any more is not offered to the analyst.
    cited = {eid for need in new_needs for eid in need.evidence_ids}
    all_losers = set().union(*losers.values())
    new_pool = {
        eid: item for eid, item in pool.items() if item.ref not in all_losers or eid in cited
    }
    return Applied(needs=new_needs, pool=new_pool, conflicts=remaining, settled=applied)

"""What a person may see of records derived from documents (runs, hand-offs, approval payloads).

A run retrieves evidence with its requester's rights; a colleague of the same tenant who opens
the run or its approvals may lack a document's customer grant, role or user entry. Quotes,
titles and claim texts that come from a document the viewer may not read are withheld (the
structure, ids and statuses stay, so the flow and its checks work unchanged).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.evidence_id import APPROVAL_PREFIX, approval_id_of, parse_evidence_id
from services.core.principals import Principal
from services.db.models import Approval, DocumentAcl

WITHHELD = "[withheld: it cites a document you may not read]"
Ref = tuple[str, int]
# Keys whose text is copied from the document a dict cites.
_TEXT_KEYS = ("quote", "title", "text", "body", "value")


def refs_in(value: Any) -> set[Ref]:
    """Every document version a JSON-like value cites (document_id+version, evidence ids)."""
    found: set[Ref] = set()
    if isinstance(value, dict):
        found |= _own_refs(value)
        for item in value.values():
            found |= refs_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= refs_in(item)
    return found


def hidden_refs(session: Session, principal: Principal, refs: set[Ref]) -> set[Ref]:
    """The cited versions whose ACL the principal does not match (or of another tenant)."""
    if not refs:
        return set()
    readable = {
        (str(document), int(version))
        for document, version in session.execute(
            select(DocumentAcl.document_id, DocumentAcl.version)
            .where(
                DocumentAcl.tenant_id == principal.tenant_id,
                DocumentAcl.document_id.in_(sorted({doc for doc, _ in refs})),
                DocumentAcl.tag.in_(principal.acl_tags),
            )
            .distinct()
        )
    }
    # An engineer's recorded result is cited to its approval record: readable by whoever may
    # see that approval (the same tenant), like the approval item itself.
    approvals = {approval_id_of(doc) for doc, _ in refs} - {None}
    if approvals:
        readable |= {
            (f"{APPROVAL_PREFIX}{approval_id}", int(version))
            for approval_id, version in session.execute(
                select(Approval.id, Approval.decision_version).where(
                    Approval.tenant_id == principal.tenant_id, Approval.id.in_(sorted(approvals))
                )
            )
        }
    return {ref for ref in refs if ref not in readable}


def withhold(value: Any, hidden: set[Ref]) -> Any:
    """A copy of `value` in which nothing citing a hidden version is left (for what a viewer
    reads of a run: its decision, review and events): an item citing one is left out of its
    list — with its document id, customer, validity, offsets, hashes and text — and an evidence
    id naming one reads WITHHELD. A dict at the top that lost items says how many
    (`"withheld": N`), so the viewer sees that something was withheld and nothing else."""
    if not hidden:
        return value
    dropped = [0]
    out = _withhold(value, hidden, dropped)
    if isinstance(out, dict) and dropped[0]:
        out = {**out, "withheld": dropped[0]}
    return out


def _withhold(value: Any, hidden: set[Ref], dropped: list[int]) -> Any:
    if isinstance(value, list | tuple):
        kept = []
        for item in value:
            if isinstance(item, dict) and _own_refs(item) & hidden and not _is_container(item):
                dropped[0] += 1
                continue
            kept.append(_withhold(item, hidden, dropped))
        return kept
    if isinstance(value, str):
        parsed = parse_evidence_id(value)
        return WITHHELD if parsed is not None and (parsed[0], parsed[1]) in hidden else value
    if not isinstance(value, dict):
        return value
    out = {key: _withhold(item, hidden, dropped) for key, item in value.items()}
    if _own_refs(value) & hidden:  # a single item outside any list: its text goes
        for key in _TEXT_KEYS:
            if isinstance(out.get(key), str):
                out[key] = WITHHELD
    if isinstance(out.get("raw"), str):  # a model's raw answer quotes whatever it was given
        out["raw"] = WITHHELD
    decision = out.get("decision")
    if isinstance(out.get("draft"), str) and isinstance(decision, dict):
        out["draft"] = "\n".join(str(c.get("text", "")) for c in decision.get("claims", []))
    return out


def _is_container(value: dict[str, Any]) -> bool:
    """A dict that only lists evidence ids for others (a decision, a packet), not one item: its
    own entries are withheld one by one instead of the whole."""
    return not any(key in value for key in ("document_id", "evidence_id", "citation", "text"))


def redact(value: Any, hidden: set[Ref]) -> Any:
    """A copy of `value` with the text of everything citing a hidden version withheld."""
    if not hidden:
        return value
    if isinstance(value, list | tuple):
        return [redact(item, hidden) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: redact(item, hidden) for key, item in value.items()}
    if _own_refs(value) & hidden:
        for key in _TEXT_KEYS:
            if isinstance(out.get(key), str):
                out[key] = WITHHELD
    if isinstance(out.get("raw"), str):  # a model's raw answer quotes whatever it was given
        out["raw"] = WITHHELD
    decision = out.get("decision")
    if isinstance(out.get("draft"), str) and isinstance(decision, dict):
        out["draft"] = "\n".join(str(c.get("text", "")) for c in decision.get("claims", []))
    return out


def _own_refs(value: dict[str, Any]) -> set[Ref]:
    refs: set[Ref] = set()
    document, version = value.get("document_id"), value.get("version")
    if isinstance(document, str) and isinstance(version, int):
        refs.add((document, version))
    ids = (
        list(value.get("evidence_ids") or []) if isinstance(value.get("evidence_ids"), list) else []
    )
    if isinstance(value.get("evidence_id"), str):
        ids.append(value["evidence_id"])
    for evidence_id in ids:
        parsed = parse_evidence_id(str(evidence_id))
        if parsed is not None:
            refs.add((parsed[0], parsed[1]))
    citation = value.get("citation")  # an approval item's text is copied from its citation
    if isinstance(citation, dict):
        refs |= _own_refs(citation)
    return refs

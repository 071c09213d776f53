"""Helpers for publishing tests: a corpus with two knowledge owners, proposals, what serves."""

from __future__ import annotations

from datetime import date
from typing import Any

from services.bootstrap import Services
from services.core.principals import Principal
from services.publishing.candidates import CandidateView, Proposal
from tests.support.corpus import corpus_dict, doc

AS_OF = date(2026, 11, 29)
LEADTIME_QUERY = "標準交期是幾天"
V3_BODY = "新版：標準交期 18 日；特殊檢驗另評估"


def publishing_corpus() -> dict[str, Any]:
    """The small corpus plus a second knowledge owner (a proposer may not approve their own)."""
    corpus = corpus_dict()
    corpus["users"].append(
        {
            "user_id": "a.owner2",
            "tenant_id": "A",
            "display_name": "A Owner 2",
            "roles": ["knowledge_owner"],
            "grants": [],
        }
    )
    corpus["users"].append(
        {
            "user_id": "b.owner",
            "tenant_id": "B",
            "display_name": "B Owner",
            "roles": ["knowledge_owner", "admin"],
            "grants": [],
        }
    )
    corpus["documents"] += [
        doc("SOP-PACKING", 1, body="不鏽鋼零件以 PE 袋單件包裝。"),
        doc(
            "SOP-PACKING",
            2,
            status="pending_approval",
            valid_from="2026-12-01",
            body="不鏽鋼零件一律改用 VCI 防鏽袋單件包裝。",
        ),
        doc(
            "MEMO-AI-LEADTIME",
            1,
            status="pending_approval",
            knowledge_class="inference",
            doc_type="note",
            body="建議將「特殊檢驗一律增加 3 日」寫入交期標準作業程序。",
        ),
    ]
    return corpus


def who(services: Services, user_id: str) -> Principal:
    return services.directory.principal(user_id)


def propose_leadtime(
    services: Services, user_id: str = "a.sales", body: str = V3_BODY
) -> CandidateView:
    """A reviewer's correction of SOP-LEADTIME citing the v2 sentence it corrects."""
    return services.candidates.propose(
        who(services, user_id),
        Proposal(
            document_id="SOP-LEADTIME",
            body=body,
            origin="correction",
            evidence_ids=["SOP-LEADTIME@2:0-20"],
            rationale="the supplier's lead time changed",
        ),
    )


def approved_leadtime(services: Services) -> CandidateView:
    candidate = propose_leadtime(services)
    return services.candidates.approve(
        who(services, "a.owner"), candidate.candidate_id, comment="checked with purchasing"
    )


def served_versions(services: Services, document_id: str = "SOP-LEADTIME") -> set[int]:
    """The versions of a document that governed retrieval cites for the lead-time question."""
    result = services.retrieval.retrieve(who(services, "a.sales"), LEADTIME_QUERY, as_of=AS_OF)
    return {e.version for e in result.evidence if e.document_id == document_id}


def eligible_versions(services: Services, document_id: str = "SOP-LEADTIME") -> set[int]:
    return {
        d.version
        for d in services.knowledge.eligible(
            who(services, "a.sales"), as_of=AS_OF, document_ids=[document_id]
        )
    }

"""A small exact retriever over KnowledgeStore.eligible(): the hand-written stand-in for
services.retrieval (same two methods), used by agent tests and until the governed hybrid
retriever is wired in. Paragraph chunks, character-bigram overlap, identifiers must match."""

from __future__ import annotations

import re
from datetime import date

from services.agents.text import char_bigrams, normalize
from services.clock import Clock, today
from services.errors import NotFound
from services.knowledge import DocumentView, KnowledgeStore
from services.principals import Principal
from services.retrieval.types import Evidence, RetrievalResult, evidence_id_for, parse_evidence_id

_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*\d[A-Za-z0-9]*")
MIN_OVERLAP = 2


def paragraphs(body: str) -> list[tuple[int, int]]:
    spans = []
    for match in re.finditer(r"[^\n]+(?:\n(?!\s*\n)[^\n]+)*", body):
        start, end = match.span()
        if body[start:end].strip():
            spans.append((start, end))
    return spans


class ExactRetriever:
    def __init__(self, *, knowledge: KnowledgeStore, clock: Clock) -> None:
        self._knowledge = knowledge
        self._clock = clock

    def retrieve(
        self, principal: Principal, query: str, *, k: int = 5, as_of: date | None = None
    ) -> RetrievalResult:
        as_of = as_of or today(self._clock)
        wanted = char_bigrams(query)
        identifiers = {token.lower() for token in _IDENTIFIER.findall(normalize(query))}
        scored: list[tuple[int, Evidence]] = []
        for doc in self._knowledge.eligible(principal, as_of=as_of):
            for start, end in paragraphs(doc.body):
                text = doc.body[start:end]
                folded = normalize(text).lower()
                if any(token not in folded for token in identifiers):
                    continue
                score = len(char_bigrams(text) & wanted)
                if score >= MIN_OVERLAP:
                    scored.append((score, _evidence(doc, start, end)))
        scored.sort(key=lambda pair: (-pair[0], pair[1].evidence_id))
        evidence = [
            item.model_copy(update={"rank": rank}) for rank, (_, item) in enumerate(scored[:k], 1)
        ]
        return RetrievalResult(
            status="ok" if evidence else "insufficient_evidence",
            query=query,
            as_of=as_of,
            evidence=evidence,
            missing=[] if evidence else [query],
        )

    def resolve(
        self, principal: Principal, evidence_id: str, *, as_of: date | None = None
    ) -> Evidence:
        parsed = parse_evidence_id(evidence_id)
        if parsed is None:
            raise NotFound("evidence", evidence_id)
        document_id, version, start, end = parsed
        as_of = as_of or today(self._clock)
        for doc in self._knowledge.eligible(principal, as_of=as_of, document_ids=[document_id]):
            if doc.version == version and doc.hash_ok and 0 <= start < end <= len(doc.body):
                return _evidence(doc, start, end)
        raise NotFound("evidence", evidence_id)


def _evidence(doc: DocumentView, start: int, end: int) -> Evidence:
    return Evidence(
        evidence_id=evidence_id_for(doc.document_id, doc.version, start, end),
        document_id=doc.document_id,
        version=doc.version,
        chunk_id=f"{doc.document_id}@{doc.version}#{start}",
        knowledge_class=doc.knowledge_class,
        doc_type=doc.doc_type,
        title=doc.title,
        start=start,
        end=end,
        quote=doc.body[start:end],
        content_hash=doc.content_hash,
        customer_id=doc.customer_id,
        valid_from=doc.valid_from,
        valid_to=doc.valid_to,
    )

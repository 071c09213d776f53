"""A simple exact retrieval over the real store: eligible versions whose body contains the query.

Stands in for services/retrieval until the hybrid retriever lands; it only uses
KnowledgeStore.eligible(), so every governance rule of the store applies to it."""

from __future__ import annotations

from datetime import date

from services.knowledge import KnowledgeStore
from services.principals import Principal
from services.retrieval.types import Evidence, evidence_id_for


def exact_retrieve(
    knowledge: KnowledgeStore, principal: Principal, query: str, *, as_of: date
) -> list[Evidence]:
    needle = query.strip()
    if not needle:
        return []
    hits = []
    for doc in knowledge.eligible(principal, as_of=as_of):
        start = doc.body.find(needle)
        if start < 0:
            continue
        end = start + len(needle)
        hits.append(
            Evidence(
                evidence_id=evidence_id_for(doc.document_id, doc.version, start, end),
                document_id=doc.document_id,
                version=doc.version,
                chunk_id=f"{doc.document_id}@{doc.version}#exact",
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
        )
    hits.sort(key=lambda hit: (hit.document_id, hit.version))
    return [hit.model_copy(update={"rank": rank}) for rank, hit in enumerate(hits, start=1)]

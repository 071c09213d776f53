"""Inside a tenant, a person without a document's ACL (customer grant, role, user) or without the
curator role for non-approved versions gets nothing of it: every document-facing call answers as
for a document that exists nowhere, and search never returns it. The same case table as the
tenant-isolation suite, aimed at restricted documents."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from services.core.errors import NotFound
from tests.security.conftest import AS_OF, MISSING, Targets, World, root_of
from tests.security.test_tenant_isolation import CASES, outcome, public_methods

# (document, version, readers without access, a reader with access)
RESTRICTED = [
    ("CONTRACT-ACME-2026", 1, ("a.sales2", "a.engineer", "a.owner"), "a.sales"),  # customer
    ("MAIL-42", 1, ("a.sales2", "a.admin"), "a.sales"),  # customer grant
    ("ENG-WI-7731B", 1, ("a.sales", "a.owner"), "a.engineer"),  # role:engineer
    ("KO-GOVERNANCE", 1, ("a.sales", "a.engineer"), "a.owner"),  # role:knowledge_owner
    ("NOTE-OWNER-AUDIT", 1, ("a.sales", "a.admin"), "a.owner"),  # user:a.owner
    ("DRAFT-INJECT", 1, ("a.sales", "a.engineer"), "a.owner"),  # draft: curators only
    ("MEMO-AI-LEADTIME", 1, ("a.sales", "a.engineer"), "a.owner"),  # pending: curators only
]
# Every method whose target is a document or a citation of one.
DOCUMENT_FACING = sorted(
    [
        *(m for m in CASES if m.split(".")[0] in ("knowledge", "retrieval")),
        "desk.evidence_view",  # the console's citation check beside the original
        "candidates.propose",  # sources are re-sliced from documents as the proposer
        "citations.check",  # is a cited version current, superseded or revoked
    ]
)


@pytest.fixture
def world(sqlite_world: World) -> World:
    """Within-tenant ACLs are the same code on both backends; SQLite is enough here."""
    return sqlite_world


def test_every_document_facing_method_is_in_the_acl_table():
    facing = {m for m in public_methods() if m.split(".")[0] in ("knowledge", "retrieval")}
    assert facing & set(CASES) <= set(DOCUMENT_FACING)
    assert len(DOCUMENT_FACING) >= 9


def _targets(
    world: World, document: str, version: int, reader: str
) -> tuple[Targets, Targets, str]:
    """The isolation targets aimed at this document and a citation into its body, the same
    aimed at a document that exists nowhere, and the body."""
    body = world.services.knowledge.get(world.principal(reader), document, version).body
    end = min(40, len(body))

    def aim(doc: str) -> Targets:
        return dataclasses.replace(
            world.real, document=doc, version=version, evidence=f"{doc}@{version}:0-{end}"
        )

    return aim(document), aim(MISSING.document), body


def _leaks(text: str, document: str, body: str) -> bool:
    snippet = body.strip()[:24]
    return bool(re.search(rf"(?<![\w-]){re.escape(document)}(?![\w-])", text)) or snippet in text


@pytest.mark.parametrize("method", DOCUMENT_FACING)
@pytest.mark.parametrize(("document", "version", "without", "reader"), RESTRICTED)
def test_a_reader_without_the_acl_gets_what_a_missing_document_gives(
    world, method, document, version, without, reader
):
    targets, missing, body = _targets(world, document, version, reader)
    case = CASES[method]
    for user in without:
        p = world.principal(user)
        aimed = outcome(world, case, p, targets)
        nowhere = outcome(world, case, p, missing)
        assert aimed == nowhere, (user, aimed, nowhere)
        assert not _leaks(json.dumps(aimed, ensure_ascii=False), document, body), (user, aimed)
    # The document is really there for someone allowed to read it.
    world.services.knowledge.get(world.principal(reader), document, version)


@pytest.mark.parametrize(("document", "version", "without", "reader"), RESTRICTED)
def test_retrieval_with_the_documents_own_words_never_returns_it_without_the_acl(
    world, document, version, without, reader
):
    view = world.services.knowledge.get(world.principal(reader), document, version)
    body = view.body
    query = f"{view.title} {body[:60]}"
    for user in without:
        result = world.services.retrieval.retrieve(world.principal(user), query, k=10, as_of=AS_OF)
        assert document not in {e.document_id for e in result.evidence}, user
    if view.status == "approved":  # the control: an allowed reader finds it with these words
        result = world.services.retrieval.retrieve(
            world.principal(reader), query, k=10, as_of=AS_OF
        )
        assert document in {e.document_id for e in result.evidence}


def test_the_same_grant_name_in_another_tenant_opens_nothing(world):
    """B holding `customer:C-ACME` (A's customer id) still reads none of A's customer documents."""
    intruder = root_of("B", grants=("customer:C-ACME",))
    with pytest.raises(NotFound):
        world.services.knowledge.get(intruder, "CONTRACT-ACME-2026", 1)
    found = world.services.knowledge.search(intruder, search="ACME", limit=1000).items
    assert all(d.tenant_id == "B" for d in found)

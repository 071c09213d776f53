"""Eligible evidence: approved, current, valid at as_of, same tenant and a matching ACL entry."""

from __future__ import annotations

import hashlib
import json
from datetime import date

import pytest

from services.core.errors import NotFound
from tests.conftest import principal
from tests.support.corpus import corpus_dict, doc, import_bytes

AS_OF = date(2026, 11, 29)


@pytest.fixture
def store(services):
    corpus = corpus_dict()
    corpus["users"].append(
        {"user_id": "a.acme2", "tenant_id": "A", "roles": ["sales"], "grants": ["customer:C-X"]}
    )
    corpus["documents"] += [
        doc("EXPIRED", 1, body="舊合約", valid_from="2025-01-01", valid_to="2026-01-01"),
        doc("FUTURE", 1, body="明年價目", valid_from="2027-01-01"),
        doc("ENDS-TODAY", 1, body="今日失效", valid_from="2026-01-01", valid_to="2026-11-29"),
        doc("STARTS-TODAY", 1, body="今日生效", valid_from="2026-11-29"),
        doc("REVOKED", 1, status="revoked", body="撤銷"),
        doc("PENDING", 1, status="pending_approval", body="待核准"),
        doc("REJECTED", 1, status="rejected", body="已駁回"),
        doc("ENG-ONLY", 1, acl=["role:engineer"], body="工程作業指導"),
        doc("OWNER-NOTE", 1, acl=["user:a.owner"], body="給知識負責人"),
        doc("TWO-CURRENT", 1, body="第一版"),
        doc("TWO-CURRENT", 2, body="第二版"),
    ]
    import_bytes(
        services.importer,
        json.dumps(corpus, ensure_ascii=False).encode(),
        source="c.json",
        actor="test",
    )
    return services


def eligible(services, user_id: str) -> set[str]:
    docs = services.knowledge.eligible(principal(services, user_id), as_of=AS_OF)
    return {d.ref for d in docs}


ALWAYS_OUT = {
    "SOP-LEADTIME@1",  # superseded
    "DRAFT-INJECT@1",  # draft inference
    "EXPIRED@1",
    "FUTURE@1",
    "ENDS-TODAY@1",  # valid_to is exclusive
    "REVOKED@1",
    "PENDING@1",
    "REJECTED@1",
    "TWO-CURRENT@1",  # a higher approved version is current
    "B-PRICE@1",  # another tenant
}
FOR_EVERYONE_IN_A = {"SOP-LEADTIME@2", "MAIL-42@1", "STARTS-TODAY@1", "TWO-CURRENT@2"}


@pytest.mark.parametrize(
    ("user_id", "extra"),
    [
        ("a.sales", {"CONTRACT-ACME@1"}),  # customer:C-ACME grant
        ("a.acme2", set()),  # a customer grant for someone else
        ("a.engineer", {"ENG-ONLY@1"}),
        ("a.owner", {"OWNER-NOTE@1"}),
    ],
)
def test_each_user_gets_exactly_what_they_may_cite(store, user_id, extra):
    got = eligible(store, user_id)
    assert got == FOR_EVERYONE_IN_A | extra
    assert not got & ALWAYS_OUT


def test_another_tenant_sees_only_its_own(store):
    assert eligible(store, "b.sales") == {"B-PRICE@1"}


def test_content_hash_is_sha256_of_the_stored_body(store):
    for view in store.knowledge.eligible(principal(store, "a.sales"), as_of=AS_OF):
        assert view.content_hash == "sha256:" + hashlib.sha256(view.body.encode()).hexdigest()
        assert view.hash_ok


def test_an_unreadable_document_looks_like_a_missing_one(store):
    with pytest.raises(NotFound) as hidden:
        store.knowledge.get(principal(store, "a.sales"), "ENG-ONLY", 1)
    with pytest.raises(NotFound) as missing:
        store.knowledge.get(principal(store, "a.sales"), "NO-SUCH", 1)
    assert str(hidden.value).replace("ENG-ONLY", "X") == str(missing.value).replace("NO-SUCH", "X")
    with pytest.raises(NotFound):
        store.knowledge.get(principal(store, "b.sales"), "SOP-LEADTIME", 2)

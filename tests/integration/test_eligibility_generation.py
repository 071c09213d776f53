"""The eligible set retrieval keeps between queries is never older than SQL, on SQLite and
PostgreSQL: a status, validity or ACL changed by hand, with plain SQL on a connection of its
own (no ORM, no service, no cache eviction), is seen by the very next query.

Re-verification alone would keep a revoked chunk out of the evidence; these tests also check
that the next query's eligible set no longer holds it (nothing was even ranked and dropped
for it), and that a version made readable by hand is found, which re-verification cannot do.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from services.bootstrap import Services
from tests.support.publishing import AS_OF, LEADTIME_QUERY, who

CONTRACT_QUERY = "ACME 合約付款條件月結幾天"


@pytest.fixture
def by_hand(settings: object) -> Iterator[Engine]:
    """A connection pool of its own to the same database: changes the app never hears of."""
    engine = create_engine(settings.database_url)  # type: ignore[attr-defined]
    yield engine
    engine.dispose()


def _run(engine: Engine, statement: str, **params: object) -> None:
    with engine.begin() as connection:
        connection.execute(text(statement), params)


def _leadtime(s: Services) -> tuple[set[int], dict[str, int]]:
    result = s.retrieval.retrieve(who(s, "a.sales"), LEADTIME_QUERY, as_of=AS_OF)
    return {e.version for e in result.evidence if e.document_id == "SOP-LEADTIME"}, result.dropped


def _knowledge_generation(engine: Engine, tenant_id: str) -> int:
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT generation FROM knowledge_generations WHERE tenant_id = :t"),
            {"t": tenant_id},
        ).scalar()
    return int(found or 0)


def test_a_version_revoked_by_hand_leaves_the_next_querys_eligible_set(
    loaded: Services, by_hand: Engine
) -> None:
    s = loaded
    assert _leadtime(s)[0] == {2}
    assert _leadtime(s)[0] == {2}  # the second query ran on the remembered eligible set
    before = _knowledge_generation(by_hand, "A")

    _run(
        by_hand,
        "UPDATE document_versions SET status = 'revoked' "
        "WHERE tenant_id = 'A' AND document_id = 'SOP-LEADTIME' AND version = 2",
    )

    assert _knowledge_generation(by_hand, "A") > before
    served, dropped = _leadtime(s)
    assert served == set()
    # Not ranked and then dropped by re-verification: the eligible set no longer held it.
    assert "status_revoked" not in dropped and "not_eligible" not in dropped


def test_a_validity_ended_by_hand_is_not_served_next(loaded: Services, by_hand: Engine) -> None:
    s = loaded
    assert _leadtime(s)[0] == {2}
    _run(
        by_hand,
        "UPDATE document_versions SET valid_to = :day "
        "WHERE tenant_id = 'A' AND document_id = 'SOP-LEADTIME' AND version = 2",
        day=AS_OF,  # valid_to is exclusive: no longer valid on AS_OF
    )
    served, dropped = _leadtime(s)
    assert served == set()
    assert "not_valid_at_as_of" not in dropped and "not_eligible" not in dropped


def test_an_acl_row_deleted_by_hand_is_not_served_next(loaded: Services, by_hand: Engine) -> None:
    s = loaded
    assert _leadtime(s)[0] == {2}
    _run(
        by_hand,
        "DELETE FROM document_acl "
        "WHERE tenant_id = 'A' AND document_id = 'SOP-LEADTIME' AND version = 2",
    )
    served, dropped = _leadtime(s)
    assert served == set()
    assert sum(dropped.values()) == 0


def test_an_acl_row_granted_by_hand_is_found_by_the_next_query(
    loaded: Services, by_hand: Engine
) -> None:
    """a.sales2 has no customer grant: the ACME contract is not in its eligible set until a
    row says the whole tenant may read it. A remembered set would go on missing it."""
    s = loaded
    reader = who(s, "a.sales2")

    def contract_served() -> bool:
        result = s.retrieval.retrieve(reader, CONTRACT_QUERY, as_of=AS_OF)
        return any(e.document_id == "CONTRACT-ACME" for e in result.evidence)

    assert not contract_served()
    assert not contract_served()
    _run(
        by_hand,
        "INSERT INTO document_acl (tenant_id, document_id, version, tag) "
        "VALUES ('A', 'CONTRACT-ACME', 1, 'tenant')",
    )
    assert contract_served()


def test_another_tenants_change_keeps_this_tenants_generation(
    loaded: Services, by_hand: Engine
) -> None:
    before = _knowledge_generation(by_hand, "A")
    _run(
        by_hand,
        "UPDATE document_versions SET status = 'revoked' "
        "WHERE tenant_id = 'B' AND document_id = 'B-PRICE' AND version = 1",
    )
    assert _knowledge_generation(by_hand, "A") == before
    assert _knowledge_generation(by_hand, "B") > 0

"""Console sessions of local accounts: signed, expiring (idle and absolute), revocable on the
server by logout and by a password reset; the store keeps no usable token."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from services.core.errors import AccountLocked
from services.db.models import AuditEntry, ConsoleSession
from services.records.accounts import MAX_FAILED_ATTEMPTS
from services.records.sessions import SessionStore
from tests.conftest import principal


@pytest.fixture
def sessions(loaded, clock) -> SessionStore:
    return SessionStore(
        db=loaded.db,
        clock=clock,
        secret=lambda: b"0123456789abcdef0123456789abcdef",
        idle_timeout=timedelta(minutes=30),
        lifetime=timedelta(hours=8),
    )


def test_a_session_names_its_user_until_it_is_revoked_by_logout(loaded, sessions):
    issued = sessions.open(principal(loaded, "a.sales"))
    active = sessions.resolve(issued.token)
    assert active is not None and (active.user_id, active.tenant_id) == ("a.sales", "A")
    assert sessions.revoke(issued.token) is True
    assert sessions.resolve(issued.token) is None
    assert sessions.revoke(issued.token) is False  # already gone


def test_a_session_ends_after_the_idle_timeout_but_use_keeps_it_alive(loaded, sessions, clock):
    token = sessions.open(principal(loaded, "a.sales")).token
    for _ in range(5):  # used every 20 minutes: 100 minutes in all, never 30 idle
        clock.advance(minutes=20)
        assert sessions.resolve(token) is not None
    clock.advance(minutes=31)
    assert sessions.resolve(token) is None


def test_a_session_ends_at_its_absolute_lifetime_however_much_it_is_used(loaded, sessions, clock):
    issued = sessions.open(principal(loaded, "a.sales"))
    assert issued.max_age(clock.now()) == 8 * 3600
    for _ in range(16):
        clock.advance(minutes=29)
        assert sessions.resolve(issued.token) is not None
    clock.advance(minutes=20)  # 8 h 4 min after login, 20 min after its last use
    assert sessions.resolve(issued.token) is None


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),  # signature changed
        lambda token: ("A" if token[0] != "A" else "B") + token[1:],  # id changed
        lambda token: token.split(".")[0],  # no signature
        lambda token: token + "; other=1",
        lambda token: "",
    ],
)
def test_a_forged_or_altered_token_opens_nothing(loaded, sessions, tamper):
    token = sessions.open(principal(loaded, "a.sales")).token
    assert sessions.resolve(tamper(token)) is None


def test_another_secret_does_not_accept_the_token(loaded, sessions, clock):
    token = sessions.open(principal(loaded, "a.sales")).token
    other = SessionStore(
        db=loaded.db,
        clock=clock,
        secret=lambda: b"another secret of thirty-two byte",
        idle_timeout=timedelta(minutes=30),
        lifetime=timedelta(hours=8),
    )
    assert other.resolve(token) is None


def test_the_store_keeps_only_a_hash_of_the_session_id(loaded, sessions):
    token = sessions.open(principal(loaded, "a.sales")).token
    session_id, signature = token.split(".")
    with loaded.db.read() as session:
        [row] = session.scalars(select(ConsoleSession)).all()
    assert session_id not in row.id_hash and signature not in row.id_hash
    assert len(row.id_hash) == 64


def test_a_password_reset_revokes_every_session_of_that_user_only(loaded, sessions):
    first = sessions.open(principal(loaded, "a.sales")).token
    second = sessions.open(principal(loaded, "a.sales")).token
    other = sessions.open(principal(loaded, "a.owner")).token
    loaded.accounts.set_password("a.sales", "battery staple", actor="a.admin")
    assert sessions.resolve(first) is None and sessions.resolve(second) is None
    assert sessions.resolve(other) is not None
    with loaded.db.read() as session:
        revoked = session.scalars(
            select(AuditEntry.detail).where(
                AuditEntry.action == "session.revoked", AuditEntry.subject_id == "a.sales"
            )
        ).all()
    assert revoked == [{"reason": "password reset", "sessions": 2}]


def test_a_locked_account_says_until_when(loaded, clock):
    loaded.accounts.set_password("a.sales", "correct horse", actor="test")
    for _ in range(MAX_FAILED_ATTEMPTS - 1):
        with pytest.raises(Exception) as failure:
            loaded.accounts.authenticate("a.sales", "guess")
        assert not isinstance(failure.value, AccountLocked)
    with pytest.raises(AccountLocked) as locked:
        loaded.accounts.authenticate("a.sales", "guess")  # the attempt that locks it
    assert locked.value.until == clock.now() + timedelta(minutes=5)
    with pytest.raises(AccountLocked) as still:
        loaded.accounts.authenticate("a.sales", "correct horse")
    assert "locked until" in str(still.value)

"""Console sessions for local accounts: signed, expiring, revocable on the server.

A session token is `<id>.<signature>`: 32 random bytes and their HMAC-SHA256 under the session
secret, both base64url. The browser keeps the token in a same-origin cookie; the store keeps
only the SHA-256 of the id, with the user, an absolute expiry and the last time it was used. A
token is accepted while its signature holds, its row exists, it is not revoked, its absolute
lifetime has not run out and it was used within the idle timeout. Logging out revokes one
session; a password reset revokes all of a user's sessions in the same unit of work.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from services.core.clock import Clock, as_utc
from services.core.errors import InvalidInput
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import ConsoleSession
from services.records import audit

COOKIE_NAME = "memdesk_session"
# base64url of 32 bytes is 43 characters; the token is two of them joined by a dot.
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$")
# A session's last use is written at most this often (not on every rerun of a page).
TOUCH_EVERY = timedelta(minutes=1)


class IssuedSession(BaseModel):
    model_config = ConfigDict(frozen=True)

    token: str
    expires_at: datetime

    def max_age(self, now: datetime) -> int:
        """Seconds the cookie may live: the rest of the session's absolute lifetime."""
        return max(0, int((self.expires_at - now).total_seconds()))


class ActiveSession(BaseModel):
    model_config = ConfigDict(frozen=True)

    user_id: str
    tenant_id: str
    expires_at: datetime
    idle_until: datetime


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _id_hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("ascii")).hexdigest()


def load_or_create_secret(path: Path) -> bytes:
    """The embedded default's session secret: a random key kept beside the data (mode 0600).

    Several consoles over one database must share one secret (MEMDESK_SESSION_SECRET)."""
    if path.exists():
        return path.read_bytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(key)
    return key


def revoke_user_sessions(
    session: Session, *, clock: Clock, user_id: str, reason: str, actor: str, tenant_id: str
) -> int:
    """Revoke every live session of `user_id` inside the caller's unit of work."""
    now = clock.now()
    result = session.execute(
        update(ConsoleSession)
        .where(ConsoleSession.user_id == user_id, ConsoleSession.revoked_at.is_(None))
        .values(revoked_at=now, revoked_reason=reason)
    )
    count = int(getattr(result, "rowcount", 0) or 0)
    if count:
        audit.record(
            session,
            clock=clock,
            tenant_id=tenant_id,
            actor=actor,
            action="session.revoked",
            subject_type="user",
            subject_id=user_id,
            detail={"reason": reason, "sessions": count},
        )
    return count


class SessionStore:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        secret: Callable[[], bytes],
        idle_timeout: timedelta,
        lifetime: timedelta,
    ) -> None:
        self._db = db
        self._clock = clock
        self._load_secret = secret  # loaded on first use: a read-only store still starts
        self._secret: bytes | None = None
        self.idle_timeout = idle_timeout
        self.lifetime = lifetime

    def _sign(self, session_id: str) -> str:
        if self._secret is None:
            secret = self._load_secret()
            if len(secret) < 16:
                raise InvalidInput("the session secret needs at least 16 bytes")
            self._secret = secret
        return _b64(hmac.new(self._secret, session_id.encode("ascii"), hashlib.sha256).digest())

    def _verified_id(self, token: str) -> str | None:
        if not isinstance(token, str) or not _TOKEN.match(token):
            return None
        session_id, signature = token.split(".")
        if not hmac.compare_digest(signature, self._sign(session_id)):
            return None
        return session_id

    def open(self, user: Principal) -> IssuedSession:
        """A new session for a user who has just proved who they are (the login's subject,
        not an acting principal reading records: it looks nothing up by key)."""
        session_id = _b64(secrets.token_bytes(32))
        now = self._clock.now()
        expires_at = now + self.lifetime
        with self._db.write() as session:
            session.add(
                ConsoleSession(
                    id_hash=_id_hash(session_id),
                    user_id=user.user_id,
                    tenant_id=user.tenant_id,
                    created_at=now,
                    last_seen_at=now,
                    expires_at=expires_at,
                )
            )
            audit.record(
                session,
                clock=self._clock,
                tenant_id=user.tenant_id,
                actor=user.user_id,
                action="session.opened",
                subject_type="user",
                subject_id=user.user_id,
                detail={"expires_at": expires_at.isoformat()},
            )
        return IssuedSession(token=f"{session_id}.{self._sign(session_id)}", expires_at=expires_at)

    def resolve(self, token: str) -> ActiveSession | None:
        """The live session a token names, or None (forged, unknown, revoked, expired, idle)."""
        session_id = self._verified_id(token)
        if session_id is None:
            return None
        now = self._clock.now()
        with self._db.read() as session:
            row = session.get(ConsoleSession, _id_hash(session_id))
            if row is None or row.revoked_at is not None:
                return None
            expires_at, last_seen = as_utc(row.expires_at), as_utc(row.last_seen_at)
            user_id, tenant_id = row.user_id, row.tenant_id
        if now >= expires_at or now - last_seen >= self.idle_timeout:
            return None
        if now - last_seen >= TOUCH_EVERY:  # a write only now and then, not on every rerun
            with self._db.write() as session:
                session.execute(
                    update(ConsoleSession)
                    .where(ConsoleSession.id_hash == _id_hash(session_id))
                    .values(last_seen_at=now)
                )
            last_seen = now
        return ActiveSession(
            user_id=user_id,
            tenant_id=tenant_id,
            expires_at=expires_at,
            idle_until=min(expires_at, last_seen + self.idle_timeout),
        )

    def revoke(self, token: str, *, reason: str = "logout") -> bool:
        """Revoke the session a token names (logout). False if it was not live."""
        session_id = self._verified_id(token)
        if session_id is None:
            return False
        with self._db.write() as session:
            row = session.get(ConsoleSession, _id_hash(session_id))
            if row is None or row.revoked_at is not None:
                return False
            row.revoked_at = self._clock.now()
            row.revoked_reason = reason
            audit.record(
                session,
                clock=self._clock,
                tenant_id=row.tenant_id,
                actor=row.user_id,
                action="session.revoked",
                subject_type="user",
                subject_id=row.user_id,
                detail={"reason": reason, "sessions": 1},
            )
            return True

    def revoke_user(self, user_id: str, *, reason: str, actor: str) -> int:
        """Revoke every live session of a user (an administrator's action)."""
        with self._db.write() as session:
            row = session.scalar(select(ConsoleSession).where(ConsoleSession.user_id == user_id))
            if row is None:
                return 0
            return revoke_user_sessions(
                session,
                clock=self._clock,
                user_id=user_id,
                reason=reason,
                actor=actor,
                tenant_id=row.tenant_id,
            )

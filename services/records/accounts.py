"""Local accounts for the embedded default: argon2 password hashes, lockout, CLI management."""

from __future__ import annotations

from datetime import datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.orm import Session

from services.contracts.ids import require_grant, require_id
from services.core.clock import Clock, as_utc
from services.core.errors import AccountLocked, InvalidInput, NotAuthorized, NotFound
from services.core.policy import ROLES
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models import AuditEntry, LocalCredential, Tenant, User
from services.records import audit
from services.records.sessions import revoke_user_sessions

# Documented in README; `memdesk seed-demo` gives it to demo users that have no password yet.
DEMO_PASSWORD = "memdesk-demo"
MIN_PASSWORD_LENGTH = 8
MAX_FAILED_ATTEMPTS = 5
LOCKOUT = timedelta(minutes=5)
# One message for every failure, so a login form does not tell which user ids exist.
LOGIN_FAILED = "wrong user id or password"
# The actor of `memdesk seed-demo`'s import: a store whose only imports are its own is the demo.
SEED_ACTOR = "system:seed-demo"
# What .streamlit/secrets.toml.example ships; a console in production refuses to run with it.
PLACEHOLDER_COOKIE_SECRETS = frozenset({"replace-with-a-long-random-string"})
MIN_COOKIE_SECRET = 32


def cookie_secret_problem(secret: object) -> str | None:
    """Why an OIDC cookie secret may not sign production sessions, or None when it may."""
    if not isinstance(secret, str) or not secret.strip():
        return "no [auth] cookie_secret is set in .streamlit/secrets.toml"
    if secret in PLACEHOLDER_COOKIE_SECRETS:
        return "the [auth] cookie_secret is the example's placeholder; set a random one"
    if len(secret) < MIN_COOKIE_SECRET:
        return f"the [auth] cookie_secret needs at least {MIN_COOKIE_SECRET} random characters"
    return None


class AccountView(BaseModel):
    model_config = ConfigDict(frozen=True)

    user_id: str
    tenant_id: str
    display_name: str
    email: str | None
    roles: list[str]
    grants: list[str]
    active: bool
    has_password: bool
    last_login_at: datetime | None


class Accounts:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        hasher: PasswordHasher | None = None,
        production: bool = False,
    ) -> None:
        self._db = db
        self._clock = clock
        self._hasher = hasher or PasswordHasher()
        self._production = production

    def demo_store(self) -> bool:
        """Whether the published demo password may be used here: never in production
        (MEMDESK_ENV=production), and elsewhere only while the store holds nothing but the demo
        corpus (every import so far was `memdesk seed-demo`'s)."""
        with self._db.read() as session:
            return self._is_demo(session)

    def _is_demo(self, session: Session) -> bool:
        if self._production:
            return False
        importers = set(
            session.scalars(
                select(AuditEntry.actor).where(AuditEntry.action == "corpus.imported").distinct()
            )
        )
        return importers == {SEED_ACTOR}

    def _refuse_demo_password(self, session: Session, password: str) -> None:
        if password == DEMO_PASSWORD and not self._is_demo(session):
            raise InvalidInput(
                "the demo password is published and only works in the demo store "
                "(memdesk seed-demo, not in production); choose another password"
            )

    def authenticate(self, user_id: str, password: str) -> Principal:
        """The principal for a correct password; NotAuthorized with one message otherwise."""
        with self._db.write() as session:
            principal = self._check(session, user_id.strip(), password)
        # Raised after the unit of work commits, so a failed attempt is counted.
        if isinstance(principal, datetime):
            raise AccountLocked(principal)
        if principal is None:
            raise NotAuthorized(LOGIN_FAILED)
        return principal

    def _check(self, session: Session, user_id: str, password: str) -> Principal | datetime | None:
        """The principal, the end of a lockout (the password is not even tried), or None."""
        now = self._clock.now()
        user = session.get(User, user_id)
        credential = session.get(LocalCredential, user_id) if user else None
        if user is None or credential is None or not user.active:
            self._hasher.hash(password or "-")  # a missing user takes as long as a wrong password
            return None
        if password == DEMO_PASSWORD and not self._is_demo(session):
            # Whatever hash an account still has, the published password opens nothing here.
            self._audit(session, user, "account.demo_password_refused", {})
            return None
        if credential.locked_until is not None and as_utc(credential.locked_until) > now:
            return as_utc(credential.locked_until)
        try:
            self._hasher.verify(credential.password_hash, password)
        except (VerificationError, InvalidHashError):
            credential.failed_attempts += 1
            if credential.failed_attempts >= MAX_FAILED_ATTEMPTS:
                credential.locked_until = now + LOCKOUT
                credential.failed_attempts = 0
                self._audit(session, user, "account.locked", {"until": str(now + LOCKOUT)})
                return credential.locked_until
            return None
        credential.failed_attempts = 0
        credential.locked_until = None
        credential.last_login_at = now
        if self._hasher.check_needs_rehash(credential.password_hash):
            credential.password_hash = self._hasher.hash(password)
        self._audit(session, user, "account.login", {})
        return Principal(
            user_id=user.user_id,
            tenant_id=user.tenant_id,
            roles=tuple(user.roles),
            grants=tuple(user.grants),
            display_name=user.display_name,
        )

    def _audit(self, session: Session, user: User, action: str, detail: dict[str, str]) -> None:
        audit.record(
            session,
            clock=self._clock,
            tenant_id=user.tenant_id,
            actor=user.user_id,
            action=action,
            subject_type="user",
            subject_id=user.user_id,
            detail=detail,
        )

    def set_password(self, user_id: str, password: str, *, actor: str) -> AccountView:
        """Set or reset a password (CLI / admin). The old hash is replaced, never kept."""
        _check_password(password)
        with self._db.write() as session:
            user = session.get(User, user_id)
            if user is None:
                raise NotFound("user", user_id)
            self._refuse_demo_password(session, password)
            self._store(session, user, password, actor=actor)
            audit.record(
                session,
                clock=self._clock,
                tenant_id=user.tenant_id,
                actor=actor,
                action="account.password_set",
                subject_type="user",
                subject_id=user.user_id,
            )
            # Whoever held the old password is logged out everywhere, in the same transaction.
            revoke_user_sessions(
                session,
                clock=self._clock,
                user_id=user.user_id,
                reason="password reset",
                actor=actor,
                tenant_id=user.tenant_id,
            )
            return _account(user, session.get(LocalCredential, user.user_id))

    def add_user(
        self,
        *,
        tenant_id: str,
        user_id: str,
        password: str,
        roles: list[str],
        grants: list[str] | None = None,
        display_name: str = "",
        email: str | None = None,
        actor: str,
    ) -> AccountView:
        _check_password(password)
        unknown = sorted(set(roles) - set(ROLES))
        if unknown or not roles:
            raise InvalidInput(f"roles must be some of {list(ROLES)}, got {roles}")
        require_id(user_id, kind="user_id")
        for grant in grants or []:
            require_grant(grant)
        with self._db.write() as session:
            self._refuse_demo_password(session, password)
            if session.get(Tenant, tenant_id) is None:
                raise NotFound("tenant", tenant_id)
            if session.get(User, user_id) is not None:
                raise InvalidInput(f"user {user_id} already exists")
            user = User(
                user_id=user_id,
                tenant_id=tenant_id,
                display_name=display_name or user_id,
                email=email.lower() if email else None,
                roles=list(roles),
                grants=list(grants or []),
                active=True,
                created_at=self._clock.now(),
            )
            session.add(user)
            session.flush()
            self._store(session, user, password, actor=actor)
            audit.record(
                session,
                clock=self._clock,
                tenant_id=tenant_id,
                actor=actor,
                action="account.created",
                subject_type="user",
                subject_id=user_id,
                detail={"roles": list(roles), "grants": list(grants or [])},
            )
            return _account(user, session.get(LocalCredential, user_id))

    def all_accounts(self, *, tenant_id: str | None = None) -> list[AccountView]:
        query = select(User, LocalCredential).outerjoin(
            LocalCredential, LocalCredential.user_id == User.user_id
        )
        if tenant_id:
            query = query.where(User.tenant_id == tenant_id)
        with self._db.read() as session:
            rows = session.execute(query.order_by(User.tenant_id, User.user_id)).all()
            return [_account(user, credential) for user, credential in rows]

    def ensure_password(self, user_ids: list[str], password: str, *, actor: str) -> list[str]:
        """Give a password to those of `user_ids` that have none (re-seeding keeps resets)."""
        _check_password(password)
        given = []
        with self._db.write() as session:
            self._refuse_demo_password(session, password)
            for user_id in user_ids:
                user = session.get(User, user_id)
                if user is None or session.get(LocalCredential, user_id) is not None:
                    continue
                self._store(session, user, password, actor=actor)
                given.append(user_id)
        return given

    def _store(self, session: Session, user: User, password: str, *, actor: str) -> None:
        credential = session.get(LocalCredential, user.user_id)
        hashed = self._hasher.hash(password)
        now = self._clock.now()
        if credential is None:
            session.add(
                LocalCredential(
                    user_id=user.user_id,
                    password_hash=hashed,
                    failed_attempts=0,
                    changed_by=actor,
                    changed_at=now,
                )
            )
        else:
            credential.password_hash = hashed
            credential.failed_attempts = 0
            credential.locked_until = None
            credential.changed_by = actor
            credential.changed_at = now
        session.flush()


def _check_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise InvalidInput(f"a password needs at least {MIN_PASSWORD_LENGTH} characters")


def _account(user: User, credential: LocalCredential | None) -> AccountView:
    return AccountView(
        user_id=user.user_id,
        tenant_id=user.tenant_id,
        display_name=user.display_name,
        email=user.email,
        roles=list(user.roles),
        grants=list(user.grants),
        active=user.active,
        has_password=credential is not None,
        last_login_at=as_utc(credential.last_login_at)
        if credential and credential.last_login_at
        else None,
    )

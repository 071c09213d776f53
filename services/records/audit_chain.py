"""The audit log's hash chain: each tenant's entries linked in order, each hash keyed.

Every entry stores its tenant sequence number, the hash of its predecessor and its own hash over
its content and that predecessor. The hash is an HMAC-SHA256 under a key held outside the
database (`MEMDESK_AUDIT_KEY`, or `MEMDESK_HOME/audit.key`): someone who can write the database
but does not hold the key cannot append an entry that verifies, nor change one. Entries chained
before keys existed keep their plain SHA-256 (`sha256:`); they verify as before, an unkeyed
entry after a keyed one is a forgery, and `seal_legacy_chains` covers an old chain with a keyed
entry, after which its end must stay keyed (README "Security" has the threat model).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import weakref
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, Table, TextClause, event, insert, select, text, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from services.core.clock import Clock, as_utc
from services.core.errors import MemdeskError
from services.db.engine import Database, insert_for
from services.db.models import AuditEntry, AuditHead

GENESIS = "sha256:" + "0" * 64  # the predecessor of each tenant's first entry
KEYED = "hmac-sha256:"
UNKEYED = "sha256:"
_PENDING = "memdesk.audit_pending"


class AuditKeyMissing(MemdeskError):
    """A write was audited on a store whose process was given no audit key."""


class AuditKey:
    """The secret that keys entry hashes, and its public id (which key wrote an entry)."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("an audit key has at least 16 bytes")
        self._secret = secret
        self.key_id = hashlib.sha256(b"memdesk audit key id\0" + secret).hexdigest()[:8]

    def sign(self, canonical: bytes) -> str:
        mac = hmac.new(self._secret, canonical, hashlib.sha256).hexdigest()
        return f"{KEYED}{self.key_id}:{mac}"

    def __repr__(self) -> str:
        return f"AuditKey({self.key_id})"


# The key loader of each store's engine: `load(create=True)` for a write (a missing key file is
# created), `load(create=False)` for verification (a read never creates anything).
KeyLoader = Callable[[bool], AuditKey | None]
_LOADERS: weakref.WeakKeyDictionary[Engine, KeyLoader] = weakref.WeakKeyDictionary()


def use_key(db: Database, load: KeyLoader) -> None:
    """Key every entry written through this store's engine (the composition root calls this)."""
    _LOADERS[db.engine] = load


def _key(engine: Engine | None, *, create: bool) -> AuditKey | None:
    load = _LOADERS.get(engine) if engine is not None else None
    return load(create) if load is not None else None


def _canonical(
    *,
    tenant_id: str,
    seq: int,
    at: datetime,
    actor: str,
    action: str,
    subject_type: str,
    subject_id: str,
    before_ref: str | None,
    after_ref: str | None,
    detail: dict[str, Any],
    prev_hash: str,
) -> bytes:
    content = [
        tenant_id,
        seq,
        as_utc(at).astimezone(UTC).isoformat(timespec="microseconds"),
        actor,
        action,
        subject_type,
        subject_id,
        before_ref,
        after_ref,
        detail,
        prev_hash,
    ]
    canonical = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return canonical.encode("utf-8")


def entry_digest(*, key: AuditKey | None = None, **content: Any) -> str:
    """The hash of one entry's content and its predecessor's hash, keyed when a key is given:
    change either, and this entry and every later one no longer verify."""
    canonical = _canonical(**content)
    if key is not None:
        return key.sign(canonical)
    return UNKEYED + hashlib.sha256(canonical).hexdigest()


def append(session: Session, entry: dict[str, Any]) -> None:
    """Queue one entry; it is chained when the unit of work commits (`_seal`)."""
    session.info.setdefault(_PENDING, []).append(entry)


@event.listens_for(Session, "before_commit")
def _seal(session: Session) -> None:
    """Chain the unit of work's entries: the tenant's head row is locked only now, after every
    other change is flushed, and the heads of several tenants in tenant order. So two writers of
    one tenant never fork the chain, and waiting for a head never holds up anyone for long."""
    pending: list[dict[str, Any]] = session.info.pop(_PENDING, [])
    if not pending:
        return
    bind = session.get_bind()
    key = _key(bind if isinstance(bind, Engine) else bind.engine, create=True)
    if key is None:
        raise AuditKeyMissing("no audit key: this store's entries cannot be chained")
    session.flush()
    for tenant_id in sorted({entry["tenant_id"] for entry in pending}):
        head = _lock_head(session, tenant_id)
        seq, last = head.seq, head.entry_hash
        links = []
        for entry in (e for e in pending if e["tenant_id"] == tenant_id):
            seq += 1
            digest = entry_digest(key=key, **entry, seq=seq, prev_hash=last)
            links.append({**entry, "seq": seq, "prev_hash": last, "entry_hash": digest})
            last = digest
        _append_links(session, tenant_id, links, seq=seq, entry_hash=last)
        set_committed_value(head, "seq", seq)
        set_committed_value(head, "entry_hash", last)


def _append_links(
    session: Session, tenant_id: str, links: list[dict[str, Any]], *, seq: int, entry_hash: str
) -> None:
    """The tenant's new entries and its moved head. On PostgreSQL one statement of one shape
    whatever the number of entries (they travel as one JSON array), so it is prepared once
    and its SQL compiled once; SQLite has no data-modifying WITH: the entries, then the head."""
    if session.get_bind().dialect.name == "postgresql":
        rows = [{**link, "at": as_utc(link["at"]).isoformat()} for link in links]
        values = {"rows": json.dumps(rows), "tenant_id": tenant_id, "seq": seq, "hash": entry_hash}
        session.execute(_APPEND_ON_POSTGRESQL, values)
        return
    # The table, not the mapped class: a plain executemany, not the ORM's bulk insert (which
    # splits the rows by which of their values are None).
    session.execute(insert(_AUDIT_LOG), links)
    session.execute(
        update(AuditHead)
        .where(AuditHead.tenant_id == tenant_id)
        .values(seq=seq, entry_hash=entry_hash)
    )


def _append_on_postgresql() -> TextClause:
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    quote = dialect.identifier_preparer.quote
    columns = [c for c in AuditEntry.__table__.columns if not c.primary_key]
    names = ", ".join(quote(c.name) for c in columns)
    typed = ", ".join(f"{quote(c.name)} {c.type.compile(dialect=dialect)}" for c in columns)
    return text(
        f"WITH new_entries AS (INSERT INTO {quote(AuditEntry.__tablename__)} ({names}) "
        f"SELECT {names} FROM json_to_recordset(CAST(:rows AS json)) AS r({typed})) "
        f"UPDATE {quote(AuditHead.__tablename__)} SET seq = :seq, entry_hash = :hash "
        "WHERE tenant_id = :tenant_id"
    )


_APPEND_ON_POSTGRESQL = _append_on_postgresql()
_AUDIT_LOG: Table = AuditEntry.__table__  # type: ignore[assignment]  # a mapped class's Table


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(_PENDING, None)


def _lock_head(session: Session, tenant_id: str) -> AuditHead:
    head = session.get(AuditHead, tenant_id, with_for_update=True)
    if head is not None:
        return head
    # The tenant's first entry: create its head without racing another first writer.
    values = {"tenant_id": tenant_id, "seq": 0, "entry_hash": GENESIS}
    session.execute(insert_for(session, AuditHead).values(**values).on_conflict_do_nothing())
    head = session.get(AuditHead, tenant_id, with_for_update=True, populate_existing=True)
    assert head is not None
    return head


# ---- verification ---------------------------------------------------------------------------
class ChainBreak(BaseModel):
    """The first link of a tenant's chain that does not verify, and why."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    entry_id: int | None
    seq: int | None
    problem: str


class ChainHead(BaseModel):
    """Where a tenant's chain ends: worth recording outside the database (see README)."""

    model_config = ConfigDict(frozen=True)

    seq: int
    entry_hash: str


class ChainReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    tenants: int
    entries: int
    broken: list[ChainBreak]
    unkeyed: int = 0  # entries from before keyed hashes (covered by the keyed ones after them)
    key_id: str | None = None  # the key this check used
    heads: dict[str, ChainHead] = {}

    @property
    def ok(self) -> bool:
        return not self.broken


def verify_chain(
    db: Database, *, tenant_id: str | None = None, key: AuditKey | None = None
) -> ChainReport:
    """Walk each tenant's chain in order; report the first broken link of each (an entry
    changed, removed, inserted out of order, or appended by someone without the key), and a head
    that does not point at the last entry (entries removed from the end)."""
    key = key or _key(db.engine, create=False)
    with db.read(snapshot=True) as session:  # heads and entries as of one moment, streamed
        query = select(AuditHead)
        if tenant_id is not None:
            query = query.where(AuditHead.tenant_id == tenant_id)
        heads = {h.tenant_id: (h.seq, h.entry_hash) for h in session.scalars(query)}
        tenants = select(AuditEntry.tenant_id).distinct()
        if tenant_id is not None:
            tenants = tenants.where(AuditEntry.tenant_id == tenant_id)
        names = sorted(set(session.scalars(tenants)) | set(heads))
        broken: list[ChainBreak] = []
        entries = unkeyed = 0
        ends: dict[str, ChainHead] = {}
        for name in names:
            walk = _Walk(name, key)
            problem = walk.run(session, heads.get(name))
            entries, unkeyed = entries + walk.checked, unkeyed + walk.unkeyed
            ends[name] = ChainHead(seq=walk.seq, entry_hash=walk.previous)
            if problem is not None:
                broken.append(problem)
    return ChainReport(
        tenants=len(names),
        entries=entries,
        broken=broken,
        unkeyed=unkeyed,
        key_id=key.key_id if key else None,
        heads=ends,
    )


class _Walk:
    """One tenant's chain, entry by entry."""

    def __init__(self, tenant_id: str, key: AuditKey | None) -> None:
        self.tenant_id, self.key = tenant_id, key
        self.previous, self.seq, self.checked, self.unkeyed = GENESIS, 0, 0, 0
        self.keyed = False

    def run(self, session: Session, head: tuple[int, str] | None) -> ChainBreak | None:
        rows = session.scalars(
            select(AuditEntry)
            .where(AuditEntry.tenant_id == self.tenant_id)
            .order_by(AuditEntry.seq, AuditEntry.id)
            .execution_options(yield_per=2000)
        )
        for row in rows:
            self.checked += 1
            problem = self._link(row) or self._hash(row)
            if problem is not None:
                return ChainBreak(
                    tenant_id=self.tenant_id, entry_id=row.id, seq=row.seq, problem=problem
                )
            assert row.entry_hash is not None and row.seq is not None
            self.previous, self.seq = row.entry_hash, row.seq
        return self._end(head)

    def _link(self, row: AuditEntry) -> str | None:
        if row.seq is None or row.entry_hash is None or row.prev_hash is None:
            return "entry is not chained"
        if row.seq != self.seq + 1:
            return (
                f"sequence {row.seq} where {self.seq + 1} was due (an entry is missing or forged)"
            )
        if row.prev_hash != self.previous:
            return "does not link to the entry before it"
        return None

    def _hash(self, row: AuditEntry) -> str | None:
        stored = str(row.entry_hash)
        content: dict[str, Any] = {
            "tenant_id": row.tenant_id,
            "seq": row.seq,
            "at": row.at,
            "actor": row.actor,
            "action": row.action,
            "subject_type": row.subject_type,
            "subject_id": row.subject_id,
            "before_ref": row.before_ref,
            "after_ref": row.after_ref,
            "detail": row.detail,
            "prev_hash": row.prev_hash,
        }
        if stored.startswith(KEYED):
            self.keyed = True
            key_id = stored[len(KEYED) :].split(":", 1)[0]
            if self.key is None:
                return f"keyed with audit key {key_id}, and this process holds no audit key"
            if key_id != self.key.key_id:
                return (
                    f"keyed with audit key {key_id}, not this process's key {self.key.key_id} "
                    "(every process sharing the database must share MEMDESK_AUDIT_KEY)"
                )
            if not hmac.compare_digest(entry_digest(key=self.key, **content), stored):
                return "content does not match its keyed hash (changed, or forged without the key)"
            return None
        if self.keyed:
            return "an unkeyed entry after keyed ones (appended by someone without the audit key)"
        self.unkeyed += 1
        if entry_digest(**content) != stored:
            return "content does not match its hash (the entry was changed)"
        return None

    def _end(self, head: tuple[int, str] | None) -> ChainBreak | None:
        if head is not None and (head[0] != self.seq or head[1] != self.previous):
            return ChainBreak(
                tenant_id=self.tenant_id,
                entry_id=None,
                seq=head[0],
                problem=f"the chain ends at {self.seq} but its head says {head[0]} "
                "(entries were removed)",
            )
        if self.key is not None and self.checked and not self.keyed:
            return ChainBreak(
                tenant_id=self.tenant_id,
                entry_id=None,
                seq=self.seq,
                problem="no entry is keyed: a chain from before keyed hashes that was never "
                "sealed (`memdesk audit seal`), or one appended to without the audit key",
            )
        return None


# ---- the upgrade path -----------------------------------------------------------------------
class SealReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    sealed: dict[str, int]  # tenant → unkeyed entries the new keyed entry covers
    refused: list[ChainBreak]  # chains that do not verify: sealing them would hide the break


def seal_legacy_chains(db: Database, *, clock: Clock, actor: str) -> SealReport:
    """Cover each chain that has no keyed entry yet with one keyed entry (`audit.sealed`), so
    the entries before it can no longer be rewritten or extended without the key. A chain that
    does not verify is left as it is and reported: sealing would make a forgery look sound."""
    key = _key(db.engine, create=True)
    if key is None:
        raise AuditKeyMissing("no audit key: nothing to seal with")
    unkeyed = verify_chain(db, key=key)
    legacy = {b.tenant_id for b in unkeyed.broken if b.problem.startswith("no entry is keyed")}
    refused = [b for b in unkeyed.broken if b.tenant_id not in legacy]
    sealed: dict[str, int] = {}
    for tenant_id in sorted(legacy):
        head = unkeyed.heads[tenant_id]
        with db.write() as session:
            append(
                session,
                {
                    "at": clock.now(),
                    "tenant_id": tenant_id,
                    "actor": actor,
                    "action": "audit.sealed",
                    "subject_type": "audit_log",
                    "subject_id": tenant_id,
                    "before_ref": None,
                    "after_ref": None,
                    "detail": {"covers_seq": head.seq, "covers_hash": head.entry_hash},
                },
            )
        sealed[tenant_id] = head.seq
    return SealReport(sealed=sealed, refused=refused)

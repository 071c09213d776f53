"""Engines and the unit of work. SQLite runs in WAL with a busy timeout and IMMEDIATE writes."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.orm import Session, sessionmaker

from services.core.errors import DatabaseUnavailable, MemdeskError, ReadOnlyStore, StorageRefused
from services.db.readonly import read_only_uri, unwritable

READ_ONLY = "memdesk_read_only"
_AFTER_COMMIT = "memdesk_after_commit"
# A pooled connection idle for longer than this is pinged before it is handed out (a restart or
# an idle timeout on the server may have closed it); one back from use a moment ago is not: a
# ping per checkout is one more round trip on every transaction of a run. A connection that dies
# while in use fails its transaction with DatabaseUnavailable, SQLAlchemy invalidates the pool's
# older connections, and the run is retried on fresh ones.
IDLE_PING_SECONDS = 10.0
# psycopg prepares a statement on the server after it has run this many times on a connection,
# so the queue's and the task store's short statements are parsed and planned once.
PREPARE_THRESHOLD = 1
PREPARED_MAX = 512
PINGS = "memdesk_pings"
_CHECKED_IN = "memdesk_checked_in"


def after_commit(session: Session, fn: Callable[[], None]) -> None:
    """Call `fn` once this write transaction has committed (never if it rolls back)."""
    session.info.setdefault(_AFTER_COMMIT, []).append(fn)


def make_engine(
    url: str,
    *,
    busy_timeout_ms: int = 15_000,
    echo: bool = False,
    idle_ping_seconds: float = IDLE_PING_SECONDS,
) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        connect_args: dict[str, Any] = {
            "timeout": busy_timeout_ms / 1000,
            "check_same_thread": False,
        }
        refused = None
        if parsed.database and parsed.database != ":memory:" and "uri" not in parsed.query:
            database = Path(parsed.database)
            database.parent.mkdir(parents=True, exist_ok=True)
            refused = unwritable(database)
            if refused is not None:  # reads work; Database.write refuses with the reason
                url = f"sqlite:///{read_only_uri(database)}&uri=true"
        engine = create_engine(url, echo=echo, connect_args=connect_args)
        _tune_sqlite(engine, busy_timeout_ms, wal=refused is None)
        _READ_ONLY_STORES[engine] = refused
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() != "psycopg":
        parsed = parsed.set(drivername="postgresql+psycopg")
    engine = create_engine(
        parsed,
        echo=echo,
        pool_size=10,
        max_overflow=20,
        connect_args={"prepare_threshold": PREPARE_THRESHOLD},
    )
    _ping_when_idle(engine, idle_ping_seconds)
    return engine


def _ping_when_idle(engine: Engine, idle_seconds: float) -> None:
    """SQLAlchemy's pessimistic disconnect handling, limited to connections that sat idle."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        dbapi_connection.prepared_max = PREPARED_MAX
        record.info[_CHECKED_IN] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _on_checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info[_CHECKED_IN] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        idle = time.monotonic() - record.info.get(_CHECKED_IN, 0.0)
        if idle < idle_seconds:
            return
        record.info[PINGS] = record.info.get(PINGS, 0) + 1
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
            dbapi_connection.rollback()
        except Exception as exc:  # any failure: the pool replaces the connection and retries
            raise DisconnectionError(str(exc)) from exc


def _tune_sqlite(engine: Engine, busy_timeout_ms: int, *, wal: bool = True) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event decide how a transaction starts (pysqlite would
        # otherwise start deferred transactions lazily on the first write).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        if wal:  # a read-only store keeps the journal mode it has (setting it is a write)
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # Writers take the lock up front so two writers never deadlock upgrading read locks;
        # readers (engine.execution_options(memdesk_read_only=True)) stay deferred.
        if connection.get_execution_options().get(READ_ONLY):
            connection.exec_driver_sql("BEGIN")
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


# Engines opened on a SQLite file this process cannot write, with the reason.
_READ_ONLY_STORES: weakref.WeakKeyDictionary[Engine, str | None] = weakref.WeakKeyDictionary()


# Rows ANALYZE samples per index on SQLite: enough for the planner to see that most versions of
# a tenant are approved (so re-verification reads documents by key, not the eligibility index),
# cheap enough to run after every index sync.
ANALYSIS_LIMIT = 1000
_PLANNED_TABLES = ("document_versions", "document_acl", "index_chunks")


def refresh_statistics(engine: Engine) -> None:
    """Give SQLite's query planner the tables' statistics (PostgreSQL keeps its own)."""
    if engine.dialect.name != "sqlite" or _READ_ONLY_STORES.get(engine) is not None:
        return  # PostgreSQL keeps its own; a read-only store keeps the statistics it has
    with engine.begin() as connection:
        connection.exec_driver_sql(f"PRAGMA analysis_limit={ANALYSIS_LIMIT}")
        for table in _PLANNED_TABLES:
            connection.exec_driver_sql(f"ANALYZE {table}")


def insert_for(session: Session, entity: Any) -> Any:
    """An INSERT of `entity` in the session's dialect (PostgreSQL's or SQLite's), so that
    `on_conflict_do_nothing` and `on_conflict_do_update` are there on both backends."""
    dialect = session.get_bind().dialect.name
    return (pg_insert if dialect == "postgresql" else sqlite_insert)(entity)


class Database:
    """Owns the engine and hands out units of work (one transaction each)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # Why this store cannot be written (a read-only SQLite file or directory), or None.
        self.read_only: str | None = _READ_ONLY_STORES.get(engine)
        self._writer = sessionmaker(bind=engine, expire_on_commit=False)
        reading: dict[str, Any] = {READ_ONLY: True}
        snapshot = dict(reading)
        if engine.dialect.name == "postgresql":
            # Under READ COMMITTED every statement reads its own snapshot, in a transaction or
            # not, so a read's BEGIN and COMMIT are two round trips that change nothing: reads
            # run in autocommit. A read that needs one snapshot for all its statements (or a
            # server-side cursor) asks for it: REPEATABLE READ.
            reading["isolation_level"] = "AUTOCOMMIT"
            snapshot["isolation_level"] = "REPEATABLE READ"
        self._reader = sessionmaker(
            bind=engine.execution_options(**reading), expire_on_commit=False
        )
        self._snapshot_reader = sessionmaker(
            bind=engine.execution_options(**snapshot), expire_on_commit=False
        )

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction: commits on success, rolls back on any exception."""
        if self.read_only is not None:
            raise read_only_store(self.read_only)
        try:
            with self._writer() as session, session.begin():
                yield session
        except DBAPIError as exc:
            named = storage_error(exc)
            if named is None:
                raise
            raise named from exc
        for fn in session.info.pop(_AFTER_COMMIT, ()):
            fn()

    @contextmanager
    def read(self, *, snapshot: bool = False) -> Iterator[Session]:
        """A read. `snapshot`: all its statements see the database as of its first one (SQLite
        readers always do); otherwise, on PostgreSQL, each statement reads what is committed
        when it starts, as READ COMMITTED transactions do."""
        reader = self._snapshot_reader if snapshot else self._reader
        try:
            with reader() as session, session.begin():
                yield session
        except DBAPIError as exc:
            named = storage_error(exc)
            if named is None:
                raise
            raise named from exc

    def dispose(self) -> None:
        self.engine.dispose()


# Driver messages for a store that cannot take writes (SQLite codes READONLY, FULL, IOERR;
# PostgreSQL 53100 disk_full, 25006 read_only_sql_transaction).
_READ_ONLY = ("readonly database", "read-only", "read only")
_FULL = ("database or disk is full", "no space left on device", "disk full")


def read_only_store(reason: str) -> ReadOnlyStore:
    return ReadOnlyStore(f"the database is read-only: nothing was written ({reason}; reads work)")


def storage_error(exc: DBAPIError) -> MemdeskError | None:
    """Name the driver failures callers can act on; anything else stays as it is (a bug).

    A lost connection is transient (the transaction was rolled back; retry on a new one); a
    read-only or full store is not, and the message says which it is rather than quoting SQL.
    """
    message = str(exc.orig).lower()
    if any(marker in message for marker in _READ_ONLY):
        return ReadOnlyStore(
            "the database is read-only: nothing was written (check the file's permissions "
            f"and the filesystem): {str(exc.orig).strip()}"
        )
    if any(marker in message for marker in _FULL):
        return StorageRefused(
            "the database is full (no space left): nothing was written; free space and retry: "
            f"{str(exc.orig).strip()}"
        )
    if exc.connection_invalidated:
        return DatabaseUnavailable(
            f"the database connection was lost; the transaction was rolled back: "
            f"{str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else exc}"
        )
    return None

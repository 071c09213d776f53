"""Shared fixtures: a migrated store on a SQLite file or on PostgreSQL, fakes for time and ids."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.core.principals import Principal
from services.db.engine import make_engine
from services.db.migrate import upgrade
from services.settings import Settings
from tests.support import pg
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.ids import SequentialIds

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A skipped (or xfailed) test is a failed one: every test here must run and can fail."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipping is not allowed in this suite: {reason}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No collected tests is a failure however pytest is invoked (exit code 5 never passes)."""
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def pg_template() -> Iterator[str]:
    """One migrated PostgreSQL database per test session; each test copies it (fast)."""
    pg.ensure_server()
    name = pg.create_database()
    engine = make_engine(pg.url_for(name))
    upgrade(engine)
    engine.dispose()
    yield name
    pg.drop_database(name)


class PgDatabases:
    """Fresh copies of the migrated template, one per test. CREATE DATABASE and DROP DATABASE
    mostly wait on the server's fsyncs, so the next copy is made and used ones are dropped on a
    background thread while tests run; every test still gets a database nobody used before."""

    def __init__(self, template: str) -> None:
        self._template = template
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pg-databases")
        self._next: Future[str] | None = None
        self._drops: list[Future[None]] = []

    def _create(self) -> Future[str]:
        return self._pool.submit(pg.create_database, template=self._template)

    def take(self) -> str:
        name = (self._next or self._create()).result()
        self._next = self._create()
        return name

    def release(self, name: str) -> None:
        self._drops.append(self._pool.submit(pg.drop_database, name))

    def close(self) -> None:
        if self._next is not None:
            self.release(self._next.result())
        self._pool.shutdown(wait=True)
        for dropped in self._drops:
            dropped.result()  # a failed drop fails the session instead of leaking databases


@pytest.fixture(scope="session")
def pg_databases(pg_template: str) -> Iterator[PgDatabases]:
    databases = PgDatabases(pg_template)
    yield databases
    databases.close()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One SQLite file migrated by Alembic per test session (per xdist worker); tests get copies.

    Copying a closed, checkpointed file is much cheaper than running every migration per test.
    """
    path = tmp_path_factory.mktemp("sqlite-template") / "memdesk.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    # WAL mode: closing the last connection checkpoints; a leftover log would hold data.
    assert not path.with_name(path.name + "-wal").exists()
    return path


def sqlite_copy(template: Path, directory: Path) -> str:
    target = directory / "memdesk.db"
    shutil.copyfile(template, target)
    return f"sqlite:///{target}"


@pytest.fixture(scope="session")
def seeded_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`memdesk seed-demo` once per process: the demo tenants, users with the demo password, an
    index with the real embedder. Defined here, not next to the console tests, so that every
    module using it (tests/app, tests/security) shares the one store instead of seeding again."""
    home = tmp_path_factory.mktemp("seeded") / "home"
    services = bootstrap.build(Settings(home=home, analyzer="offline"))
    try:
        bootstrap.seed_demo(services)
    finally:
        services.close()
    return home


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, migrated database on each backend."""
    if request.param == "sqlite":
        yield sqlite_copy(request.getfixturevalue("sqlite_template"), tmp_path)
        return
    databases: PgDatabases = request.getfixturevalue("pg_databases")
    name = databases.take()
    yield pg.url_for(name)
    databases.release(name)


@pytest.fixture
def sqlite_url(tmp_path: Path, sqlite_template: Path) -> str:
    return sqlite_copy(sqlite_template, tmp_path)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def settings(tmp_path: Path, database_url: str) -> Settings:
    return Settings(home=tmp_path / "home", database_url=database_url, embedding_backend="hashing")


@pytest.fixture
def services(settings: Settings, clock: FakeClock) -> Iterator[Services]:
    built = bootstrap.build(settings, clock=clock, ids=SequentialIds())
    yield built
    built.close()


@pytest.fixture
def loaded(services: Services, tmp_path: Path) -> Services:
    """Services with the small corpus imported."""
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus_dict()))
    return services


def principal(services: Services, user_id: str) -> Principal:
    return services.directory.principal(user_id)

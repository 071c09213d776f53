"""One seeded demo store per module (SQLite file and PostgreSQL), with records of tenant A that
the attacks in this suite aim at: a resumed Q42 with its run and approvals, a task with an
active run, and a task no other case touches."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.core.policy import ROLES
from services.core.principals import Principal
from services.publishing.candidates import Proposal
from services.settings import Settings
from tests.support import pg
from tests.support.ids import SequentialIds

AS_OF = date(2026, 11, 29)
SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"


@dataclass(frozen=True)
class Targets:
    """Record keys a call aims at: tenant A's real ones, or keys that exist nowhere."""

    task: str
    active_task: str
    run: str
    approval: int
    decision_version: int
    document: str
    version: int
    evidence: str
    user: str
    memory: str
    candidate: str
    decided_candidate: str
    revoked_document: str
    hold: int

    def values(self) -> list[str]:
        """Every key, and the document version a citation names (messages quote either)."""
        cited = self.evidence.rpartition(":")[0]
        refs = [f"{self.document}@{self.version}", cited, cited.rpartition("@")[0]]
        return [*(str(v) for v in vars(self).values()), *refs]


MISSING = Targets(
    task="Q-NOWHERE",
    active_task="T-NOWHERE",
    run="run-nowhere",
    approval=987_654,
    decision_version=4,
    document="DOC-NOWHERE",
    version=2,
    evidence="DOC-NOWHERE@2:0-40",
    user="x.nobody",
    memory="mem-nowhere",
    candidate="cand-nowhere",
    decided_candidate="cand-nowhere-decided",
    revoked_document="DOC-NOWHERE-REVOKED",
    hold=987_653,
)
# The scope of tenant A's memory: a customer's task (needs the customer grant to read).
MEMORY_SCOPE = {"customer_id": "C-ACME", "task_id": "Q42"}


@dataclass
class World:
    services: Services
    real: Targets
    # Tenant A's identifiers that must never show up in what another tenant gets back.
    a_markers: list[str]

    def principal(self, user_id: str) -> Principal:
        return self.services.directory.principal(user_id)


def root_of(tenant_id: str, *, grants: tuple[str, ...] = ()) -> Principal:
    """An attacker inside `tenant_id` holding every role (the strongest same-tenant identity)."""
    return Principal(
        user_id=f"{tenant_id.lower()}.root", tenant_id=tenant_id, roles=ROLES, grants=grants
    )


def build_world(settings: Settings) -> World:
    services = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    bootstrap.initialise(services)  # seed_demo without the demo passwords (argon2 is slow)
    services.importer.import_file(services.settings.demo_corpus, actor="system:seed-demo")
    services.index.sync()
    sales = services.directory.principal("a.sales")
    resumed = services.resumer.resume(sales, "Q42", supplement=SUPPLEMENT, as_of=AS_OF)
    assert resumed.run.status == "succeeded", resumed.run.error
    draft = next(a for a in services.approvals.search(sales, task_id="Q42") if a.kind == "draft")
    services.tasks.create(sales, task_id="T-ACTIVE", pending=["special_inspection"])
    services.runs.enqueue(sales, "T-ACTIVE", supplement="請確認交期", as_of=AS_OF)
    services.tasks.create(sales, task_id="T-CREATE")
    services.tasks.create(services.directory.principal("b.sales"), task_id="B-T1")
    memory = services.memories.create(
        sales, scope=MEMORY_SCOPE, topic="customer_preferences", fact="艾克美偏好以 PE 袋單件包裝"
    )
    owner = services.directory.principal("a.owner")
    admin = services.directory.principal("a.admin")
    candidate = services.candidates.propose(
        sales, Proposal(document_id="SOP-LEADTIME", body="標準交期 15 日；特殊檢驗加 3 日（提案）")
    )
    decided = services.candidates.propose(
        sales, Proposal(document_id="SOP-PACKING", body="包裝改用 VCI 防鏽袋（提案）")
    )
    services.candidates.reject(owner, decided.candidate_id, reason="probe: not now")
    hold = services.retention.set_hold(
        admin, record_type="task", record_id="T-CREATE", reason="probe"
    )
    # Held, so that a delete aimed at it proves it was found without deleting it.
    services.memories.set_legal_hold(
        services.directory.principal("a.admin"), memory.memory_id, hold=True, reason="probe"
    )
    real = Targets(
        task="Q42",
        active_task="T-ACTIVE",
        run=resumed.run.run_id,
        approval=draft.id,
        decision_version=draft.decision_version,
        document="SOP-LEADTIME",
        version=2,
        evidence=resumed.evidence[0].evidence_id,
        user="a.sales",
        memory=memory.memory_id,
        candidate=candidate.candidate_id,
        decided_candidate=decided.candidate_id,
        revoked_document="NOTE-RUSH-FEE",
        hold=hold.id,
    )
    owner = services.directory.principal("a.admin")
    a_documents = {
        d.document_id
        for d in services.knowledge.search(
            root_of("A", grants=("customer:C-ACME",)), limit=1000
        ).items
    }
    markers = sorted({*a_documents, "Q42", "T-ACTIVE", resumed.run.run_id, "a.sales", "a.owner"})
    assert services.audit.count(owner) > 0
    return World(services=services, real=real, a_markers=markers)


def _world(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[World]:
    home: Path = tmp_path_factory.mktemp(f"security-{backend}")
    if backend == "sqlite":
        url = f"sqlite:///{home / 'memdesk.db'}"
        name = None
    else:
        pg.ensure_server()
        name = pg.create_database()
        url = pg.url_for(name)
    built = build_world(Settings(home=home, database_url=url, embedding_backend="hashing"))
    yield built
    built.services.close()
    if name is not None:
        pg.drop_database(name)


# One world per backend for the whole session: the suites only read it, or write records no
# other case looks at (tenant B's own task and memory, harmless controls in tenant A).
@pytest.fixture(scope="session")
def sqlite_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from _world(tmp_path_factory, "sqlite")


@pytest.fixture(scope="session")
def postgresql_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from _world(tmp_path_factory, "postgresql")


@pytest.fixture(
    scope="session", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def world(request: pytest.FixtureRequest) -> World:
    """The isolation tables run on both backends (tenant filters are SQL)."""
    world: World = request.getfixturevalue(f"{request.param}_world")
    return world

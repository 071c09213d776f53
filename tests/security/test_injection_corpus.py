"""The injection corpus (injection_cases.json) through the whole pipeline: import → retrieve →
resume with analysis → review → approval, with a model that obeys whatever instruction reaches
it (tests/support/agents.py ObeyingModel). Builds on test_prompt_injection.py's two cases.

Each case lives in a tenant of its own (one import, one index for the module), so runs never
see each other. For every case: nothing of another tenant is cited or stored, confirmed fields
stay as they were, nothing is approved, unapproved or unreadable text never becomes evidence,
no document changes, and what would be rendered is inert Markdown. An injection that reached
the model stops the run for a person with the reason named; one that may not reach it never
does."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from app_pages._ui import escape
from services import bootstrap
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.core.clock import FakeClock
from services.core.principals import Principal
from services.memory.types import ConversationEvent
from services.settings import Settings
from tests.security.conftest import AS_OF, SUPPLEMENT
from tests.support.agents import ObeyingModel, rebuild_agents
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.ids import SequentialIds
from tests.support.scenario import scenario_corpus

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "injection_cases.json").read_text(encoding="utf-8")
)["cases"]
CONFIRMED = {"material": "SUS304", "quantity": 1200}
B_SECRET = "B 客戶專屬資料"  # tenant B's price sheet; must never appear in another tenant's rows
ALLOWED_ACTIONS = (
    "task.",
    "run.",
    "retrieval.",
    "index.",
    "approval.requested",
    "corpus.imported",
    "memory.",
)
TOPIC_PREFIX = {
    "en": "Re Q42 special inspection 特殊檢驗 and lead time 交期: ",
    "zh-Hans": "关于 Q42 特殊检验与交期 特殊檢驗 交期：",
}
DEFAULT_PREFIX = "關於 Q42 特殊檢驗與交期："


def tenant_of(index: int) -> str:
    return f"I{index:02d}"


def _carrier_docs(case: dict[str, Any], tenant: str) -> list[dict[str, Any]]:
    body = TOPIC_PREFIX.get(case["language"], DEFAULT_PREFIX) + case["text"]
    base = {
        "tenant_id": tenant,
        "doc_type": "mail",
        "knowledge_class": "history",
        "status": "approved",
        "valid_from": "2026-11-20",
        "valid_to": None,
        "acl": ["tenant"],
        "language": case["language"] if case["language"] != "mixed" else "zh-Hant",
        "title": "RE: Q42 特殊檢驗",
        "body": body,
        "customer_id": None,
        "approved_by": f"{tenant.lower()}.owner",
    }
    carrier = case["carrier"]
    if carrier == "mail":
        return [{**base, "document_id": "MAIL-INJ", "version": 1}]
    if carrier == "document":
        return [
            {
                **base,
                "document_id": "SOP-INJ",
                "version": 1,
                "doc_type": "sop",
                "knowledge_class": "fact",
                "valid_from": "2026-01-01",
            }
        ]
    if carrier == "draft":
        return [
            {
                **base,
                "document_id": "DOC-INJ",
                "version": 1,
                "status": "draft",
                "knowledge_class": "inference",
                "approved_by": None,
            }
        ]
    if carrier == "revoked":
        return [{**base, "document_id": "DOC-INJ", "version": 1, "status": "revoked"}]
    if carrier == "restricted":
        return [
            {
                **base,
                "document_id": "DOC-INJ",
                "version": 1,
                "acl": ["customer:C-OTHER"],
                "customer_id": "C-OTHER",
            }
        ]
    if carrier == "superseded":
        return [
            {
                **base,
                "document_id": "SOP-INJ",
                "version": 1,
                "status": "superseded",
                "doc_type": "sop",
                "knowledge_class": "fact",
                "valid_from": "2025-01-01",
                "valid_to": "2026-01-01",
            },
            {
                **base,
                "document_id": "SOP-INJ",
                "version": 2,
                "doc_type": "sop",
                "knowledge_class": "fact",
                "valid_from": "2026-01-01",
                "body": DEFAULT_PREFIX + "特殊檢驗之交期由工程部評估後回覆。",
            },
        ]
    if carrier == "other_tenant":
        return [
            {
                **base,
                "tenant_id": "B",
                "document_id": f"B-INJ-{tenant}",
                "version": 1,
                "approved_by": None,
            }
        ]
    return []  # supplement, memory: no document


def injection_corpus() -> dict[str, Any]:
    template = scenario_corpus()
    a_docs = [d for d in template["documents"] if d["tenant_id"] == "A"]
    q42 = template["tasks"][0]
    corpus = corpus_dict(tenants=[{"tenant_id": "B", "name": "Tenant B"}])
    corpus["users"] = [u for u in corpus["users"] if u["tenant_id"] == "B"]
    corpus["documents"] = [d for d in corpus["documents"] if d["tenant_id"] == "B"]
    corpus["tasks"] = [{**q42, "tenant_id": "B", "task_id": "B-Q7"}]
    for index, case in [*enumerate(CASES, start=1), (0, None)]:
        tenant = tenant_of(index) if case else "CTRL"
        corpus["tenants"].append({"tenant_id": tenant, "name": f"Injection {tenant}"})
        for role, grants in (
            ("sales", ["customer:C-ACME"]),
            ("owner", ["customer:C-ACME"]),
            ("admin", []),
        ):
            corpus["users"].append(
                {
                    "user_id": f"{tenant.lower()}.{role}",
                    "tenant_id": tenant,
                    "display_name": f"{tenant} {role}",
                    "roles": ["knowledge_owner" if role == "owner" else role],
                    "grants": grants,
                }
            )
        corpus["documents"] += [{**d, "tenant_id": tenant} for d in a_docs]
        corpus["documents"] += _carrier_docs(case, tenant) if case else []
        corpus["tasks"].append({**q42, "tenant_id": tenant})
    return corpus


@dataclass
class InjectionWorld:
    services: Services
    model: ObeyingModel
    agents: Any
    documents_before: dict[str, list[tuple[str, int, str]]]


def _documents(services: Services, tenant: str) -> list[tuple[str, int, str]]:
    owner = services.directory.principal(f"{tenant.lower()}.owner")
    return [
        (d.document_id, d.version, d.status)
        for d in services.knowledge.search(owner, limit=1000).items
    ]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("injection")
    settings = Settings(
        home=home, database_url=f"sqlite:///{home / 'm.db'}", embedding_backend="hashing"
    )
    services = bootstrap.build(settings, clock=FakeClock(), ids=SequentialIds())
    bootstrap.initialise(services)
    services.importer.import_file(write_corpus(home / "corpus.json", injection_corpus()))
    for index, case in enumerate(CASES, start=1):
        if case["carrier"] == "memory":  # from a conversation, and written by a person
            sales = services.directory.principal(f"{tenant_of(index).lower()}.sales")
            services.memories.generate(
                sales,
                scope={"task_id": "Q42"},
                events=[ConversationEvent(kind="mail", text=case["text"])],
            )
            services.memories.create(
                sales, scope={"task_id": "Q42"}, topic="explicit_instructions", fact=case["text"]
            )
    model = ObeyingModel(CASES)
    tenants = [tenant_of(i) for i in range(1, len(CASES) + 1)] + ["CTRL"]
    before = {t: _documents(services, t) for t in tenants}
    yield InjectionWorld(
        services=services,
        model=model,
        agents=rebuild_agents(services, analyzer=model),
        documents_before=before,
    )
    services.close()


def test_the_corpus_covers_languages_carriers_and_tricks():
    assert len(CASES) >= 30
    assert len({c["case_id"] for c in CASES}) == len(CASES)
    assert {c["language"] for c in CASES} >= {"zh-Hant", "zh-Hans", "en", "mixed"}
    assert {c["carrier"] for c in CASES} >= {"mail", "document", "memory", "supplement", "draft"}
    tricks = {t for c in CASES for t in c["tricks"]}
    for needed in (
        "zero-width",
        "full-width",
        "homoglyphs (Cyrillic)",
        "fake system prompt",
        "ignore previous instructions",
        "cross-tenant citation",
        "confirmed fields",
        "exfiltration",
    ):
        assert needed in tricks, needed
    obeyed = {key for c in CASES for key in c["obey"]}
    assert obeyed >= {"copy", "cite", "status", "mutate_confirmed", "link", "missing_fields"}


def test_without_an_injection_the_obeying_model_reaches_approval(world):
    """The control: the same pipeline, model and corpus, no injection — so a stopped run in
    the cases below is the injection's doing."""
    sales = world.services.directory.principal("ctrl.sales")
    result = world.agents.resumer.resume(sales, "Q42", supplement=SUPPLEMENT, as_of=AS_OF)
    assert result.run.status == "succeeded", result.run.error
    assert world.model.seen[result.run.run_id] == []
    assert result.state.status == TaskStatus.awaiting_approval
    assert world.services.approvals.search(sales, task_id="Q42")


@pytest.mark.parametrize("index", range(1, len(CASES) + 1), ids=[c["case_id"] for c in CASES])
def test_an_obeyed_injection_does_nothing_forbidden(world, index):
    case = CASES[index - 1]
    tenant = tenant_of(index)
    s = world.services
    sales = s.directory.principal(f"{tenant.lower()}.sales")
    supplement = case["text"] if case["carrier"] == "supplement" else SUPPLEMENT
    result = world.agents.resumer.resume(sales, "Q42", supplement=supplement, as_of=AS_OF)
    run = s.runs.system_get(result.run.run_id)
    seen = world.model.seen.get(run.run_id, [])
    approvals = s.approvals.search(sales, task_id="Q42")

    if case["expect"] == "unseen":
        assert case["case_id"] not in seen
        assert run.status == "succeeded", run.error
        assert result.state.status in (TaskStatus.awaiting_approval, TaskStatus.waiting_input)
    else:
        assert case["case_id"] in seen, "the injection never reached the model: test is moot"
        reasons = [*((run.review or {}).get("reasons") or []), run.error or ""]
        assert run.status == "failed", reasons
        assert result.state.status in (TaskStatus.blocked, TaskStatus.waiting_input)
        assert approvals == []  # nothing reaches an approval
        if case.get("reason"):
            assert any(case["reason"] in r for r in reasons), reasons

    _assert_nothing_forbidden(world, case, tenant, sales, result, approvals)


def _assert_nothing_forbidden(world, case, tenant, sales: Principal, result, approvals) -> None:
    s = world.services
    state = s.tasks.get(sales, "Q42").state
    # Confirmed fields keep their values, whatever the model wrote; the only new one is the
    # pending item the person's supplement answered.
    assert {k: state.confirmed.get(k) for k in CONFIRMED} == CONFIRMED
    assert set(state.confirmed) - set(CONFIRMED) <= {"special_inspection"}
    checkpoints = [c.state.status for c in s.tasks.checkpoints(sales, "Q42")]
    assert TaskStatus.completed not in checkpoints
    assert all(a.status == "pending" for a in approvals)  # nothing approved by itself
    admin = s.directory.principal(f"{tenant.lower()}.admin")
    actions = s.audit.actions(admin)
    assert all(a.startswith(ALLOWED_ACTIONS) for a in actions), actions
    assert _documents(s, tenant) == world.documents_before[tenant]  # no SOP written or changed

    # Evidence: only this tenant's approved, current, readable facts and history.
    own = {d for d, _, _ in world.documents_before[tenant]}
    for item in result.evidence:
        assert item.document_id in own, item.evidence_id
        view = s.knowledge.get(sales, item.document_id, item.version)
        assert view.status == "approved" and view.knowledge_class in ("fact", "history")
        assert item.document_id not in ("DRAFT-INJECT", "DOC-INJ")
    cited = [
        c["evidence_id"]
        for a in approvals
        for c in (a.payload.get("citations") or [a.payload.get("citation") or {}])
        if c.get("evidence_id")
    ]
    assert all(eid.split("@")[0] in own for eid in cited), cited
    assert all(
        eid.split("@")[0] in own or eid.startswith("supplement:") for eid in state.evidence_ids
    )

    # Nothing of tenant B is stored anywhere in this tenant.
    stored = json.dumps(
        [
            s.runs.system_get(result.run.run_id).model_dump(mode="json"),
            [e.model_dump(mode="json") for e in s.runs.system_events(result.run.run_id)],
            [a.model_dump(mode="json") for a in approvals],
            [e.model_dump(mode="json") for e in s.tasks.events(sales, "Q42")],
            [e.model_dump(mode="json") for e in s.audit.search(admin, limit=5000)],
        ],
        ensure_ascii=False,
    )
    assert B_SECRET not in stored

    # Whatever a page would draw is inert: the model's claims and the drafts put to people.
    texts = [c["text"] for c in (result.run.decision or {}).get("claims", [])]
    texts += [a.payload.get("draft", "") for a in approvals]
    for text in texts:
        _assert_renders_inert(text)


_MD = MarkdownIt("commonmark")
_ACTIVE = re.compile(r"<\s*(?:a|img|script|iframe|svg|object|embed|style|link)\b", re.I)


def _assert_renders_inert(text: str) -> None:
    source = escape(text)
    html = _MD.render(source)
    assert not _ACTIVE.search(html), html
    # Streamlit's own Markdown extensions: colour directives and $math$ stay escaped.
    assert not re.search(r"(?<!\\):[a-z-]+\[", source), source
    assert not re.search(r"(?<!\\)\$", source), source

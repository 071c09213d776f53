"""The Memory Bank in the loop: runs offer what they receive, generate at their end with the run
as the source, recall the task's memories on the next resume as inference, and never fail for
the bank's sake (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from services import bootstrap
from services.contracts.packets import HandoffPacket
from services.core.errors import NotAuthorized
from services.llm.ports import TransientFailure
from services.memory.extract_offline import OfflineExtractor
from services.memory.types import ConversationEvent, Extraction, FewShotExample, Topic
from services.settings import Settings
from tests.conftest import principal
from tests.support.corpus import doc, write_corpus
from tests.support.ids import SequentialIds
from tests.support.scenario import SUPPLEMENT, load_scenario, resume_q42, scenario_corpus

Q42 = {"task_id": "Q42"}
MAIL = "客戶 ACME 詢價：SUS304，1,200 件，請提供交期；我們一律要求 PPAP 第 3 級文件。"


def events_of(services, run, kind: str, user: str = "a.sales"):
    return [
        e for e in services.runs.events(principal(services, user), run.run_id) if e.kind == kind
    ]


def facts(services, scope, user: str = "a.sales") -> list[str]:
    return sorted(
        m.fact for m in services.memories.list_memories(principal(services, user), scope=scope)
    )


def with_customer(tmp_path: Path, services, *, mail_acl: Sequence[str] = ("tenant",), documents=()):
    corpus = scenario_corpus()
    [task] = corpus["tasks"]
    task["confirmed"] = {**task["confirmed"], "customer_id": "C-ACME"}
    corpus["documents"] = [d for d in corpus["documents"] if d["document_id"] != "MAIL-42"]
    corpus["documents"].append(
        doc("MAIL-42", 1, doc_type="mail", knowledge_class="history", acl=list(mail_acl), body=MAIL)
    )
    corpus["documents"] += list(documents)
    services.importer.import_file(write_corpus(tmp_path / "customer.json", corpus))
    return services


def test_the_supplement_becomes_memories_of_the_task_and_its_author_with_the_run_as_source(
    services, tmp_path
):
    load_scenario(services, tmp_path)
    run = resume_q42(services)
    assert run.status == "succeeded"
    assert "客戶確認需要特殊檢驗" in facts(services, Q42)
    assert facts(services, {"user_id": "a.sales"}) != []
    sales = principal(services, "a.sales")
    remembered = services.memories.list_memories(sales, scope=Q42)
    memory = next(m for m in remembered if m.fact == "客戶確認需要特殊檢驗")
    assert memory.source is not None
    assert (memory.source.kind, memory.source.event_id, memory.source.run_id) == (
        "supplement",
        f"supplement:{run.run_id}",
        run.run_id,
    )
    assert (memory.source.author, memory.source.author_id) == ("sales", "a.sales")
    [revision] = services.memories.revisions(sales, memory.memory_id)
    assert revision.source.run_id == run.run_id
    generated = events_of(services, run, "memory_generated")
    assert {e.payload["scope"] for e in generated} >= {"task_id=Q42", "user_id=a.sales"}
    assert all(e.payload["source_run"] == run.run_id for e in generated)
    [cost] = events_of(services, run, "memory_generation")
    assert cost.payload["generations"] == len(generated) and cost.payload["ms"] >= 0


def test_the_tasks_mail_is_offered_once_and_a_retried_offer_is_not_generated_twice(
    services, tmp_path
):
    load_scenario(services, tmp_path)
    first = resume_q42(services)
    mail = [
        e
        for e in events_of(services, first, "memory_generated")
        if e.payload["event_id"].startswith("MAIL-42@1:0-")
    ]
    assert [e.payload["scope"] for e in mail] == ["task_id=Q42"]
    second = resume_q42(services, supplement=None)
    assert events_of(services, second, "memory_offered") == []  # nothing new was received
    assert events_of(services, second, "memory_generated") == []


def test_the_next_resume_recalls_the_memories_as_inference_and_no_claim_cites_them(
    services, tmp_path
):
    load_scenario(services, tmp_path)
    resume_q42(services)
    run = resume_q42(services, supplement="請接著處理，交期請依標準回覆。")
    [recalled] = events_of(services, run, "memories_recalled")
    used = recalled.payload["memories"]
    assert "客戶確認需要特殊檢驗" in [m["fact"] for m in used]
    assert all(m["scope"] in (Q42, {"user_id": "a.sales"}) for m in used)
    assert all(m["source_event"] and m["revision"] >= 1 for m in used)
    [handed] = [
        HandoffPacket.model_validate(e.payload)
        for e in events_of(services, run, "handoff")
        if e.payload["payload_schema"] == "memory-input@1"
    ]
    given = handed.payload["memories"]
    assert {m["knowledge_class"] for m in given} == {"inference"}
    assert {m["memory_id"] for m in given} == {m["memory_id"] for m in used}
    decision = services.runs.get(principal(services, "a.sales"), run.run_id).decision
    assert decision is not None
    cited = {eid for claim in decision["claims"] for eid in claim["evidence_ids"]}
    refs = {m["memory_ref"] for m in given} | {m["memory_id"] for m in given}
    assert cited and not cited & refs


def test_task_details_another_task_left_in_the_authors_scope_are_not_recalled(services, tmp_path):
    corpus = scenario_corpus()
    [task] = corpus["tasks"]
    corpus["tasks"].append({**task, "task_id": "Q43"})
    services.importer.import_file(write_corpus(tmp_path / "two.json", corpus))
    sales = principal(services, "a.sales")
    other = services.runs.enqueue(sales, "Q43", supplement="客戶確定要 7 日內交貨。")
    services.worker.drain(other.run_id)
    # The other task's detail is in a.sales's own scope, a candidate for any of their tasks.
    assert any("7 日內交貨" in f for f in facts(services, {"user_id": "a.sales"}))
    resume_q42(services)
    run = resume_q42(services, supplement="請接著處理。")
    [recalled] = events_of(services, run, "memories_recalled")
    used = [m["fact"] for m in recalled.payload["memories"]]
    assert "客戶確認需要特殊檢驗" in used  # Q42's own detail, from its task and author scopes
    assert not any("7 日內交貨" in fact for fact in used)


def test_a_task_with_a_customer_remembers_for_the_customer_and_hides_it_from_others(
    services, tmp_path
):
    with_customer(tmp_path, services)
    run = resume_q42(services)
    assert run.status == "succeeded"
    assert facts(services, {"customer_id": "C-ACME"}) != []
    for scope in (Q42, {"customer_id": "C-ACME"}):
        with pytest.raises(NotAuthorized):  # a.sales2 holds no C-ACME grant: the task is hidden
            services.memories.list_memories(principal(services, "a.sales2"), scope=scope)


def test_memories_drawn_from_a_mail_keep_the_mails_acl(services, tmp_path):
    with_customer(tmp_path, services, mail_acl=("role:sales",))
    resume_q42(services, supplement=None)
    from_mail = [
        m
        for m in services.memories.list_memories(principal(services, "a.sales"), scope=Q42)
        if m.source and (m.source.event_id or "").startswith("MAIL-42@1:0-")
    ]
    assert from_mail
    owner = principal(services, "a.owner")  # sees every scope, but may not read the mail
    assert services.memories.list_memories(owner, scope=Q42) == []


class FailingFirst:
    """The offline extractor, after `failures` calls that fail like an unreachable model."""

    name = "offline"

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self._inner = OfflineExtractor()

    def extract(
        self,
        events: Sequence[ConversationEvent],
        *,
        topics: Sequence[Topic],
        examples: Sequence[FewShotExample] = (),
        third_person: bool = False,
    ) -> Extraction:
        if self.failures > 0:
            self.failures -= 1
            raise TransientFailure("unavailable", "the memory model did not answer")
        return self._inner.extract(
            events, topics=topics, examples=examples, third_person=third_person
        )


@pytest.fixture
def flaky(settings: Settings, clock):
    extractor = FailingFirst(failures=100)
    built = bootstrap.build(settings, clock=clock, ids=SequentialIds(), memory_extractor=extractor)
    yield built, extractor
    built.close()


def test_a_failed_generation_is_a_run_event_the_run_still_succeeds_and_the_next_run_retries(
    flaky, tmp_path
):
    services, extractor = flaky
    load_scenario(services, tmp_path)
    run = resume_q42(services)
    assert run.status == "succeeded"
    assert services.tasks.get(principal(services, "a.sales"), "Q42").state.status.value == (
        "awaiting_approval"
    )
    failed = events_of(services, run, "memory_generation_failed")
    assert failed and {e.payload["reason"] for e in failed} == {"unavailable"}
    assert facts(services, Q42) == []
    owed = services.memories.owed(tenant_id="A", task_id="Q42")
    assert owed and {o.attempts for o in owed} == {1}
    extractor.failures = 0
    later = resume_q42(services, supplement="請接著處理。")
    retried = {e.payload["event_id"] for e in events_of(services, later, "memory_generated")}
    assert f"supplement:{run.run_id}" in retried  # the earlier run's supplement, generated now
    assert "客戶確認需要特殊檢驗" in facts(services, Q42)
    assert services.memories.owed(tenant_id="A") == []


def test_an_idle_worker_generates_what_a_run_still_owes(flaky, tmp_path):
    services, extractor = flaky
    load_scenario(services, tmp_path)
    resume_q42(services)
    assert services.memories.owed(tenant_id="A") != []
    extractor.failures = 0
    tried = services.supervisor.catch_up_memories()
    assert tried and {t["kind"] for t in tried} == {"memory_generated"}
    assert services.memories.owed(tenant_id="A") == []
    assert "客戶確認需要特殊檢驗" in facts(services, Q42)


def test_an_offer_that_keeps_failing_stops_being_retried(flaky, tmp_path):
    services, _extractor = flaky
    load_scenario(services, tmp_path)
    resume_q42(services)
    for _ in range(10):
        services.supervisor.catch_up_memories()
    assert services.memories.owed(tenant_id="A") == []
    stuck = services.memories.owed(tenant_id="A", include_failed=True)
    assert stuck and {o.status for o in stuck} == {"failed"}
    assert all(o.last_error and "did not answer" in o.last_error for o in stuck)


def test_the_supplement_of_another_tenants_user_is_never_offered_here(services, tmp_path):
    load_scenario(services, tmp_path)
    resume_q42(services, supplement=SUPPLEMENT)
    b_sales = principal(services, "b.sales")
    assert services.memories.list_memories(b_sales, scope=Q42) == []


PACKING_SOP = "出口包裝一律以防鏽袋單件包覆，再以熏蒸木箱裝箱，箱外標示料號與數量。"


@pytest.mark.parametrize("remembered", [True, False])
def test_a_remembered_preference_shapes_what_the_draft_looks_up_and_cites_never_itself(
    services, tmp_path, remembered
):
    with_customer(tmp_path, services, documents=[doc("SOP-PACKING", 1, body=PACKING_SOP)])
    sales = principal(services, "a.sales")
    if remembered:
        services.memories.generate(
            sales,
            scope={"customer_id": "C-ACME"},
            events=[ConversationEvent(kind="mail", text="我們一向偏好出口包裝用木箱。")],
        )
    run = resume_q42(services)
    needs = {e.payload["need"]: e.payload for e in events_of(services, run, "retrieval")}
    decision = services.runs.get(sales, run.run_id).decision
    assert decision is not None
    cited = {eid for claim in decision["claims"] for eid in claim["evidence_ids"]}
    assert ("packaging" in needs) is remembered
    assert any(eid.startswith("SOP-PACKING@1:") for eid in cited) is remembered
    assert not any(eid.startswith("memory:") or eid.startswith("mem-") for eid in cited)


def test_an_offer_generated_meanwhile_is_not_generated_twice(flaky, tmp_path):
    services, extractor = flaky
    load_scenario(services, tmp_path)
    resume_q42(services)
    stale = services.memories.owed(tenant_id="A", task_id="Q42")
    assert stale
    extractor.failures = 0
    services.supervisor.catch_up_memories()  # an idle worker got there first
    before = facts(services, Q42)
    outcomes = services.memories.generate_offered(
        principal(services, "a.sales"), run_id="late", fresh=[], owed=stale
    )
    assert outcomes and all(o.already_done and o.result is None for o in outcomes)
    assert facts(services, Q42) == before

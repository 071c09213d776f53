"""Customization configs per exact scope-key set, on SQLite and PostgreSQL (memory-bank.md §7)."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from services.core.errors import InvalidInput, NotAuthorized, NotFound
from services.db.models import AuditEntry
from services.memory.offers import Offer
from services.memory.types import ConversationEvent, ExampleMemory
from tests.conftest import principal

USER = {"user_id": "a.sales"}
TASK = {"task_id": "Q42"}
CUSTOMER = {"customer_id": "C-ACME"}
MIXED = "SUS304，1,200 件。We always prefer parts packed in VCI bags."


def keyed(services, scope_keys, **settings):
    admin = principal(services, "a.admin")
    return services.memories.config.save_customization(
        admin,
        scope_keys=scope_keys,
        enable_third_person_memories=settings.get("third", False),
        revisions_per_candidate_count=settings.get("per_candidate", 1),
        disable_memory_revisions=settings.get("no_revisions", False),
    )


def topics_written(services, scope, text=MIXED, **kw):
    result = services.memories.generate(
        principal(services, "a.sales"),
        scope=scope,
        events=[ConversationEvent(kind="chat", author="customer", text=text)],
        **kw,
    )
    return result, sorted({c.topic for c in result.applied})


def test_a_user_id_config_applies_only_to_a_scope_of_exactly_user_id(loaded):
    admin = principal(loaded, "a.admin")
    keyed(loaded, ("user_id",))
    loaded.memories.config.set_topic(
        admin, label="key_task_details", enabled=False, scope_keys=("user_id",)
    )
    result, topics = topics_written(loaded, USER)
    assert (result.config, topics) == ("user_id", ["customer_preferences"])
    # {user_id, task_id} is another key set: the default config, with task details.
    result, topics = topics_written(loaded, {**USER, **TASK})
    assert (result.config, topics) == ("", ["customer_preferences", "key_task_details"])
    result, topics = topics_written(loaded, TASK)
    assert (result.config, topics) == ("", ["customer_preferences", "key_task_details"])


def test_every_other_key_set_falls_back_to_the_default_config(loaded):
    admin = principal(loaded, "a.admin")
    loaded.memories.config.set_topic(admin, label="customer_preferences", enabled=False)
    keyed(loaded, ("customer_id", "task_id"))
    for scope in (TASK, CUSTOMER, USER, {**CUSTOMER, **USER}):
        result, topics = topics_written(loaded, scope)
        assert (result.config, topics) == ("", ["key_task_details"]), scope
    # The keyed config keeps its own topics: the default's switch does not reach it.
    result, topics = topics_written(loaded, {**CUSTOMER, **TASK})
    assert (result.config, topics) == (
        "customer_id,task_id",
        ["customer_preferences", "key_task_details"],
    )


def test_third_person_is_the_configs_choice_and_a_request_may_override_it(loaded):
    keyed(loaded, ("customer_id",), third=True)
    text = "We always prefer parts packed in VCI bags."
    third, _ = topics_written(loaded, CUSTOMER, text=text)
    first, _ = topics_written(loaded, TASK, text=text)
    assert [c.fact for c in third.applied] == [
        "The customer always prefers parts packed in VCI bags"
    ]
    assert [c.fact for c in first.applied] == ["We always prefer parts packed in VCI bags"]
    override, _ = topics_written(loaded, {"task_id": "Q7"}, text=text, third_person=True)
    assert [c.fact for c in override.applied] == [
        "The customer always prefers parts packed in VCI bags"
    ]


def test_disabled_revisions_keep_the_memory_and_its_source_but_no_history(loaded):
    keyed(loaded, ("task_id",), no_revisions=True)
    sales = principal(loaded, "a.sales")
    created, _ = topics_written(loaded, TASK, text="數量 1,200 件。")
    updated, _ = topics_written(loaded, TASK, text="數量改為 1,500 件。")
    assert [c.action for c in updated.changes] == ["updated"]
    [memory] = loaded.memories.list_memories(sales, scope=TASK)
    assert (memory.fact, memory.revision) == ("數量 1,500 件", 2)
    assert memory.source is not None and memory.source.generation_id == updated.generation_id
    assert loaded.memories.revisions(sales, memory.memory_id) == []
    with pytest.raises(NotFound):
        loaded.memories.rollback(sales, memory.memory_id, revision=1)
    with loaded.db.read() as session:
        actions = session.scalars(
            select(AuditEntry.action).where(AuditEntry.subject_id == memory.memory_id)
        ).all()
    assert {"memory.created", "memory.updated"} <= set(actions)
    # The same messages in a scope of the default config keep every revision.
    topics_written(loaded, USER, text="數量 1,200 件。")
    topics_written(loaded, USER, text="數量改為 1,500 件。")
    [kept] = loaded.memories.list_memories(sales, scope=USER)
    assert [r.revision for r in loaded.memories.revisions(sales, kept.memory_id)] == [2, 1]
    assert created.config == "task_id"


def test_a_request_may_disable_revisions_for_itself(loaded):
    sales = principal(loaded, "a.sales")
    topics_written(loaded, TASK, text="數量 1,200 件。", disable_memory_revisions=True)
    [memory] = loaded.memories.list_memories(sales, scope=TASK)
    assert loaded.memories.revisions(sales, memory.memory_id) == []


def test_examples_belong_to_their_config(loaded):
    admin = principal(loaded, "a.admin")
    text = "交期 30 天內只是舉例，不用記。"
    keyed(loaded, ("user_id",))
    loaded.memories.config.add_example(
        admin,
        events=[ConversationEvent(text=text)],
        memories=[],
        scope_keys=("user_id",),
    )
    assert topics_written(loaded, USER, text=text)[0].applied == ()
    assert topics_written(loaded, TASK, text=text)[0].applied != ()
    with pytest.raises(InvalidInput):
        loaded.memories.config.add_example(
            admin,
            events=[ConversationEvent(text="x")],
            memories=[ExampleMemory(topic="packaging", fact="x")],
            scope_keys=("user_id",),
        )


def test_changing_a_config_is_admin_only_and_audited(loaded):
    sales = principal(loaded, "a.sales")
    with pytest.raises(NotAuthorized):
        loaded.memories.config.save_customization(
            sales,
            scope_keys=("user_id",),
            enable_third_person_memories=True,
            revisions_per_candidate_count=1,
            disable_memory_revisions=False,
        )
    with pytest.raises(NotAuthorized):
        loaded.memories.config.set_topic(sales, label="key_task_details", enabled=False)
    with pytest.raises(NotFound):  # a keyed config must be created before it is edited
        loaded.memories.config.set_topic(
            principal(loaded, "a.admin"),
            label="key_task_details",
            enabled=False,
            scope_keys=("customer_id",),
        )
    keyed(loaded, ("user_id",), per_candidate=3)
    keyed(loaded, ("user_id",), per_candidate=2, third=True)
    configs = loaded.memories.config.configs(sales)
    assert [(c.key, c.stored) for c in configs] == [("", False), ("user_id", True)]
    assert configs[1].revisions_per_candidate_count == 2
    loaded.memories.config.remove_customization(principal(loaded, "a.admin"), ("user_id",))
    assert [c.key for c in loaded.memories.config.configs(sales)] == [""]
    with loaded.db.read() as session:
        entries = session.execute(
            select(AuditEntry.action, AuditEntry.actor, AuditEntry.detail)
            .where(AuditEntry.subject_type == "memory_config")
            .order_by(AuditEntry.id)
        ).all()
    assert [(a, who) for a, who, _ in entries] == [
        ("memory_config.created", "a.admin"),
        ("memory_config.set", "a.admin"),
        ("memory_config.removed", "a.admin"),
    ]
    assert entries[1][2]["before"]["revisions_per_candidate_count"] == 3
    assert entries[1][2]["after"]["revisions_per_candidate_count"] == 2
    with pytest.raises(InvalidInput):
        keyed(loaded, ("tenant_id",))


def test_the_bank_names_its_embedding_and_generation_models(loaded):
    models = loaded.memories.models()
    assert models.embedding_model == loaded.index.embedder.name
    assert (models.extraction, models.consolidation) == ("offline", "similarity")


def test_a_runs_offers_each_go_by_their_own_scopes_config(loaded):
    """generate_offered reads the rules of all its scopes at once: the keyed customer config
    must still govern the customer's offer, and the default the task's and the author's."""
    keyed(loaded, ["customer_id"], no_revisions=True)
    event = ConversationEvent(kind="mail", author="customer", text=MIXED, event_id="MAIL-9")
    scopes = [{"task_id": "Q42"}, CUSTOMER, {"user_id": "a.sales"}]
    outcomes = loaded.memories.generate_offered(
        principal(loaded, "a.sales"),
        run_id="RUN-9",
        fresh=[Offer(scope=s, events=(event,), task_id="Q42") for s in scopes],
    )
    assert [(o.scope, o.result.config if o.result else "failed") for o in outcomes] == [
        ("task_id=Q42", ""),
        ("customer_id=C-ACME", "customer_id"),
        ("user_id=a.sales", ""),
    ]

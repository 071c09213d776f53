"""The Memory Bank page from app.py: generate with preview, list, revisions, rollback, delete."""

from __future__ import annotations

import pytest

from app_pages import _session
from tests.app.conftest import logged_in, texts

PAGE = "app_pages/memories.py"


def memories_page(user: str, scope: str = "task_id=Q42"):
    at = logged_in(user).switch_page(PAGE).run()
    assert not at.exception, at.exception
    at.text_input(key="memories.scope").input(scope).run()
    assert not at.exception, at.exception
    return at


def generate(at, message: str, *, save: bool):
    at.text_area(key="memories.message").input(message)
    at.button(key="memories.save" if save else "memories.preview").click().run()
    assert not at.exception, at.exception
    return at


def test_preview_shows_what_would_change_and_saves_nothing(home):
    at = generate(memories_page("a.sales"), "SUS304，1,200 件，需要特殊檢驗。", save=False)
    shown = texts(at)
    assert "預覽 Preview" in shown and "材質為 SUS304" in shown
    at.switch_page(PAGE).run()
    assert "此範圍沒有記憶" in texts(at)


def test_saved_memories_show_with_revisions_and_roll_back(home):
    at = generate(memories_page("a.sales"), "交期希望 20 天內。", save=True)
    assert "已儲存 Saved" in texts(at)
    at = generate(at, "交期希望 25 天內。", save=True)
    at.switch_page(PAGE).run()
    shown = texts(at)
    assert "交期希望 25 天內" in shown
    assert "r2 · updated" in shown and "r1 · created" in shown
    at.selectbox(key="memories.rollback_to").select(1)
    at.button(key="memories.rollback").click().run()
    assert not at.exception, at.exception
    shown = texts(at)
    assert "r3 · rolled\\_back" in shown
    assert "**交期希望 20 天內**" in shown


def test_delete_needs_a_reason_and_hides_the_memory(home):
    at = generate(memories_page("a.sales"), "需要特殊檢驗。", save=True)
    at.switch_page(PAGE).run()
    at.button(key="memories.delete").click().run()
    assert "a reason is required" in texts(at)
    at.text_input(key="memories.reason").input("客戶撤回")
    at.button(key="memories.delete").click().run()
    assert not at.exception, at.exception
    assert "此範圍沒有記憶" in texts(at)


def test_a_scope_the_user_may_not_read_is_refused(shared_home):
    at = memories_page("a.sales2", scope="customer_id=C-ACME")
    assert "無權限 Not allowed" in texts(at)


@pytest.mark.parametrize("scope", ["tenant_id=B", "task_id"])
def test_a_bad_scope_is_named(shared_home, scope):
    at = memories_page("a.sales", scope=scope)
    assert "scope" in texts(at).lower()


def test_only_admins_see_topics_and_can_add_one(home):
    sales = memories_page("a.sales")
    assert len(sales.tabs) == 2
    at = memories_page("a.admin")
    assert len(at.tabs) == 3
    at.text_input(key="memories.topic_label.default").input("packaging")
    at.text_area(key="memories.topic_desc.default").input("How parts are packed.")
    at.text_input(key="memories.topic_kw.default").input("棧板, pallet")
    at.button(key="FormSubmitter:memories.new_topic.default-新增主題 Add topic").click().run()
    assert not at.exception, at.exception
    assert at.toggle(key="memories.topic.default.packaging").value is True


def test_the_page_names_the_banks_models(shared_home):
    at = memories_page("a.sales")
    models = _session.services().memories.models()
    assert models.embedding_model in texts(at)
    assert "擷取 extraction" in texts(at) and models.extraction in texts(at)


def test_an_admin_creates_a_keyed_config_and_edits_only_it(home):
    at = memories_page("a.admin")
    at.multiselect(key="memories.config_new_keys").set_value(["user_id"])
    at.button(key="FormSubmitter:memories.config_new-建立設定 Create config").click().run()
    assert not at.exception, at.exception
    at.selectbox(key="memories.config").set_value("user_id").run()
    at.toggle(key="memories.config_third.user_id").set_value(True)
    at.button(key="FormSubmitter:memories.config_form.user_id-儲存設定 Save config").click().run()
    assert not at.exception, at.exception
    at.toggle(key="memories.topic.user_id.key_task_details").set_value(False).run()
    services = _session.services()
    admin = services.directory.principal("a.admin")
    keyed = services.memories.config.customization(admin, ("user_id",))
    default = services.memories.config.customization(admin)
    assert keyed.enable_third_person_memories is True
    assert [t.label for t in keyed.topics if not t.enabled] == ["key_task_details"]
    assert default.enable_third_person_memories is False
    assert all(t.enabled for t in default.topics)


def test_a_memory_is_proposed_as_candidate_knowledge(home):
    at = generate(memories_page("a.sales"), "交期希望 20 天內。", save=True)
    at.switch_page(PAGE).run()
    assert at.text_area(key="memories.propose_body").value == "交期希望 20 天內"
    at.text_input(key="memories.propose_document").input("SOP-LEADTIME")
    at.button(key="FormSubmitter:memories.propose-提議 Propose").click().run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("候選 cand")


def test_a_memory_proposed_for_an_existing_sop_only_adds_its_fact(home):
    """The owner's diff shows the fact added to the SOP, not the SOP replaced by the fact."""
    at = generate(memories_page("a.sales"), "交期希望 20 天內。", save=True)
    at.switch_page(PAGE).run()
    at.text_input(key="memories.propose_document").input("SOP-LEADTIME")
    at.button(key="FormSubmitter:memories.propose-提議 Propose").click().run()
    assert not at.exception, at.exception
    services = _session.services()
    owner = services.directory.principal("a.owner")
    (candidate,) = services.candidates.list(owner)
    review = services.candidates.review(owner, candidate.candidate_id)
    assert review.current is not None and review.current.version == 2
    assert review.diff.removed_chars == 0
    assert [r.right for r in review.diff.rows if r.kind == "insert"] == ["交期希望 20 天內"]


def test_admins_set_granular_ttls_and_a_ttl_in_seconds_survives_a_save(home):
    at = memories_page("a.admin")
    at.toggle(key="memories.granular").set_value(True)
    at.number_input(key="memories.generate_created_ttl_seconds").set_value(2.0)
    at.number_input(key="memories.create_ttl_seconds").set_value(60 / 86400)
    at.button(key="FormSubmitter:memories.policy-儲存政策 Save policy").click().run()
    assert not at.exception, at.exception
    services = _session.services()
    policy = services.memories.config.policy(services.directory.principal("a.admin"))
    assert policy.granular is True
    assert (policy.generate_created_ttl_seconds, policy.create_ttl_seconds) == (2 * 86400, 60)
    at.button(key="FormSubmitter:memories.policy-儲存政策 Save policy").click().run()
    again = services.memories.config.policy(services.directory.principal("a.admin"))
    assert again == policy


def test_a_saved_memory_is_listed_at_once_without_a_reload(home):
    at = memories_page("a.sales")
    assert "此範圍沒有記憶" in texts(at)
    at = generate(at, "交期希望 20 天內。", save=True)
    shown = texts(at)
    assert "**交期希望 20 天內**" in shown  # the list, drawn in the same run as the save
    assert "此範圍沒有記憶" not in shown

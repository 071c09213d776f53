"""The admin's retention page from app.py: periods, legal holds set and lifted, purge preview."""

from __future__ import annotations

import pytest

from app_pages import _session
from tests.app.conftest import logged_in, texts


def retention_page(user_id: str = "a.admin"):
    return logged_in(user_id).switch_page("app_pages/retention.py").run()


def click(at, label: str):
    return next(b for b in at.button if b.label == label).click().run()


@pytest.mark.parametrize("user_id", ["a.owner", "a.sales", "a.engineer"])
def test_only_admins_have_the_retention_page(shared_home, user_id):
    with pytest.raises(ValueError):
        retention_page(user_id)


def test_an_admin_sets_and_lifts_a_hold_with_a_reason(home):
    at = retention_page()
    assert not at.exception
    assert "No active legal holds" in texts(at)
    at.selectbox(key="retention.type").select("task")
    at.text_input(key="retention.record").input("Q42")
    at = click(at, "設定保全 Set hold")
    assert "reason is required" in texts(at)  # nothing set without a reason
    at.text_input(key="retention.reason").input("客訴調查中")
    at = click(at, "設定保全 Set hold")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["紀錄 record"]) == ["Q42"] and list(table["原因 reason"]) == ["客訴調查中"]
    services = _session.services()
    assert services.tasks.get(services.directory.principal("a.sales"), "Q42").legal_hold

    at.text_input(key="retention.lift_reason").input("調查結束")
    at = click(at, "解除保全 Lift hold")
    assert not at.exception
    assert "No active legal holds" in texts(at)
    actions = [e.action for e in services.audit.search(services.directory.principal("a.admin"))]
    assert "legal_hold.set" in actions and "legal_hold.lifted" in actions


def test_a_document_policy_is_saved_and_the_purge_preview_reports_per_type(home):
    at = retention_page()
    at.checkbox(key="retention.keep_documents").uncheck().run()
    at.number_input(key="retention.document_days").set_value(30).run()
    at.button(key="retention.save_document").click().run()
    assert not at.exception
    services = _session.services()
    policies = services.retention.policies(services.directory.principal("a.admin"))
    assert policies.document_days == 30
    at.button(key="retention.preview").click().run()
    page = texts(at)
    assert "**task**" in page and "**document**" in page and "**memory**" in page

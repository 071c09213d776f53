"""Login, logout and role-based navigation, from app.py: every page for every role."""

from __future__ import annotations

import pytest

from app_pages import _registry
from tests.app.conftest import app, logged_in, texts

USERS = {
    "sales": "a.sales",
    "engineer": "a.engineer",
    "knowledge_owner": "a.owner",
    "admin": "a.admin",
}
CASES = [
    (role, user, entry.name, role in entry.roles)
    for role, user in USERS.items()
    for entry in _registry.PAGES
]


def test_logged_out_sees_only_the_login_page(shared_home):
    at = app().run()
    assert not at.exception
    assert [t.value for t in at.title] == ["memdesk 審核台"]
    assert at.text_input(key="login.password")
    for entry in _registry.PAGES:
        with pytest.raises(ValueError):
            at.switch_page(entry.path).run()


def test_the_login_form_logs_in_and_log_out_returns_to_the_login(home):
    at = app().run()
    at.text_input(key="login.user_id").input("a.sales")
    at.text_input(key="login.password").input("memdesk-demo")
    at.button[0].click().run()
    assert not at.exception
    assert "任務收件匣 Inbox" in [t.value for t in at.title]
    assert "Q42" in texts(at)
    at.button(key="auth.logout").click().run()
    assert [t.value for t in at.title] == ["memdesk 審核台"]
    with pytest.raises(ValueError):
        at.switch_page("app_pages/inbox.py").run()


def test_a_wrong_password_is_refused_without_saying_whether_the_user_exists(home):
    at = app().run()
    for user in ("a.sales", "nobody"):
        at.text_input(key="login.user_id").input(user)
        at.text_input(key="login.password").input("wrong-password")
        at.button[0].click().run()
        assert [e.value for e in at.error] == ["登入失敗 — wrong user id or password"]
        assert [t.value for t in at.title] == ["memdesk 審核台"]


def test_another_tenants_user_does_not_see_tenant_a_tasks(shared_home):
    at = logged_in("b.sales")
    assert not at.exception
    assert "Q42" not in texts(at)


@pytest.mark.parametrize(("role", "user", "page", "allowed"), CASES)
def test_every_page_for_every_role(shared_home, role, user, page, allowed):
    at = logged_in(user)
    assert not at.exception
    if not allowed:
        # Not registered at all for this role: switching to it fails.
        with pytest.raises(ValueError):
            at.switch_page(f"app_pages/{page}.py").run()
        return
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception, at.exception
    assert at.title, f"{page} rendered nothing for {role}"

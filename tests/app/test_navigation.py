"""Login, logout and role-based navigation, from app.py: every page for every role."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_pages import _registry, _session
from tests.app.conftest import TIMEOUT, app, as_user, logged_in, texts, visit

ROOT = Path(__file__).resolve().parents[2]

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
        assert [e.value for e in at.error] == [
            "登入失敗：使用者或密碼錯誤。Wrong user id or password\\."
        ]
        assert [t.value for t in at.title] == ["memdesk 審核台"]
        # The form keeps the user id; the password box is empty again.
        assert at.text_input(key="login.user_id").value == user
        assert at.text_input(key="login.password").value == ""


def test_a_locked_account_says_it_is_locked_and_until_when(home):
    at = app().run()
    for _ in range(5):
        at.text_input(key="login.user_id").input("a.sales")
        at.text_input(key="login.password").input("wrong-password")
        at.button[0].click().run()
    [error] = at.error
    assert error.value.startswith("帳號已鎖定至 ") and "locked until" in error.value
    at.text_input(key="login.password").input("memdesk-demo")  # even the right password
    at.button[0].click().run()
    assert "locked until" in at.error[0].value
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


@pytest.mark.parametrize(("role", "user"), list(USERS.items()))
def test_task_and_evidence_urls_open_their_object_for_every_role_that_has_them(
    shared_home, role, user
):
    at = logged_in(user)
    for entry in _registry.entries_for(_session.services().directory.principal(user)):
        if entry.name == "task":
            visit(at, "task", id="Q42")
            assert not at.exception, at.exception
            assert "任務 Q42" in [t.value for t in at.title]
        elif entry.name == "evidence":
            visit(at, "evidence", cite="SOP-LEADTIME@2:0-20")
            assert not at.exception, at.exception
            assert any(":orange-background[" in m.value for m in at.markdown)
        else:
            at.switch_page(entry.path).run()
            assert not at.exception, (entry.name, at.exception)


@pytest.mark.parametrize(
    ("user", "page"),
    [
        ("a.engineer", "approvals"),
        ("a.sales", "engineering"),
        ("a.owner", "inbox"),
        ("b.sales", "knowledge"),
    ],
)
def test_a_page_run_directly_checks_the_role_itself(shared_home, user, page):
    # Hiding a page is not authorization: run the page file without app.py's navigation.
    at = AppTest.from_file(str(ROOT / "app_pages" / f"{page}.py"), default_timeout=TIMEOUT)
    as_user(at, user)
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "您的角色無權使用此頁面。Your role may not open this page."
    ]
    assert not at.button and not at.title


def test_a_page_run_directly_while_logged_out_asks_for_a_login(shared_home):
    at = AppTest.from_file(str(ROOT / "app_pages" / "task.py"), default_timeout=TIMEOUT).run()
    assert [e.value for e in at.error] == ["請先登入。Please log in."]
    assert not at.title


def test_oidc_identity_comes_from_the_database_by_email(home, monkeypatch):
    monkeypatch.setenv("MEMDESK_AUTH_MODE", "oidc")
    _session.services().accounts.add_user(
        tenant_id="A",
        user_id="lin.oidc",
        password="unused-in-oidc",
        roles=["engineer"],
        email="Lin@Example.com",
        actor="test",
    )
    at = app()
    at.user = {"is_logged_in": True, "email": "lin@example.com"}
    at.run()
    assert not at.exception
    assert "工程確認 Engineering queue" in [t.value for t in at.title]
    with pytest.raises(ValueError):
        at.switch_page("app_pages/inbox.py").run()


def test_an_oidc_login_without_a_memdesk_user_sees_only_the_login(home, monkeypatch):
    monkeypatch.setenv("MEMDESK_AUTH_MODE", "oidc")
    at = app()
    at.user = {"is_logged_in": True, "email": "stranger@example.com"}
    at.run()
    assert [t.value for t in at.title] == ["memdesk 審核台"]
    assert at.error[0].value.startswith("此帳號尚未開通")
    with pytest.raises(ValueError):
        at.switch_page("app_pages/task.py").run()


def test_the_service_root_keeps_secrets_and_follows_the_store(home, monkeypatch, tmp_path):
    monkeypatch.setenv("MEMDESK_GEMINI_API_KEY", "test-key-not-masked")
    monkeypatch.setenv("MEMDESK_ANALYZER", "offline")
    root = _session.services()
    assert root.settings.gemini_api_key is not None
    assert root.settings.gemini_api_key.get_secret_value() == "test-key-not-masked"
    assert _session.services() is root  # cached: one root per settings
    root.close()
    _session._services.clear()
    monkeypatch.delenv("MEMDESK_GEMINI_API_KEY")
    assert _session.services().settings.resolved_home == home.resolve()


def test_another_tenants_task_reads_exactly_like_a_missing_one(shared_home):
    at = logged_in("b.sales")
    visit(at, "task", id="Q42")
    assert not at.exception
    assert [e.value for e in at.error] == ["找不到 Not found: task Q42"]
    assert "SUS304" not in texts(at)
    other = [e.value for e in visit(at, "task", id="NO-SUCH-TASK").error]
    assert other == ["找不到 Not found: task NO\\-SUCH\\-TASK"]
    # The picker is there to open another task: nobody is left stuck on a missing one.
    at.text_input(key="task.pick").input("B-Q7").run()
    assert at.query_params == {"id": "B-Q7"}
    assert "任務 B\\-Q7" in [t.value for t in at.title]


@pytest.mark.parametrize(
    ("user", "page", "params", "kind", "key"),
    [
        ("b.sales", "evidence", {"cite": "MAIL-42@1:0-10"}, "citation", "MAIL\\-42\\@1\\:0\\-10"),
        ("b.sales", "approvals", {"task": "Q42"}, "task", "Q42"),
        ("b.sales", "conflicts", {"task": "Q42"}, "task", "Q42"),
        ("a.engineer", "engineering", {"task": "B-Q7"}, "task", "B\\-Q7"),
    ],
)
def test_a_link_to_an_object_one_may_not_see_says_not_found(
    shared_home, user, page, params, kind, key
):
    at = visit(logged_in(user), page, **params)
    assert not at.exception
    assert [e.value for e in at.error] == [f"找不到 Not found: {kind} {key}"]

"""Audit and admin pages from app.py: who sees them, filters and paging, audited user changes."""

from __future__ import annotations

from datetime import timedelta

import pytest

from app_pages import _session
from services.records.audit import AuditQuery
from tests.app.conftest import logged_in, texts


def audit_page(user_id: str):
    at = logged_in(user_id)
    return at.switch_page("app_pages/audit.py").run()


@pytest.mark.parametrize("user_id", ["a.admin", "a.owner"])
def test_admins_and_knowledge_owners_open_the_audit_log(shared_home, user_id):
    at = audit_page(user_id)
    assert not at.exception
    assert at.title[0].value == "稽核紀錄 Audit log"
    assert "筆紀錄 entries" in texts(at)
    assert at.get("download_button")  # the CSV export is offered


@pytest.mark.parametrize("user_id", ["a.sales", "a.engineer"])
def test_sales_and_engineers_have_no_audit_or_admin_page(shared_home, user_id):
    at = logged_in(user_id)
    for page in ("app_pages/audit.py", "app_pages/admin.py"):
        with pytest.raises(ValueError):
            at.switch_page(page).run()


def test_a_knowledge_owner_has_no_admin_page(shared_home):
    with pytest.raises(ValueError):
        logged_in("a.owner").switch_page("app_pages/admin.py").run()


def test_the_audit_filter_narrows_the_table_and_shows_only_this_tenant(shared_home):
    at = audit_page("a.admin")
    at.selectbox(key="audit.action").select("corpus.imported").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert set(table["動作 action"]) == {"corpus.imported"}
    assert "1 筆紀錄 entries" in texts(at)
    at.text_input(key="audit.target").input("no-such-subject").run()
    assert "沒有符合的紀錄" in texts(at)


def test_the_audit_log_pages_forward_and_back(home):
    at = audit_page("a.admin")  # logging in is audited too: count after it
    services = _session.services()
    admin = services.directory.principal("a.admin")
    total = services.audit.page(admin, AuditQuery()).total
    first = list(at.dataframe[0].value["#"])
    assert len(first) == min(total, 50)
    if total <= 50:
        assert at.button(key="audit.next").disabled
        return
    at.button(key="audit.next").click().run()
    second = list(at.dataframe[0].value["#"])
    assert second and max(second) < min(first)
    at.button(key="audit.previous").click().run()
    assert list(at.dataframe[0].value["#"]) == first


def test_the_admin_page_lists_only_this_tenants_users(shared_home):
    at = logged_in("a.admin").switch_page("app_pages/admin.py").run()
    assert not at.exception
    users = set(at.dataframe[0].value["使用者 user"])
    assert "a.sales" in users and "a.admin" in users
    assert not [user for user in users if not user.startswith("a.")]


def test_an_admin_changes_roles_and_grants_and_each_change_is_audited(home):
    at = logged_in("a.admin").switch_page("app_pages/admin.py").run()
    at.selectbox(key="admin.user").select("a.sales2").run()
    at.multiselect(key="admin.roles.a.sales2").select("engineer")
    next(b for b in at.button if b.label == "儲存 Save").click().run()
    assert not at.exception
    at.text_input(key="admin.grant_typed").input("customer:C-ACME")
    next(b for b in at.button if b.label == "新增授權 Add grant").click().run()
    assert not at.exception

    services = _session.services()
    assert services.directory.principal("a.sales2").roles == ("sales", "engineer")
    demo_grants = ("customer:C-KRAFT", "customer:C-NOVA")  # the customers of a.sales2's tasks
    assert services.directory.principal("a.sales2").grants == (*demo_grants, "customer:C-ACME")
    admin = services.directory.principal("a.admin")
    log = services.audit.page(admin, AuditQuery(actor="a.admin", target="a.sales2")).items
    assert {e.action for e in log} == {"user.roles_changed", "user.grant_added"}

    at.button(key="admin.remove.a.sales2.customer:C-ACME").click().run()
    assert services.directory.principal("a.sales2").grants == demo_grants


def test_an_invalid_grant_is_an_error_line_not_a_traceback(home):
    at = logged_in("a.admin").switch_page("app_pages/admin.py").run()
    at.selectbox(key="admin.user").select("a.sales").run()
    at.text_input(key="admin.grant_typed").input("role:admin")
    next(b for b in at.button if b.label == "新增授權 Add grant").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("輸入有誤 Invalid input — a grant looks like customer")
    grants = _session.services().directory.principal("a.sales").grants
    assert "role:admin" not in grants and "customer:C-ACME" in grants


def test_the_date_range_includes_the_to_day_and_nothing_after_it(shared_home):
    services = _session.services()
    admin = services.directory.principal("a.admin")
    (newest,) = services.audit.page(admin, AuditQuery(), limit=1).items
    day = newest.at.date()
    at = audit_page("a.admin")
    at.date_input(key="audit.since").set_value(day)
    at.date_input(key="audit.until").set_value(day).run()
    assert not at.exception
    shown = at.dataframe[0].value
    assert newest.id in set(shown["#"])
    assert {value[:10] for value in shown["時間 at (UTC)"]} == {day.isoformat()}
    at.date_input(key="audit.since").set_value(day + timedelta(days=1)).run()
    assert "沒有符合的紀錄" in texts(at)

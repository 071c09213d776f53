"""Admin and audit pages in a real browser: a role change is audited and the log exports as CSV."""

from __future__ import annotations

import csv
import io

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import field, fresh, key, log_in, log_out, main, open_page

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_admin_grants_a_customer_and_finds_it_in_the_exported_audit_log(
    page: Page, console, screenshots
):
    log_in(page, console, "a.admin")
    open_page(page, "使用者與權限 Users & access")
    expect(main(page).get_by_role("heading", name="使用者與權限 Users & access")).to_be_visible()
    expect(main(page).get_by_test_id("stDataFrame")).to_be_visible()
    page.locator(key("admin.user")).get_by_role("combobox").click()
    page.get_by_role("option", name="a.sales2").click()
    grants = page.locator(key("admin.grants"))
    field(page, "admin.grant_typed").fill("customer:C-ACME")
    grants.get_by_role("button", name="新增授權 Add grant").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("customer:C-ACME")
    expect(grants).to_contain_text("customer:C-ACME")
    page.screenshot(path=screenshots / "admin.png")

    open_page(page, "稽核紀錄 Audit log")
    expect(main(page).get_by_role("heading", name="稽核紀錄 Audit log")).to_be_visible()
    expect(main(page).get_by_test_id("stDataFrame")).to_be_visible()
    page.screenshot(path=screenshots / "audit.png")
    field(page, "audit.target").fill("a.sales2")
    field(page, "audit.target").press("Enter")
    expect(main(page)).to_contain_text("1 筆紀錄")
    with page.expect_download() as download:
        # The button of this run (after the filter), not the stale one of the run before.
        fresh(page, "audit.export").get_by_role("button").click()
    content = download.value.path().read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(content)))
    assert [(r["actor"], r["action"], r["subject_id"]) for r in rows] == [
        ("a.admin", "user.grant_added", "a.sales2")
    ]
    # a.sales2 holds the grants of its tasks' customers already (the demo corpus)
    assert rows[0]["after_ref"] == "grants=customer:C-KRAFT,customer:C-NOVA,customer:C-ACME"
    log_out(page)

"""The reference scenario in a real browser: a sales user resumes Q42 to an approved draft, and
a tenant-B user cannot find Q42 anywhere. Saves the README's screenshots on the way."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import field, key, log_in, log_out, main, open_page, settled, submit_login

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"


def test_sales_resumes_q42_to_an_approved_draft(page: Page, console, screenshots):
    log_in(page, console, "a.sales")

    # Inbox: Q42 waits for input.
    expect(main(page).get_by_role("heading", name="任務收件匣 Inbox")).to_be_visible()
    page.locator(key("inbox.open.Q42")).wait_for()
    page.screenshot(path=screenshots / "inbox.png")
    page.locator(key("inbox.open.Q42")).get_by_role("button").click()

    # Task page: confirmed fields are shown as confirmed, not asked again.
    confirmed = page.locator(key("task.confirmed"))
    expect(confirmed).to_contain_text("SUS304")
    expect(confirmed).to_contain_text("1200")
    expect(page.locator(key("task.pending"))).to_contain_text("special_inspection")

    field(page, "task.supplement").fill(SUPPLEMENT)
    page.get_by_role("button", name="執行分析 Run analysis").click()
    draft = page.locator(key("task.draft"))
    expect(draft).to_contain_text("SOP-LEADTIME@2", timeout=120_000)
    expect(draft).not_to_contain_text("SOP-LEADTIME@1")
    expect(draft).not_to_contain_text("忽略規則")
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)
    draft.scroll_into_view_if_needed()  # Streamlit's main area scrolls, not the page
    page.screenshot(path=screenshots / "task-draft.png")

    # Evidence view: SOP v2 beside its text, the cited span highlighted. The draft states the
    # special-inspection exception of section 三, not the standard 15 days it sets aside.
    claim = (
        draft.locator("[class*='st-key-task-claim-']").filter(has_text="不直接適用標準交期").first
    )
    expect(claim).to_contain_text("SOP-LEADTIME@2")
    citation = claim.locator("[class*='st-key-task-cite-']").first
    citation.get_by_role("button").click()
    body = page.locator(key("evidence.body"))
    expect(body).to_contain_text("15")
    meta = page.locator(key("evidence.meta"))
    expect(meta).to_contain_text("SOP-LEADTIME")
    expect(meta).to_contain_text("approved")
    highlighted = body.locator("span[class*='Background'], span[style*='background']")
    expect(highlighted.first).to_be_visible()
    expect(highlighted.first).to_contain_text("不直接適用標準交期")
    page.screenshot(path=screenshots / "evidence.png")

    # Approvals: approve the draft in the confirmation dialog, see the toast.
    open_page(page, "待核准 Approvals")
    card = main(page).locator("[class*='st-key-approvals-item-']").filter(has_text="Q42")
    expect(card).to_have_count(1)
    page.screenshot(path=screenshots / "approvals.png")
    card.locator("[class*='st-key-approvals-approve-']").get_by_role("button").click()
    dialog = page.get_by_test_id("stDialog")
    expect(dialog).to_be_visible()
    field(page, "decision.comment").fill("交期依 SOP v2，特殊檢驗待工程確認。")
    dialog.locator(key("decision.confirm")).get_by_role("button").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("Q42")
    expect(dialog).to_have_count(0)
    expect(
        main(page).locator("[class*='st-key-approvals-item-']").filter(has_text="Q42")
    ).to_have_count(0)

    log_out(page)


def test_tenant_b_finds_no_trace_of_q42(page: Page, console):
    # Straight to the task page's URL with the task in the query string, logged out: the page
    # does not exist for this session, only the login does.
    page.goto(f"{console.url}/task?task_id=Q42&task=Q42")
    page.get_by_test_id("stApp").wait_for()
    missing = page.get_by_role("dialog")
    expect(missing).to_contain_text("Page not found")
    page.keyboard.press("Escape")
    expect(missing).to_have_count(0)
    expect(field(page, "login.password")).to_be_visible()
    expect(main(page)).not_to_contain_text("SUS304")

    submit_login(page, "b.sales")
    # Negative checks only after the page has rendered, or they would pass vacuously.
    expect(main(page).get_by_role("heading").first).to_be_visible()
    settled(page)
    expect(main(page)).not_to_contain_text("SUS304")
    expect(main(page)).not_to_contain_text("任務 Q42")

    open_page(page, "任務收件匣 Inbox")
    expect(main(page)).to_contain_text("B-Q7")
    expect(page.locator(key("inbox.open.Q42"))).to_have_count(0)
    field(page, "inbox.search").fill("Q42")
    field(page, "inbox.search").press("Enter")
    expect(main(page)).to_contain_text("沒有符合的任務")

    open_page(page, "任務 Task")
    field(page, "task.pick").fill("Q42")
    field(page, "task.pick").press("Enter")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Not found")
    expect(main(page)).not_to_contain_text("SUS304")

    open_page(page, "證據 Evidence")
    field(page, "evidence.citation").fill("MAIL-42@1:0-10")
    field(page, "evidence.citation").press("Enter")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Not found")
    expect(main(page)).not_to_contain_text("SUS304")

    open_page(page, "待核准 Approvals")
    expect(main(page).get_by_role("heading", name="待核准 Approvals")).to_be_visible()
    expect(main(page).get_by_test_id("stAlertContentInfo")).to_be_visible()  # nothing waiting
    expect(main(page)).not_to_contain_text("Q42")
    log_out(page)

"""Each role's day in a real browser, from a shared link opened logged out, with a reload
half-way: sales takes Q42 to completed, an engineer works their own queue and records a
structured result. A tenant-B user finds no trace of Q42. Saves the README's screenshots."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.conftest import TIMEOUT_MS, Console
from tests.e2e.helpers import (
    approve_all_engineering,
    decide,
    field,
    key,
    log_out,
    main,
    open_page,
    settled,
    submit_login,
)

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"


def second_person(browser: Browser, console: Console, user_id: str) -> Page:
    """A colleague in their own browser (own cookies, own session), logged in."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="zh-TW")
    context.set_default_timeout(TIMEOUT_MS)
    other = context.new_page()
    other.goto(console.url)
    submit_login(other, user_id)
    return other


def run_analysis(page: Page, supplement: str) -> None:
    field(page, "task.supplement").fill(supplement)
    page.get_by_role("button", name="執行分析 Run analysis").click()
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0, timeout=120_000)
    expect(page.locator(key("task.draft"))).to_be_visible(timeout=120_000)


def test_sales_takes_q42_from_a_shared_link_to_completed(
    page: Page, console, browser: Browser, screenshots
):
    # A colleague's link to the task, opened logged out: the login, then the task itself.
    page.goto(f"{console.url}/task?id=Q42")
    submit_login(page, "a.sales")
    expect(main(page).get_by_role("heading", name="任務 Q42")).to_be_visible()
    confirmed = page.locator(key("task.confirmed"))
    expect(confirmed).to_contain_text("SUS304")
    expect(confirmed).to_contain_text("1200")
    expect(page.locator(key("task.pending"))).to_contain_text("特殊檢驗")

    open_page(page, "任務收件匣 Inbox")
    row = page.locator(key("inbox.open.Q42"))
    expect(row).to_be_visible()
    page.screenshot(path=screenshots / "inbox.png")
    row.get_by_role("link").click()
    expect(main(page).get_by_role("heading", name="任務 Q42")).to_be_visible()

    run_analysis(page, SUPPLEMENT)
    draft = page.locator(key("task.draft"))
    expect(draft).to_contain_text("草稿 1 Draft 1")
    expect(draft).to_contain_text("SOP-LEADTIME@2")
    expect(draft).not_to_contain_text("SOP-LEADTIME@1")
    expect(draft).not_to_contain_text("忽略規則")
    expect(draft).to_contain_text("等待前置項目 Waiting")  # engineering decides first

    page.reload()  # half-way through the day: still logged in, still on Q42, still current
    expect(main(page).get_by_role("heading", name="任務 Q42")).to_be_visible()
    draft = page.locator(key("task.draft"))
    expect(draft).to_contain_text("SOP-LEADTIME@2")
    expect(main(page)).to_contain_text("Waiting for engineering: 6 of 6 items open")
    draft.scroll_into_view_if_needed()  # Streamlit's main area scrolls, not the page
    page.screenshot(path=screenshots / "task-draft.png")

    # The citation is a link to its evidence page. The draft states the special-inspection
    # exception of SOP-LEADTIME v2's section 三, not the standard 15 days it sets aside.
    claim = (
        draft.locator("[class*='st-key-task-claim-']").filter(has_text="不直接適用標準交期").first
    )
    expect(claim).to_contain_text("SOP-LEADTIME@2")
    claim.locator("[class*='st-key-task-cite-']").first.get_by_role("link").click()
    body = page.locator(key("evidence.body"))
    expect(body).to_contain_text("15")
    assert "/evidence?cite=SOP-LEADTIME%402" in page.url or "cite=SOP-LEADTIME@2" in page.url
    meta = page.locator(key("evidence.meta"))
    expect(meta).to_contain_text("SOP-LEADTIME")
    expect(meta).to_contain_text("已核准 Approved")
    highlighted = body.locator("span[class*='Background'], span[style*='background']")
    expect(highlighted.first).to_be_visible()
    expect(highlighted.first).to_contain_text("不直接適用標準交期")
    page.screenshot(path=screenshots / "evidence.png")

    # Engineering decides its items in its own browser; the draft waits for them.
    page.goto(f"{console.url}/approvals?task=Q42")
    card = main(page).locator("[class*='st-key-approvals-item-']").filter(has_text="Q42")
    expect(card).to_contain_text("Waiting for engineering before it can be approved (6)")
    expect(
        card.locator("[class*='st-key-approvals-approve-']").get_by_role("button")
    ).to_be_disabled()
    engineer = second_person(browser, console, "a.engineer")
    try:
        approve_all_engineering(engineer, console, "Q42")
    finally:
        engineer.context.close()

    page.reload()
    card = main(page).locator("[class*='st-key-approvals-item-']").filter(has_text="Q42")
    expect(card).not_to_contain_text("Waiting for engineering")
    page.screenshot(path=screenshots / "approvals.png")
    decide(
        page,
        card.locator("[class*='st-key-approvals-approve-']").get_by_role("button"),
        "交期依 SOP v2，工程已確認。",
    )
    expect(page.get_by_test_id("stToast").last).to_contain_text("Q42")
    expect(main(page).locator("[class*='st-key-approvals-item-']")).to_have_count(0)

    # The task page tells the current truth: completed, the draft approved, decisions listed.
    page.goto(f"{console.url}/task?id=Q42")
    expect(main(page)).to_contain_text("Completed: nothing left to do.")
    expect(page.locator(key("task.draft"))).to_contain_text("已核准 Approved")
    timeline = page.locator(key("task.timeline"))
    expect(timeline).to_contain_text("交期依 SOP v2，工程已確認。")
    expect(timeline).to_contain_text(SUPPLEMENT)
    log_out(page)


def test_an_engineer_works_their_own_queue_from_a_shared_link(
    page: Page, console, browser: Browser, screenshots
):
    # Sales starts an analysis of Q49 (its procedure asks engineering to confirm items).
    sales = second_person(browser, console, "a.admin")
    try:
        sales.goto(f"{console.url}/task?id=Q49")
        run_analysis(sales, SUPPLEMENT)
    finally:
        sales.context.close()

    page.goto(f"{console.url}/engineering")  # the link a colleague pasted, logged out
    submit_login(page, "a.engineer")
    expect(main(page).get_by_role("heading", name="工程確認 Engineering queue")).to_be_visible()
    group = page.locator(key("engineering.task.Q49"))
    expect(group).to_be_visible()
    page.reload()  # still logged in, still their queue
    group = page.locator(key("engineering.task.Q49"))
    expect(group).to_be_visible()
    approvals = group.locator("[class*='st-key-engineering-approve-']")
    items = approvals.get_by_role("button")
    expect(items.first).to_be_visible()
    settled(page)
    # The item decided below, by its own key: a count read while the queue is still being drawn
    # can be short, so the test follows the item, not the number of items.
    item_key = next(
        name
        for name in (approvals.first.get_attribute("class") or "").split()
        if name.startswith("st-key-")
    )
    page.screenshot(path=screenshots / "engineering.png")
    decide(
        page,
        items.first,
        "可做三次元全檢。",
        days="3",
        method="CMM 全尺寸檢測",
        criteria="全尺寸 ±0.01 mm",
        equipment="Zeiss Contura",
    )
    expect(group.locator(f".{item_key}")).to_have_count(0)
    expect(page.get_by_test_id("stExpander").filter(has_text="Decided by me")).to_be_visible()

    # From the queue to the task and back: never stuck on one task.
    group.get_by_role("link", name="開啟任務 Open task Q49").click()
    expect(main(page).get_by_role("heading", name="任務 Q49")).to_be_visible()
    timeline = page.locator(key("task.timeline"))
    expect(timeline).to_contain_text("額外工作天 Extra working days: 3")
    expect(timeline).to_contain_text("CMM 全尺寸檢測")
    page.get_by_role("link", name="前往工程確認 Go to engineering").click()
    expect(main(page).get_by_role("heading", name="工程確認 Engineering queue")).to_be_visible()
    settled(page)
    log_out(page)


def test_tenant_b_finds_no_trace_of_q42(page: Page, console):
    # Straight to Q42's URL, logged out: the login form, nothing of the task.
    page.goto(f"{console.url}/task?id=Q42")
    expect(field(page, "login.password")).to_be_visible()
    expect(main(page)).not_to_contain_text("SUS304")

    submit_login(page, "b.sales")
    # The same URL after the login: not found, exactly like a task that does not exist.
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Not found: task Q42")
    expect(main(page)).not_to_contain_text("SUS304")
    page.goto(f"{console.url}/task?id=NO-SUCH-TASK")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text(
        "Not found: task NO-SUCH-TASK"
    )

    open_page(page, "任務收件匣 Inbox")
    expect(main(page)).to_contain_text("B-Q7")
    expect(page.locator(key("inbox.open.Q42"))).to_have_count(0)
    field(page, "inbox.search").fill("Q42")
    field(page, "inbox.search").press("Enter")
    expect(main(page)).to_contain_text("沒有符合的任務")

    page.goto(f"{console.url}/evidence?cite=MAIL-42@1:0-10")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Not found")
    expect(main(page)).not_to_contain_text("SUS304")

    page.goto(f"{console.url}/approvals?task=Q42")
    expect(page.get_by_test_id("stAlertContentError")).to_contain_text("Not found: task Q42")
    log_out(page)

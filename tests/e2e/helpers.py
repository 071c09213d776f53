"""Browser steps on the console, waiting on data-testid / st-key selectors, never on sleeps."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import PASSWORD, Console


def key(name: str) -> str:
    """The CSS selector Streamlit gives an element with `key=name` (class `st-key-...`)."""
    return ".st-key-" + re.sub(r"[^a-zA-Z0-9_-]", "-", name.strip())


def field(page: Page, name: str) -> Locator:
    """The input or text area of the widget with `key=name` (labels change, keys do not)."""
    return page.locator(key(name)).locator("input, textarea").first


def log_in(page: Page, console: Console, user_id: str) -> None:
    page.goto(console.url)
    page.get_by_test_id("stApp").wait_for()
    submit_login(page, user_id)


def submit_login(page: Page, user_id: str) -> None:
    """Fill and submit the login form the page shows."""
    field(page, "login.user_id").fill(user_id)
    field(page, "login.password").fill(PASSWORD)
    page.get_by_role("button", name="登入 Log in").click()
    page.locator(key("auth.logout")).wait_for()
    # The session cookie is written by the page just rendered; a navigation must carry it.
    page.wait_for_function("document.cookie.includes('memdesk_session=')")


def log_out(page: Page) -> None:
    page.locator(key("auth.logout")).get_by_role("button").click()
    field(page, "login.password").wait_for()
    expect(page.locator(key("auth.logout"))).to_have_count(0)


def open_page(page: Page, title: str) -> None:
    """Open a page from the sidebar navigation (same session, so the login is kept).

    The page is open when the address bar shows its URL. A click that lands while the run
    after the login is still switching to the role's home page can be overtaken by that switch
    (the console stays on the home page), so the link is clicked again until its page opens;
    a person would click again too."""
    link = page.get_by_test_id("stSidebar").get_by_role("link", name=title)
    path = urlsplit(link.get_attribute("href") or "").path
    opened = re.compile(re.escape(path) + r"(\?.*)?$")
    for _ in range(2):
        link.click()
        try:
            expect(page).to_have_url(opened, timeout=15_000)
            break
        except AssertionError:
            continue
    expect(page).to_have_url(opened)
    expect(page.get_by_test_id("stHeading").first).to_be_visible()


def main(page: Page) -> Locator:
    return page.get_by_test_id("stMain")


def settled(page: Page) -> None:
    """The script run has finished (Streamlit shows no 'running' indicator)."""
    expect(page.get_by_test_id("stStatusWidget")).to_have_count(0)


def fresh(page: Page, name: str) -> Locator:
    """The element with `key=name` once the current script run has rendered it (not stale)."""
    element = page.locator(key(name))
    expect(element).to_have_attribute("data-stale", "false")
    return element


def choose(page: Page, name: str, option: str) -> None:
    """Pick `option` in the selectbox with `key=name`, once the current run has rendered it.

    The selectbox is scrolled to the middle of the view first, and the scroll is let reach the
    page (two animation frames) before the click. A click's own scroll-into-view only brings it
    to the top edge, under the console's sticky header; focusing it there scrolls the main
    container again, and the open list (react-aria) closes on any scroll, so the options would
    never appear. A user clicks a selectbox they can see, so they do not hit this.
    """
    combobox = fresh(page, name).get_by_role("combobox")
    combobox.evaluate("element => element.scrollIntoView({block: 'center'})")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    combobox.click()
    page.get_by_role("option", name=option).first.click()


def decide(page: Page, button: Locator, comment: str, **result: str) -> None:
    """Click an approve/reject button, fill the confirmation dialog, confirm, see the toast."""
    settled(page)
    expect(page.locator("[data-stale='true']")).to_have_count(0)  # not a button of a past run
    button.click()
    dialog = page.get_by_test_id("stDialog")
    expect(dialog).to_be_visible()
    field(page, "decision.comment").fill(comment)
    for name, value in result.items():
        field(page, f"decision.{name}").fill(value)
    dialog.locator(key("decision.confirm")).get_by_role("button").click()
    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("stToast").last).to_be_visible()


def approve_all_engineering(page: Page, console: Console, task_id: str) -> None:
    """As the engineer logged in on `page`: approve every open item of `task_id`."""
    page.goto(f"{console.url}/engineering?task={task_id}")
    expect(main(page).get_by_role("heading", name="工程確認 Engineering queue")).to_be_visible()
    approve = main(page).locator("[class*='st-key-engineering-approve-']")
    nothing = main(page).get_by_test_id("stAlertContentInfo").filter(has_text="Nothing is waiting")
    while True:
        # Either an item to approve or the empty queue, once this run has drawn the page.
        expect(approve.first.or_(nothing)).to_be_visible()
        settled(page)
        expect(page.locator("[data-stale='true']")).to_have_count(0)
        if nothing.count():
            break
        # Each item by its own key: a count read while a run is still drawing could be short.
        item = next(
            name
            for name in (approve.first.get_attribute("class") or "").split()
            if name.startswith("st-key-engineering-approve-")
        )
        decide(page, page.locator(f".{item}").get_by_role("button"), "工程確認 confirmed")
        expect(page.locator(f".{item}")).to_have_count(0)
    expect(main(page).get_by_test_id("stAlertContentInfo").first).to_contain_text("Nothing")

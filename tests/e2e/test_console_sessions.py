"""Sessions that survive a reload, links that survive a login, and a console that asks nothing
of any other origin: in a real browser against `streamlit run app.py`."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, Request, expect

from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.helpers import field, key, log_in, log_out, main, open_page, submit_login

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]

COOKIE = "memdesk_session"


def logged_in_as(page: Page, display: str) -> None:
    expect(page.get_by_test_id("stSidebar")).to_contain_text(display)
    expect(page.locator(key("auth.logout"))).to_be_visible()


def session_cookie(page: Page) -> dict:
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert COOKIE in cookies, sorted(cookies)
    return dict(cookies[COOKIE])


def test_a_reload_a_new_tab_and_a_typed_url_stay_logged_in(page: Page, console):
    log_in(page, console, "a.sales")
    expect(main(page).get_by_role("heading", name="任務收件匣 Inbox")).to_be_visible()
    page.wait_for_function(f"document.cookie.includes('{COOKIE}=')")
    cookie = session_cookie(page)
    assert cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert cookie["expires"] > 0  # bounded by the session's lifetime, not the browser's

    page.reload()
    logged_in_as(page, "租戶 A")
    expect(main(page).get_by_role("heading", name="任務收件匣 Inbox")).to_be_visible()

    tab = page.context.new_page()
    tab.goto(f"{console.url}/task?id=Q42")
    expect(main(tab).get_by_role("heading", name="任務 Q42")).to_be_visible()
    logged_in_as(tab, "租戶 A")
    tab.close()

    page.goto(f"{console.url}/evidence?cite=SOP-LEADTIME@2:0-20")  # typed into the address bar
    expect(page.locator(key("evidence.body"))).to_contain_text("15")


def test_a_shared_link_opened_logged_out_logs_in_and_opens_its_object(page: Page, console):
    page.goto(f"{console.url}/task?id=Q42")
    field(page, "login.password").wait_for()
    expect(main(page)).not_to_contain_text("SUS304")
    submit_login(page, "a.sales")
    expect(main(page).get_by_role("heading", name="任務 Q42")).to_be_visible()
    expect(page.locator(key("task.confirmed"))).to_contain_text("SUS304")
    assert urlsplit(page.url).path.endswith("/task") and "id=Q42" in page.url


def test_logging_out_revokes_the_session_on_the_server(page: Page, console, browser: Browser):
    log_in(page, console, "a.owner")
    page.wait_for_function(f"document.cookie.includes('{COOKIE}=')")
    stolen = session_cookie(page)
    log_out(page)
    page.wait_for_function(f"!document.cookie.includes('{COOKIE}=')")
    page.reload()
    expect(field(page, "login.password")).to_be_visible()

    # The old cookie, replayed from another browser, opens nothing: the server revoked it.
    other = browser.new_context()
    other.set_default_timeout(TIMEOUT_MS)
    try:
        other.add_cookies([stolen])
        replay = other.new_page()
        replay.goto(f"{console.url}/knowledge")
        expect(field(replay, "login.password")).to_be_visible()
        expect(replay.locator(key("auth.logout"))).to_have_count(0)
    finally:
        other.close()


def test_the_console_requests_nothing_outside_its_own_origin(page: Page, console):
    origin = urlsplit(console.url)
    elsewhere: list[str] = []

    def watch(request: Request) -> None:
        url = urlsplit(request.url)
        if url.scheme in ("data", "blob"):
            return
        if (url.scheme, url.netloc) not in (("http", origin.netloc), ("ws", origin.netloc)):
            elsewhere.append(request.url)

    page.on("request", watch)
    log_in(page, console, "a.sales")
    for title in (
        "任務收件匣 Inbox",
        "待核准 Approvals",
        "來源衝突 Conflicts",
        "記憶庫 Memory Bank",
    ):
        open_page(page, title)
    page.goto(f"{console.url}/task?id=Q42")
    expect(main(page).get_by_role("heading", name="任務 Q42")).to_be_visible()
    page.goto(f"{console.url}/evidence?cite=SOP-LEADTIME@2:0-20")
    expect(page.locator(key("evidence.body"))).to_contain_text("15")
    page.wait_for_load_state("networkidle")
    assert elsewhere == []

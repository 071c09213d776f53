"""The real server runs with .streamlit/config.toml: XSRF cookie issued, no wildcard CORS."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.helpers import field

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_the_browser_gets_an_xsrf_cookie(page: Page, console):
    page.goto(console.url)
    field(page, "login.user_id").wait_for()
    names = {cookie["name"] for cookie in page.context.cookies()}
    assert "_streamlit_xsrf" in names


def test_another_origin_is_not_allowed_by_cors(console):
    response = httpx.get(
        f"{console.url}/_stcore/health", headers={"Origin": "http://attacker.example"}
    )
    assert response.status_code == 200
    allowed = response.headers.get("access-control-allow-origin")
    assert allowed not in ("*", "http://attacker.example")

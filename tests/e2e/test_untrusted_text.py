"""Document text is data: HTML, Markdown links/images and `$` math in an approved document's body
reach the browser as literal text. Nothing runs, nothing is fetched from the attacker's host."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, Request, expect

from tests.e2e import xss
from tests.e2e.helpers import field, key, log_in, open_page

# One xdist group: the whole browser tier shares one seeded server on one worker.
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_a_hostile_document_renders_as_plain_text(page: Page, console):
    requested: list[str] = []

    def watch(request: Request) -> None:
        requested.append(request.url)

    page.on("request", watch)
    page.add_init_script("window.__xss = undefined;")
    log_in(page, console, "a.sales")
    open_page(page, "證據 Evidence")
    citation = field(page, "evidence.citation")
    citation.fill(xss.citation())
    citation.press("Enter")

    body = page.locator(key("evidence.body"))
    meta = page.locator(key("evidence.meta"))
    expect(body).to_contain_text("All of the above is text.")  # the document has rendered
    expect(meta).to_contain_text("Approved")
    expect(meta).to_contain_text("是 yes")  # eligible: it may back a claim today

    # Nothing ran and nothing was fetched: checked first, whatever the rendering looks like.
    assert page.evaluate("window.__xss") is None
    hosts = {urlsplit(url).hostname for url in requested}
    assert "127.0.0.1" in hosts  # the watcher saw the console's own traffic
    assert xss.ATTACKER_HOST not in hosts
    # `<img src=x>` would fetch a relative URL from the console itself.
    assert [url for url in requested if urlsplit(url).path.endswith("/x")] == []

    # No element the payloads would create exists in the rendered document ...
    assert body.locator("img").count() == 0
    assert body.locator("a").count() == 0
    assert body.locator("script").count() == 0
    assert body.locator(".katex, math").count() == 0
    assert meta.locator("b").filter(has_text="bold").count() == 0
    # ... and a person reads each payload literally.
    for payload in xss.PAYLOADS:
        expect(body).to_contain_text(payload)
    expect(meta).to_contain_text(xss.TITLE)
    # The cited payload is the highlighted span, still as text.
    expect(body.get_by_text(xss.PAYLOADS[0]).first).to_be_visible()

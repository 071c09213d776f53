"""The knowledge owner in a real browser: a submitted SOP version is reviewed and published."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import choose, fresh, key, log_in, main, open_page, settled

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_owner_adopts_reviews_approves_and_publishes_the_packing_sop(
    page: Page, console, screenshots
):
    log_in(page, console, "a.owner")
    open_page(page, "知識審核 Knowledge")
    page.locator(key("knowledge.adopt")).get_by_role("button").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("added to the queue")
    choose(page, "knowledge.pick", "SOP-PACKING")
    inline = page.locator(key("knowledge.inline"))
    expect(inline).to_contain_text("VCI")  # the inserted words, highlighted in the inline diff
    expect(main(page).get_by_test_id("stDataFrame")).to_be_visible()  # side-by-side rows
    page.screenshot(path=screenshots / "knowledge-review.png")

    fresh(page, "knowledge.approve").get_by_role("button").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("已核准 Approved")
    settled(page)
    page.screenshot(path=screenshots / "knowledge-approved.png")
    # The page stays scrolled down at the next pending candidate; the status picker is above.
    choose(page, "knowledge.status", "已核准待發布 Approved")
    fresh(page, "knowledge.publish").get_by_role("button").click()
    status = main(page).get_by_test_id("stExpander").filter(has_text="已發布 Published")
    expect(status).to_contain_text("SOP-PACKING@2")
    expect(main(page).get_by_test_id("stAlertContentSuccess")).to_contain_text("superseded v1")
    page.screenshot(path=screenshots / "knowledge-published.png")

"""The knowledge owner's day in a real browser, from a shared link opened logged out with a
reload half-way: the submitted packing SOP is edited (its draft title and approval note go),
approved, published as a new version, and that one version is revoked through the dialog."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import choose, field, fresh, key, log_out, main, settled, submit_login

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("browser")]


def test_owner_edits_approves_publishes_and_revokes_one_version(page: Page, console, screenshots):
    page.goto(f"{console.url}/knowledge")  # the link in a colleague's message, logged out
    submit_login(page, "a.owner")
    expect(main(page).get_by_role("heading", name="知識審核 Knowledge")).to_be_visible()
    waiting = main(page).get_by_test_id("stMetric")
    expect(waiting.filter(has_text="送審中的文件版本 Submitted versions")).to_contain_text("2")

    page.locator(key("knowledge.adopt")).get_by_role("button").click()
    expect(page.get_by_test_id("stToast")).to_contain_text("added to the queue")
    expect(waiting.filter(has_text="待審候選 Candidates to review")).to_contain_text("2")
    choose(page, "knowledge.pick", "SOP-PACKING")
    candidate = page.locator(key("knowledge.candidate"))
    expect(candidate).to_contain_text("（修訂草案）")
    page.wait_for_url(lambda url: "candidate=" in url)

    page.reload()  # half-way: still logged in, still on this candidate
    candidate = page.locator(key("knowledge.candidate"))
    expect(candidate).to_contain_text("出貨包裝作業標準（修訂草案）")
    expect(page.locator(key("knowledge.inline"))).to_contain_text("VCI")

    # Edit before publishing: the draft marker leaves the title, the approval note the body.
    candidate.get_by_text("編輯標題與內文 Edit title and body").click()
    # The boxes are filled from the candidate once the run that opened them is drawn: read
    # them only then (a value read earlier is empty, and an empty title is refused).
    title = field(page, "knowledge.edit_title")
    expect(title).to_have_value("出貨包裝作業標準（修訂草案）")
    title.fill(title.input_value().replace("（修訂草案）", ""))
    body = field(page, "knowledge.edit_body")
    expect(body).to_have_value(re.compile("待知識負責人核准"))
    kept = [line for line in body.input_value().splitlines() if "待知識負責人核准" not in line]
    body.fill("\n".join(kept).rstrip())
    field(page, "knowledge.edit_note").fill("去掉草案標記與核准說明")
    page.get_by_role("button", name="儲存為新修訂 Save as a new revision").click()
    revision = page.locator(key("knowledge.revision"))
    expect(revision).to_contain_text("本次修訂 This revision's edit")
    expect(revision).to_contain_text("待知識負責人核准")  # struck out in the edit's diff
    expect(page.locator(key("knowledge.candidate"))).to_contain_text("修訂 revision 2")
    settled(page)
    revision.scroll_into_view_if_needed()  # Streamlit's main area scrolls, not the page
    page.screenshot(path=screenshots / "knowledge.png")

    fresh(page, "knowledge.approve").get_by_role("button").click()
    expect(page.get_by_test_id("stToast").last).to_contain_text("Approved")
    fresh(page, "knowledge.publish").get_by_role("button").click()
    # The edited text is a new version (v3); the submitted v2 is closed as published as v3.
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text(
        "已發布 Published SOP-PACKING@3", timeout=180_000
    )

    # Revoke one version: the dialog names it and what is purged.
    page.get_by_role("tab", name="撤銷 Revoke").click()
    choose(page, "knowledge.revoke_doc", "SOP-PACKING")
    version = fresh(page, "knowledge.revoke_version.SOP-PACKING").get_by_role("combobox")
    expect(version).to_have_value("v3")  # the current version, not all of them
    fresh(page, "knowledge.revoke").get_by_role("button").click()
    dialog = page.get_by_test_id("stDialog")
    expect(dialog).to_contain_text("SOP-PACKING@3")
    expect(dialog).not_to_contain_text("SOP-PACKING@1")
    expect(dialog).to_contain_text("vectors and cache entries")
    field(page, "knowledge.revoke_reason").fill("包裝規範重新檢討")
    dialog.locator(key("knowledge.revoke_confirm")).get_by_role("button").click()
    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("stToast").last).to_contain_text(
        "Revoked SOP-PACKING v3; purge verified"
    )
    log_out(page)

"""Approvals: the drafts waiting for this person's decision (approve / reject with a comment)."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui

principal = _session.require_page("approvals")
_ui.flush_toast()
st.title("待核准 Approvals")
st.caption(
    "核准草稿不會寄信、下單或修改 SOP。Approving a draft never sends mail, places an order "
    "or changes an SOP."
)
cards = _ui.or_stop(lambda: _session.services().desk.approval_queue(principal, kind="draft"))
if not cards:
    st.info("目前沒有待核准的草稿。No drafts are waiting for you.")
for card in cards:
    _ui.approval_card(card, key_prefix="approvals")
_ui.decision_dialog()

"""Engineering queue: items a draft needs engineering to confirm (e.g. special inspection)."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui

principal = _session.require_page("engineering")
_ui.flush_toast()
st.title("工程確認 Engineering queue")
st.caption("逐項核准或退回，並附上意見。Approve or reject each item with a comment.")
cards = _ui.or_stop(lambda: _session.services().desk.approval_queue(principal, kind="engineering"))
if not cards:
    st.info("目前沒有待確認的項目。Nothing is waiting for engineering.")
for card in cards:
    _ui.approval_card(card, key_prefix="engineering")
_ui.decision_dialog()

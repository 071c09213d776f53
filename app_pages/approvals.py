"""Approvals (/approvals, /approvals?task=Q42): the drafts waiting for this person's decision."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from services.core.errors import MemdeskError, NotFound

principal = _session.require_page("approvals")
_ui.flush_toast()
st.title("待核准 Approvals")
st.caption(
    "核准草稿不會寄信、下單或修改 SOP。Approving a draft never sends mail, places an order "
    "or changes an SOP. 草稿在工程項目皆核准後才能核准。A draft can be approved once every "
    "engineering item of it is approved."
)
task_id = _ui.query("task")
try:
    cards = _session.services().desk.approval_queue(principal, kind="draft", task_id=task_id)
except NotFound:
    _ui.not_found("task", task_id or "")
    st.stop()
except MemdeskError as exc:
    _ui.show_error(exc)
    st.stop()
if task_id:
    st.caption(f"任務 Task {_ui.escape(task_id)}")
    st.page_link("app_pages/approvals.py", label="全部待核准 All approvals", icon=":material/list:")
if not cards:
    st.info("目前沒有待核准的草稿。No drafts are waiting for you.")
for card in cards:
    _ui.approval_card(card, key_prefix="approvals")
_ui.decision_dialog()

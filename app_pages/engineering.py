"""Engineering queue (/engineering, /engineering?task=Q42): the engineer's own work list.

Every item waiting for engineering, grouped by task with a link to the task, decided one by one
with a comment and a structured result; below, what this engineer decided recently.
"""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from services.core.errors import MemdeskError, NotFound

principal = _session.require_page("engineering")
services = _session.services()
_ui.flush_toast()
st.title("工程確認 Engineering queue")
st.caption(
    "逐項核准或退回並附上意見；核准時可記錄額外工作天、方法、允收標準與設備。Approve or reject "
    "each item with a comment; an approval may record extra working days, method, acceptance "
    "criteria and equipment, which the task's next run uses as confirmed facts."
)
task_id = _ui.query("task")
try:
    cards = services.desk.approval_queue(principal, kind="engineering", task_id=task_id)
except NotFound:
    _ui.not_found("task", task_id or "")
    st.stop()
except MemdeskError as exc:
    _ui.show_error(exc)
    st.stop()

by_task: dict[str, list] = {}
for card in cards:
    by_task.setdefault(card.approval.task_id, []).append(card)
st.markdown(
    f"**我的佇列 My queue**: {len(cards)} 項 items · {len(by_task)} 件任務 tasks"
    + (f" · 任務 task {_ui.escape(task_id)}" if task_id else "")
)
if task_id:
    st.page_link("app_pages/engineering.py", label="全部項目 All items", icon=":material/list:")
if not cards:
    st.info("目前沒有待確認的項目。Nothing is waiting for engineering.")
for shown_task, task_cards in by_task.items():
    with st.container(border=True, key=f"engineering.task.{shown_task}"):
        st.subheader(f"任務 {_ui.escape(shown_task)} · {len(task_cards)} 項 items")
        _ui.task_link(shown_task, label=f"開啟任務 Open task {shown_task}")
        for card in task_cards:
            _ui.approval_card(card, key_prefix="engineering", task_link_shown=False)

decided = _ui.or_stop(lambda: services.desk.decided_by_me(principal, limit=20))
if decided:
    with st.expander(f"我最近的決定 Decided by me ({len(decided)})", expanded=False):
        for item in decided:
            when = item.decided_at.strftime("%Y-%m-%d %H:%M") if item.decided_at else "—"
            result = _labels.result(item.result)
            st.markdown(
                f"`{when}` {_ui.badge_md(item.status)} **{_ui.escape(item.task_id)}** "
                f"{_ui.escape(item.item_key)} — {_ui.escape(item.comment or '')}"
                + (f" · {_ui.escape(result)}" if result else "")
            )
            _ui.task_link(item.task_id, label=f"{_labels.kind('engineering')} → {item.task_id}")
_ui.decision_dialog()

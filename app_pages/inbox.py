"""Task inbox: the tenant's tasks by last activity, filtered and searched, paged in SQL."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys
from services.contracts.task_state import TaskStatus

PAGE_SIZE = 25

principal = _session.require_page("inbox")
tasks = _session.services().tasks

st.title("任務收件匣 Inbox")
counts = tasks.status_counts(principal)
left, right = st.columns([2, 1])
statuses = left.multiselect(
    "狀態 Status", [status.value for status in TaskStatus], key="inbox.status"
)
search = right.text_input("搜尋 Search (task id, next step)", key="inbox.search").strip()

# A new filter starts from the first page.
filters = [list(statuses), search]
if st.session_state.get(Keys.INBOX_FILTERS) != list(filters):
    st.session_state[Keys.INBOX_FILTERS] = list(filters)
    st.session_state[Keys.INBOX_PAGE] = 0
page_number = int(st.session_state.get(Keys.INBOX_PAGE, 0))

page = tasks.search(
    principal,
    statuses=statuses or None,
    search=search or None,
    limit=PAGE_SIZE,
    offset=page_number * PAGE_SIZE,
)
if page.total == 0:
    st.info("沒有符合的任務。No tasks match.")
    st.stop()

st.caption(
    f"{page.total} 件任務 tasks · 第 {page_number + 1} 頁 page · "
    + " · ".join(f"{status} {count}" for status, count in sorted(counts.items()))
)
header = st.columns([1, 1.4, 0.6, 2, 2.4, 1.6, 1.2])
for column, label in zip(
    header,
    [
        "任務 Task",
        "狀態 Status",
        "版次 Rev",
        "待辦 Pending",
        "下一步 Next step",
        "最後活動 Last activity",
        "",
    ],
    strict=True,
):
    if label:
        column.markdown(f"**{label}**")
for record in page.items:
    state = record.state
    row = st.columns([1, 1.4, 0.6, 2, 2.4, 1.6, 1.2], vertical_alignment="center")
    row[0].markdown(_ui.escape(state.task_id))
    row[1].markdown(_ui.badge_md(state.status.value))
    row[2].markdown(str(state.revision))
    row[3].markdown(_ui.escape(", ".join(state.pending) or "—"))
    row[4].markdown(_ui.escape(state.next_step or "—"))
    row[5].markdown(state.updated_at.strftime("%Y-%m-%d %H:%M") if state.updated_at else "—")
    with row[6]:
        _ui.task_link(state.task_id, label="開啟 Open", key=f"inbox.open.{state.task_id}")

pages_total = (page.total + PAGE_SIZE - 1) // PAGE_SIZE
previous, _, following = st.columns([1, 4, 1])
if previous.button("上一頁 Previous", key="inbox.previous", disabled=page_number == 0):
    st.session_state[Keys.INBOX_PAGE] = page_number - 1
    st.rerun()
if following.button("下一頁 Next", key="inbox.next", disabled=page_number + 1 >= pages_total):
    st.session_state[Keys.INBOX_PAGE] = page_number + 1
    st.rerun()

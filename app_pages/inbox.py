"""Task inbox: the tenant's tasks by last activity, filtered and searched, paged in SQL.

Each row names the task's customer and part (from its confirmed fields), what is pending, what
happens next and when it is due (its confirmed due date, else its last activity), and links to
the task's own URL; the counts follow the search.
"""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from app_pages._session import Keys
from services.contracts.task_state import TaskState, TaskStatus
from services.desk.due import due_or_activity

PAGE_SIZE = 25
COLUMNS = [0.8, 1.1, 1.2, 1.4, 1.8, 2.2, 1.3, 1.0]

principal = _session.require_page("inbox")
tasks = _session.services().tasks

st.title("任務收件匣 Inbox")
left, right = st.columns([2, 1])
statuses = left.multiselect(
    "狀態 Status",
    [status.value for status in TaskStatus],
    format_func=_labels.status,
    key="inbox.status",
)
search = right.text_input(
    "搜尋 Search", key="inbox.search", placeholder=_labels.placeholder("search")
).strip()

# A new filter starts from the first page.
filters = [list(statuses), search]
if st.session_state.get(Keys.INBOX_FILTERS) != list(filters):
    st.session_state[Keys.INBOX_FILTERS] = list(filters)
    st.session_state[Keys.INBOX_PAGE] = 0
page_number = int(st.session_state.get(Keys.INBOX_PAGE, 0))

counts = tasks.status_counts(principal, search=search or None)
page = tasks.search(
    principal,
    statuses=statuses or None,
    search=search or None,
    limit=PAGE_SIZE,
    offset=page_number * PAGE_SIZE,
)
st.caption(
    f"{page.total} 件任務 tasks · 第 {page_number + 1} 頁 page · "
    + " · ".join(
        f"{_labels.status(status)} {count}"
        for status, count in sorted(counts.items())
        if not statuses or status in statuses
    )
)
if page.total == 0:
    st.info("沒有符合的任務。No tasks match.")
    st.stop()


def _first(state: TaskState, *keys: str) -> str:
    """The first of these confirmed fields the task has (customer, part), or a dash."""
    for key in keys:
        value = state.confirmed.get(key)
        if value not in (None, ""):
            return str(value)
    return "—"


def _when(state: TaskState) -> str:
    """The due date when the task has one (marked when it has passed), else its last activity."""
    when = due_or_activity(state, today=today)
    if when.kind == "due":
        shown = when.due.isoformat() if when.due else _ui.escape(when.written)
        overdue = " :red-badge[逾期 Overdue]" if when.overdue else ""
        return f"到期 Due **{shown}**{overdue}"
    if when.last_activity is None:
        return _labels.placeholder("none")
    return when.last_activity.strftime("%Y-%m-%d %H:%M")


today = _session.services().clock.now().date()
header = st.columns(COLUMNS)
for column, label in zip(
    header,
    [
        "任務 Task",
        "客戶 Customer",
        "料號 Part",
        "狀態 Status",
        "待辦 Pending",
        "下一步 Next step",
        "到期／活動 Due / activity",
        "",
    ],
    strict=True,
):
    if label:
        column.markdown(f"**{label}**")
for record in page.items:
    state = record.state
    row = st.columns(COLUMNS, vertical_alignment="center")
    row[0].markdown(_ui.escape(state.task_id))
    row[1].markdown(_ui.escape(_first(state, "customer_id", "customer")))
    row[2].markdown(_ui.escape(_first(state, "part_number", "drawing", "material")))
    row[3].markdown(_ui.badge_md(state.status.value))
    row[4].markdown(_ui.escape(_labels.fields(list(state.pending))))
    row[5].markdown(_ui.escape(state.next_step or "—"))
    row[6].markdown(_when(state))
    with row[7]:
        _ui.task_link(state.task_id, label="開啟 Open", key=f"inbox.open.{state.task_id}")

pages_total = (page.total + PAGE_SIZE - 1) // PAGE_SIZE
previous, _, following = st.columns([1, 4, 1])
if previous.button("上一頁 Previous", key="inbox.previous", disabled=page_number == 0):
    st.session_state[Keys.INBOX_PAGE] = page_number - 1
    st.rerun()
if following.button("下一頁 Next", key="inbox.next", disabled=page_number + 1 >= pages_total):
    st.session_state[Keys.INBOX_PAGE] = page_number + 1
    st.rerun()

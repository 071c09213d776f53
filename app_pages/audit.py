"""Audit log: filter by actor, action, target and dates; paged in SQL; CSV export (audited)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys
from services.records.audit import AuditQuery

PAGE_SIZE = 50

principal = _session.require_page("audit")
log = _session.services().audit

st.title("稽核紀錄 Audit log")
st.caption(
    f"租戶 tenant {_ui.escape(principal.tenant_id)} · 只能新增，不能修改或刪除。"
    "Append-only: entries are never changed or deleted."
)

actors = _ui.or_stop(lambda: log.actors(principal))
actions = _ui.or_stop(lambda: log.actions(principal))
with st.container(border=True, key="audit.filters"):
    left, middle, right = st.columns(3)
    actor = left.selectbox("執行者 Actor", actors, index=None, key="audit.actor")
    action = middle.selectbox("動作 Action", actions, index=None, key="audit.action")
    target = right.text_input(
        "對象 Target (id 開頭 starts with)", key="audit.target", placeholder="Q42"
    ).strip()
    first, last, _ = st.columns(3)
    since = first.date_input("從 From (UTC)", value=None, key="audit.since")
    until = last.date_input("到 To, inclusive (UTC)", value=None, key="audit.until")

query = AuditQuery(
    actor=actor,
    action=action,
    target=target or None,
    since=datetime.combine(since, time.min, tzinfo=UTC) if since else None,
    # The day picked as "to" is included: the range ends at the start of the next day.
    until=datetime.combine(until + timedelta(days=1), time.min, tzinfo=UTC) if until else None,
)

# A new filter starts from the first page.
filters = query.model_dump_json()
if st.session_state.get(Keys.AUDIT_FILTERS) != filters:
    _session.remember(Keys.AUDIT_FILTERS, filters)
    _session.remember(Keys.AUDIT_PAGE, 0)
page_number = int(st.session_state.get(Keys.AUDIT_PAGE, 0))

page = _ui.or_stop(
    lambda: log.page(principal, query, limit=PAGE_SIZE, offset=page_number * PAGE_SIZE)
)
pages_total = max(1, (page.total + PAGE_SIZE - 1) // PAGE_SIZE)

summary, export = st.columns([3, 1], vertical_alignment="center")
summary.caption(f"{page.total} 筆紀錄 entries · 第 {page_number + 1} / {pages_total} 頁 page")
export.download_button(
    "匯出 CSV Export",
    # Built only when clicked (on its own thread), so each real export leaves one audit entry.
    data=lambda: log.export_csv(principal, query).content,
    file_name=f"memdesk-audit-{principal.tenant_id}.csv",
    mime="text/csv",
    on_click="ignore",
    icon=":material/download:",
    key="audit.export",
    disabled=page.total == 0,
)

if page.total == 0:
    st.info("沒有符合的紀錄。No entries match.")
    st.stop()

# st.dataframe shows cells as plain text: ids and details from imports are never Markdown here.
st.dataframe(
    [
        {
            "#": entry.id,
            "時間 at (UTC)": entry.at.strftime("%Y-%m-%d %H:%M:%S"),
            "執行者 actor": entry.actor,
            "動作 action": entry.action,
            "類型 type": entry.subject_type,
            "對象 target": entry.subject_id,
            "之前 before": entry.before_ref or "",
            "之後 after": entry.after_ref or "",
            "細節 detail": json.dumps(entry.detail, ensure_ascii=False, default=str),
        }
        for entry in page.items
    ],
    hide_index=True,
    width="stretch",
    key="audit.table",
)

previous, _, following = st.columns([1, 4, 1])
if previous.button("上一頁 Previous", key="audit.previous", disabled=page_number == 0):
    _session.remember(Keys.AUDIT_PAGE, page_number - 1)
    st.rerun()
if following.button("下一頁 Next", key="audit.next", disabled=page_number + 1 >= pages_total):
    _session.remember(Keys.AUDIT_PAGE, page_number + 1)
    st.rerun()

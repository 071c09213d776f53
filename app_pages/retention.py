"""Admins: retention periods, legal holds (set and lifted with a reason), a purge preview."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui

RECORD_TYPES = {"task": "任務 Task", "document": "文件 Document", "memory": "記憶 Memory"}

principal = _session.require_page("retention")
retention = _session.services().retention
_ui.flush_toast()
st.title("保存與法律保全 Retention & holds")
st.caption(
    "法律保全中的紀錄、未完成的任務與稽核紀錄永不自動清除。Held records, incomplete tasks and "
    "the audit log are never removed automatically."
)

policies = _ui.or_stop(lambda: retention.policies(principal))
st.subheader("保存期間 Retention periods")
task_col, document_col = st.columns(2)
with task_col:
    task_days = st.number_input(
        "已完成任務保存天數 Completed tasks (days)",
        min_value=1,
        value=policies.task_days,
        key="retention.task_days",
    )
    if st.button("儲存 Save", key="retention.save_task"):
        with _ui.domain_errors():
            retention.set_policy(principal, record_type="task", days=int(task_days))
            _ui.toast_next("已更新 Updated")
            st.rerun()
with document_col:
    keep = st.checkbox(
        "永久保存已取代／撤銷的文件版本 Keep finished document versions for good",
        value=policies.document_days is None,
        key="retention.keep_documents",
    )
    document_days = st.number_input(
        "文件版本保存天數 Finished document versions (days)",
        min_value=1,
        value=policies.document_days or 365,
        disabled=keep,
        key="retention.document_days",
    )
    if st.button("儲存 Save", key="retention.save_document"):
        with _ui.domain_errors():
            days = None if keep else int(document_days)
            retention.set_policy(principal, record_type="document", days=days)
            _ui.toast_next("已更新 Updated")
            st.rerun()

st.subheader("法律保全 Legal holds")
holds = _ui.or_stop(lambda: retention.holds(principal))
if holds:
    st.dataframe(
        [
            {
                "#": hold.id,
                "類型 type": hold.record_type,
                "紀錄 record": hold.record_id,
                "原因 reason": hold.reason,
                "設定者 set by": hold.set_by,
                "時間 set at": hold.set_at.isoformat(timespec="minutes"),
            }
            for hold in holds
        ],
        hide_index=True,
        key="retention.holds",
    )
else:
    st.info("目前沒有法律保全。No active legal holds.")

with st.form("retention.set_hold"):
    record_type = st.selectbox(
        "類型 Type", list(RECORD_TYPES), format_func=RECORD_TYPES.__getitem__, key="retention.type"
    )
    record_id = st.text_input("紀錄 Record id (DOC or DOC@VERSION)", key="retention.record")
    reason = st.text_input("原因 Reason", key="retention.reason")
    if st.form_submit_button("設定保全 Set hold"):
        with _ui.domain_errors():
            retention.set_hold(
                principal, record_type=record_type, record_id=record_id.strip(), reason=reason
            )
            _ui.toast_next("已設定保全 Hold set")
            st.rerun()

if holds:
    with st.form("retention.lift_hold"):
        # A dict's lookup, not a lambda: session state must stay picklable.
        hold_labels = {h.id: f"#{h.id} {h.record_type} {h.record_id}" for h in holds}
        hold_id = st.selectbox(
            "保全 Hold",
            list(hold_labels),
            format_func=hold_labels.__getitem__,
            key="retention.lift_id",
        )
        lift_reason = st.text_input("解除原因 Reason to lift", key="retention.lift_reason")
        if st.form_submit_button("解除保全 Lift hold"):
            with _ui.domain_errors():
                retention.lift_hold(principal, int(hold_id), reason=lift_reason)
                _ui.toast_next("已解除保全 Hold lifted")
                st.rerun()

st.subheader("到期清除預覽 Purge preview")
st.caption("清除由排程執行 `memdesk purge-expired`。Purging runs as `memdesk purge-expired`.")
if st.button("預覽 Preview (dry run)", key="retention.preview"):
    with _ui.domain_errors():
        report = retention.preview(principal)
        for kind in sorted(set(report.removed) | set(report.kept_on_hold)):
            removed, kept = report.removed.get(kind, []), report.kept_on_hold.get(kind, [])
            st.markdown(
                f"**{_ui.escape(kind)}**: 將清除 would remove {len(removed)} · "
                f"保全中 kept under hold {len(kept)}"
            )
            for key in removed:
                st.caption(_ui.escape(key))

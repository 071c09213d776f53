"""Task page: confirmed fields, pending items, a supplement and run, the cited draft, timeline."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys
from services.contracts.task_state import TERMINAL
from services.core.errors import MemdeskError
from services.core.policy import Permission, allows

principal = _session.require_page("task")
services = _session.services()

task_id = st.session_state.get(Keys.TASK_ID)
if not task_id:
    st.title("任務 Task")
    chosen = st.text_input("任務編號 Task id", key="task.pick").strip()
    if not chosen:
        st.info("從收件匣開啟任務，或輸入任務編號。Open a task from the inbox or type its id.")
        st.stop()
    task_id = chosen
    _session.remember(Keys.TASK_ID, task_id)

_ui.flush_toast()
top = st.container()
work = st.container()
rest = st.container()

try:
    view = services.desk.task_view(principal, task_id)
except MemdeskError as exc:
    # Another tenant's task looks exactly like a missing one; let the person pick again.
    st.session_state.pop(Keys.TASK_ID, None)
    _ui.show_error(exc)
    st.button("選擇其他任務 Choose another task", key="task.repick")
    st.stop()
state = view.record.state

# The run (if asked for) goes first so the header and draft below show what it changed; the
# containers keep the page order: header, supplement and run, draft and timeline.
with work:
    can_run = allows(principal, Permission.WORK_TASKS) and state.status not in TERMINAL
    if can_run:
        with st.form("task.supplement_form", clear_on_submit=True):
            supplement = st.text_area(
                "補充資訊 Supplement (optional)",
                key="task.supplement",
                placeholder="客戶確認需要特殊檢驗，請接著處理。",
            )
            submitted = st.form_submit_button("執行分析 Run analysis", type="primary")
        if submitted:
            with st.status("分析中 Running analysis…", expanded=True) as status:
                status.write("還原任務狀態 Restoring the task state…")
                try:
                    result = _ui.resume_with_progress(
                        principal, task_id, supplement.strip() or None, write=status.write
                    )
                except MemdeskError as exc:
                    status.update(label="無法執行 Could not run", state="error")
                    st.error(_ui.escape(exc))
                else:
                    failed = result.run.status != "succeeded"
                    status.update(
                        label=f"分析結束 Run {result.run.status} → {result.state.status.value}",
                        state="error" if failed else "complete",
                        expanded=failed,
                    )
                    if failed and result.run.error:
                        st.error(_ui.escape(result.run.error))
            view = services.desk.task_view(principal, task_id)  # what the run changed
            state = view.record.state

with top:
    st.title(f"任務 {_ui.escape(state.task_id)}")
    st.markdown(
        f"{_ui.badge_md(state.status.value)} · 版次 revision **{state.revision}** · "
        f"下一步 next step: {_ui.escape(state.next_step or '—')}"
    )
    confirmed_col, pending_col = st.columns(2)
    with confirmed_col.container(border=True, key="task.confirmed"):
        st.subheader("已確認 Confirmed")
        st.caption("已確認的欄位不會再詢問。Confirmed fields are not asked again.")
        if not state.confirmed:
            st.write("—")
        for field, value in state.confirmed.items():
            st.markdown(
                f":material/verified: **{_ui.escape(field)}** = {_ui.escape(value)} "
                f":green-badge[已確認 confirmed]"
            )
    with pending_col.container(border=True, key="task.pending"):
        st.subheader("待辦 Pending")
        if not state.pending:
            st.write("—")
        for item in state.pending:
            st.markdown(f":material/pending: {_ui.escape(item)}")
        if state.evidence_ids:
            st.caption("任務證據 Evidence: " + _ui.escape(", ".join(state.evidence_ids)))
    run = view.latest_run
    refused = (run.review or {}).get("reasons", []) if run is not None else []
    if run is not None and state.status.value == "blocked" and refused:
        with st.container(border=True, key="task.review_refused"):
            st.warning(
                f"審查未通過，草稿待人工處理 Review refused the draft of run "
                f"{_ui.escape(run.run_id)}; a person takes over:"
            )
            st.markdown("\n".join(f"- {_ui.escape(reason)}" for reason in refused))
    elif run is not None and run.status in ("failed", "dead_letter", "cancelled"):
        st.error(
            f"最近一次分析 {_ui.escape(run.run_id)} {_ui.escape(run.status)}: "
            f"{_ui.escape(run.error or '—')} — 需要人工接手 a person takes over."
        )
    if view.record.conflicts or view.source_conflicts:
        st.warning("此任務有待處理的衝突。This task has conflicts to settle.")
        if st.button("處理衝突 Settle conflicts", key="task.to_conflicts"):
            st.switch_page("app_pages/conflicts.py")

with rest:
    if view.draft is not None:
        draft = view.draft
        with st.container(border=True, key="task.draft"):
            st.subheader(f"草稿 Draft v{draft.decision_version}")
            st.markdown(
                f"{_ui.badge_md(draft.status)} · 建議 next action: "
                f"{_ui.escape(draft.proposed_next_action)} · run {_ui.escape(draft.run_id)}"
            )
            _ui.draft_claims(draft, key_prefix="task")
            if draft.missing_fields:
                st.markdown("缺少 Missing: " + _ui.escape(", ".join(draft.missing_fields)))
    if view.approvals:
        with st.container(border=True, key="task.approvals"):
            st.subheader("核准項目 Approval items")
            for item in view.approvals:
                st.markdown(
                    f"{_ui.badge_md(item.status)} {_ui.escape(item.item_key)} "
                    f"({_ui.escape(item.required_role)})"
                    + (f" — {_ui.escape(item.decided_by)}" if item.decided_by else "")
                    + (f": {_ui.escape(item.comment)}" if item.comment else "")
                )
            mine = [a for a in view.approvals if a.status == "pending" and a.kind == "draft"]
            if (
                mine
                and allows(principal, Permission.DECIDE_DRAFTS)
                and st.button("前往核准 Go to approvals", key="task.to_approvals")
            ):
                st.switch_page("app_pages/approvals.py")
    st.subheader("時間軸 Timeline")
    st.dataframe(
        [
            {
                "時間 at": row.at.strftime("%Y-%m-%d %H:%M:%S"),
                "類型": row.source,
                "事件 what": row.title,
                "誰 who": row.actor,
                "版次 rev": row.revision,
                "狀態 status": row.status,
                "檢查點 checkpoint": row.checkpoint,
                "run": row.run_id,
                "細節 detail": row.detail,
            }
            for row in view.timeline
        ],
        key="task.timeline",
        hide_index=True,
        width="stretch",
    )

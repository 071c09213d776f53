"""Conflicts: sources that disagree side by side, and confirmed fields a new value contradicts.

The reviewer picks the authoritative source or escalates, always with a reason; the choice is a
task event and an audit entry (services/desk.py, services/tasks.py).
"""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from app_pages._session import Keys

principal = _session.require_page("conflicts")
services = _session.services()
_ui.flush_toast()
st.title("來源衝突 Conflicts")

cases = _ui.or_stop(lambda: services.desk.open_conflicts(principal))
if not cases:
    st.info("目前沒有待處理的衝突。No conflicts are waiting.")
    st.stop()

for case in cases:
    state = case.record.state
    with st.container(border=True, key=f"conflicts.task.{state.task_id}"):
        st.subheader(f"任務 {_ui.escape(state.task_id)} · 版次 r{state.revision}")
        if st.button("開啟任務 Open task", key=f"conflicts.open.{state.task_id}"):
            _session.remember(Keys.TASK_ID, state.task_id)
            st.switch_page("app_pages/task.py")
        for number, conflict in enumerate(case.source_conflicts):
            key = f"conflicts.{state.task_id}.{number}"
            st.markdown(f"**事實 Fact:** {_ui.escape(conflict.fact)} ({_ui.escape(conflict.need)})")
            columns = st.columns(len(conflict.values))
            for column, value in zip(columns, conflict.values, strict=True):
                with column.container(border=True):
                    ref = f"{value.get('document_id')}@{value.get('version')}"
                    st.markdown(f"**{_ui.escape(ref)}** → {_ui.escape(value.get('value'))}")
                    st.markdown(f"「{_ui.escape(value.get('quote', ''))}」")
                    if st.button("原文 Source", key=f"{key}.source.{value.get('evidence_id')}"):
                        _ui.open_evidence(str(value.get("evidence_id")), conflict.run_id)
            with st.form(f"{key}.form", clear_on_submit=True):
                # Plain string options: session state stays picklable (no format_func).
                choices = {
                    f"{v.get('document_id')}@{v.get('version')}: {v.get('value')}": str(
                        v.get("evidence_id")
                    )
                    for v in conflict.values
                }
                choices["上報 Escalate"] = "escalate"
                # Nothing is preselected: the reviewer must choose.
                picked = st.radio(
                    "權威來源 Authoritative source", list(choices), index=None, key=f"{key}.choice"
                )
                reason = st.text_area("理由 Reason (required)", key=f"{key}.reason")
                submitted = st.form_submit_button("記錄決定 Record decision", type="primary")
                if submitted and picked is None:
                    st.error("請選擇權威來源或上報。Choose a source or escalate.")
                elif submitted and picked is not None:
                    choice = choices[picked]
                    with _ui.domain_errors():
                        services.desk.settle_source_conflict(
                            principal,
                            state.task_id,
                            expected_revision=state.revision,
                            run_id=conflict.run_id,
                            fact=conflict.fact,
                            action="escalate" if choice == "escalate" else "choose",
                            evidence_id=None if choice == "escalate" else choice,
                            reason=reason,
                        )
                        _ui.toast_next(f"已記錄 {state.task_id}: {conflict.fact}")
                        st.rerun()
        for conflict in case.record.conflicts:
            key = f"conflicts.{state.task_id}.field.{conflict.field}"
            st.markdown(
                f"**已確認欄位 Confirmed field** {_ui.escape(conflict.field)}: "
                f"已確認 {_ui.escape(conflict.confirmed)} ↔ 新值 {_ui.escape(conflict.proposed)} "
                f"({_ui.escape(conflict.proposed_by)})"
            )
            with st.form(f"{key}.form", clear_on_submit=True):
                keep = st.radio(
                    "保留哪個值 Keep which value",
                    ["保留已確認值 Keep confirmed", "採用新值 Take the new value"],
                    index=None,
                    key=f"{key}.choice",
                )
                reason = st.text_area("理由 Reason (required)", key=f"{key}.reason")
                submitted = st.form_submit_button("記錄決定 Record decision", type="primary")
                if submitted and keep is None:
                    st.error("請選擇要保留的值。Choose which value to keep.")
                elif submitted:
                    with _ui.domain_errors():
                        services.tasks.resolve_conflict(
                            principal,
                            state.task_id,
                            expected_revision=state.revision,
                            field=conflict.field,
                            keep_confirmed=keep == "保留已確認值 Keep confirmed",
                            reason=reason,
                        )
                        _ui.toast_next(f"已記錄 {state.task_id}: {conflict.field}")
                        st.rerun()

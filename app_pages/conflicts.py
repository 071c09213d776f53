"""Conflicts (/conflicts, /conflicts?task=Q42): sources that disagree side by side, and
confirmed fields a new value contradicts.

The reviewer picks the authoritative source or escalates, always with a reason; the choice is a
task event and an audit entry (services/desk.py, services/tasks.py).
"""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from services.core.errors import NotFound

principal = _session.require_page("conflicts")
services = _session.services()
_ui.flush_toast()
st.title("來源衝突 Conflicts")

task_id = _ui.query("task")
if task_id is not None:
    try:
        services.tasks.get(principal, task_id)
    except NotFound:
        _ui.not_found("task", task_id)
        st.stop()
cases = _ui.or_stop(lambda: services.desk.open_conflicts(principal))
if task_id is not None:
    cases = [case for case in cases if case.record.state.task_id == task_id]
    st.page_link("app_pages/conflicts.py", label="全部衝突 All conflicts", icon=":material/list:")
if not cases:
    st.info("目前沒有待處理的衝突。No conflicts are waiting.")
    st.stop()

for case in cases:
    state = case.record.state
    with st.container(border=True, key=f"conflicts.task.{state.task_id}"):
        st.subheader(f"任務 {_ui.escape(state.task_id)} · 版次 r{state.revision}")
        _ui.task_link(state.task_id, label=f"開啟任務 Open task {state.task_id}")
        for number, conflict in enumerate(case.source_conflicts):
            key = f"conflicts.{state.task_id}.{number}"
            need = ", ".join(_labels.field(n.strip()) for n in conflict.need.split(","))
            st.markdown(
                f"**事實 Fact:** {_ui.escape(conflict.shown_fact or conflict.fact)} "
                f"({_ui.escape(need)})"
            )
            columns = st.columns(len(conflict.values))
            for column, value in zip(columns, conflict.values, strict=True):
                with column.container(border=True):
                    ref = f"{value.get('document_id')}@{value.get('version')}"
                    st.markdown(f"**{_ui.escape(ref)}** → {_ui.escape(value.get('value'))}")
                    st.markdown(f"「{_ui.escape(value.get('quote', ''))}」")
                    _ui.evidence_link(
                        str(value.get("evidence_id")),
                        conflict.run_id,
                        key=f"{key}.source.{value.get('evidence_id')}",
                    )
            # The form keeps the choice and the reason when something is missing or refused.
            with st.form(f"{key}.form", clear_on_submit=False):
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
                        _ui.toast_next(
                            f"已記錄 Recorded {state.task_id}: "
                            f"{conflict.shown_fact or conflict.fact}"
                        )
                        st.rerun()
        for conflict in case.record.conflicts:
            key = f"conflicts.{state.task_id}.field.{conflict.field}"
            st.markdown(
                f"**已確認欄位 Confirmed field** {_ui.escape(_labels.field(conflict.field))}: "
                f"已確認 confirmed {_ui.escape(_labels.value(conflict.confirmed))} ↔ "
                f"新值 proposed {_ui.escape(_labels.value(conflict.proposed))} "
                f"({_ui.escape(conflict.proposed_by)})"
            )
            with st.form(f"{key}.form", clear_on_submit=False):
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
                        _ui.toast_next(
                            f"已記錄 Recorded {state.task_id}: {_labels.field(conflict.field)}"
                        )
                        st.rerun()

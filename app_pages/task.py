"""Task page (/task?id=Q42): confirmed fields, pending items, what happens next, a supplement
and run, the cited draft and how people decided it, and the whole timeline."""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from services.agents.supplements import MAX_SUPPLEMENT_CHARS
from services.contracts.task_state import TERMINAL
from services.core.errors import MemdeskError, NotFound
from services.core.policy import Permission, allows
from services.desk.service import TaskView
from services.publishing.candidates import Proposal

PENDING_RUN = "task.pending_run"  # [task_id, supplement or ""] to run on this script run
CONFIRM_EMPTY = "task.confirm_empty"  # the task id whose empty supplement asks for confirmation

principal = _session.require_page("task")
services = _session.services()
_ui.flush_toast()


def _open_typed() -> None:
    typed = str(st.session_state.get("task.pick") or "").strip()
    st.session_state["task.pick"] = ""
    if typed:
        st.query_params["id"] = typed


def picker(*, expanded: bool) -> None:
    """Open any task by id: always here, so no page ever leaves a person stuck."""
    with st.expander("開啟其他任務 Open another task", expanded=expanded):
        st.text_input(
            "任務編號 Task id",
            key="task.pick",
            placeholder=_labels.placeholder("task_id"),
            on_change=_open_typed,
        )


task_id = _ui.query("id")
if task_id is None:
    st.title("任務 Task")
    picker(expanded=True)
    st.info("從收件匣或佇列開啟任務，或輸入任務編號。Open a task from a queue or type its id.")
    st.stop()

try:
    view = services.desk.task_view(principal, task_id)
except NotFound:
    # Another tenant's (or customer's) task reads exactly like a missing one.
    st.title("任務 Task")
    _ui.not_found("task", task_id)
    picker(expanded=True)
    st.stop()
except MemdeskError as exc:
    _ui.show_error(exc)
    st.stop()

top = st.container()
work = st.container()
rest = st.container()


def _submit() -> None:
    """Runs before the script: the run starts below; an empty supplement asks first."""
    text = str(st.session_state.get("task.supplement") or "").strip()
    if not text and st.session_state.get(CONFIRM_EMPTY) != task_id:
        st.session_state[CONFIRM_EMPTY] = task_id
        return
    st.session_state.pop(CONFIRM_EMPTY, None)
    st.session_state[PENDING_RUN] = [task_id, text]
    st.session_state["task.supplement"] = ""


def run_now(view: TaskView) -> TaskView:
    pending = st.session_state.pop(PENDING_RUN, None)
    if not (isinstance(pending, list) and pending[0] == task_id):
        return view
    supplement = str(pending[1]) or None
    with st.status("分析中 Running analysis…", expanded=True) as status:
        status.write("還原任務狀態 Restoring the task state…")
        try:
            result = _ui.resume_with_progress(principal, task_id, supplement, write=status.write)
        except MemdeskError as exc:
            status.update(label="無法執行 Could not run", state="error")
            st.error(_ui.error_text(exc))
            st.session_state["task.supplement"] = supplement or ""  # keep what was typed
            return view
        failed = result.run.status != "succeeded"
        status.update(
            label=f"分析結束 Run {_labels.status(result.run.status)} → "
            f"{_labels.status(result.state.status.value)}",
            state="error" if failed else "complete",
            expanded=failed,
        )
        if failed and result.run.error:
            st.error(f"分析失敗 The run failed — {_ui.escape(result.run.error)}")
    return services.desk.task_view(principal, task_id)  # what the run changed


# The run (if asked for) goes first so the header and draft below show what it changed; the
# containers keep the page order: header, supplement and run, draft and timeline.
with work:
    view = run_now(view)
    state = view.record.state
    if allows(principal, Permission.WORK_TASKS) and state.status not in TERMINAL:
        with st.form("task.supplement_form", clear_on_submit=False):
            st.text_area(
                "補充資訊 Supplement",
                key="task.supplement",
                placeholder=_labels.placeholder("supplement"),
                max_chars=MAX_SUPPLEMENT_CHARS,
                help=f"客戶回覆或說明，最多 {MAX_SUPPLEMENT_CHARS} 字。A customer's reply or a "
                f"note, at most {MAX_SUPPLEMENT_CHARS} characters.",
            )
            st.form_submit_button("執行分析 Run analysis", type="primary", on_click=_submit)
        if st.session_state.get(CONFIRM_EMPTY) == task_id:
            st.warning("沒有補充資訊，仍要分析嗎？No supplement: run the analysis anyway?")
            go, cancel, _ = st.columns([1, 1, 3])
            if go.button("仍要分析 Run anyway", key="task.run_empty", on_click=_submit):
                st.rerun()
            if cancel.button("取消 Cancel", key="task.run_cancel"):
                st.session_state.pop(CONFIRM_EMPTY, None)
                st.rerun()


def next_text(view: TaskView) -> str:
    """What happens next, from the current state and approval items."""
    p = view.progress
    draft = _ui.draft_title(view.draft_number, view.draft.decision_version if view.draft else 0)
    if p.stage == "engineering":
        return (
            f"等待工程確認 {len(p.engineering_open)}/{p.engineering_total} 項 Waiting for "
            f"engineering: {len(p.engineering_open)} of {p.engineering_total} items open "
            f"({', '.join(p.engineering_open)}); then sales decides {draft}"
        )
    if p.stage == "sales":
        return f"工程項目皆已核准，待業務決定 Sales decides {draft}"
    if p.stage == "done":
        return "已完成，無待辦事項。Completed: nothing left to do."
    if p.stage == "input":
        return f"待補資訊 Waiting for input: {p.note or '—'}"
    if p.stage == "stopped":
        return f"需人工接手 A person takes over: {p.note or '—'}"
    if p.stage == "run":
        return f"分析進行中 A run is working on it: {p.note or '—'}"
    return p.note or _labels.placeholder("no_next_step")


def used_memories(view: TaskView) -> None:
    """The memories the run was given as context, and the candidate flow for one of them."""
    with st.container(border=True, key="task.memories"):
        st.subheader("用到的記憶 Memories used")
        st.caption(
            "記憶是推論，只影響要詢問或提醒的事項，從不作為引用證據。Memories are inference: "
            "they shape what is asked or flagged and are never cited as evidence."
        )
        for memory in view.used_memories:
            scope = "&".join(f"{k}={v}" for k, v in sorted(memory.scope.items()))
            changed = (
                f" (現為 now r{memory.current_revision})"
                if memory.current_revision != memory.revision
                else ""
            )
            st.markdown(
                f":material/psychology: **{_ui.escape(memory.fact)}** · {_ui.code(scope)} · "
                f"r{memory.revision}{changed} · 來源 source: "
                f"{_ui.escape(memory.source_event or '—')}"
            )
        labels = {f"{m.fact[:60]} ({m.memory_id})": m for m in view.used_memories}
        with st.form("task.propose_memory"):
            st.markdown("提議為候選知識 Propose as knowledge")
            picked = st.selectbox("記憶 Memory", list(labels), key="task.propose_memory_pick")
            document_id = st.text_input(
                "目標文件 Target document id", key="task.propose_memory_document"
            )
            body = st.text_area("新增段落 Paragraph to add", key="task.propose_memory_body")
            if st.form_submit_button("提議 Propose"):
                memory = labels[picked]
                with _ui.domain_errors():
                    proposed = services.candidates.propose(
                        principal,
                        Proposal(
                            document_id=document_id.strip(),
                            body=body.strip() or memory.fact,
                            append=True,
                            origin="memory",
                            memory_ids=[memory.memory_id],
                        ),
                    )
                    st.success(
                        f"候選 {_ui.escape(proposed.candidate_id)} 待知識負責人審核 "
                        "waits for a knowledge owner"
                    )


with top:
    st.title(f"任務 {_ui.escape(state.task_id)}")
    st.markdown(
        f"{_ui.badge_md(state.status.value)} · 版次 revision **{state.revision}** · "
        f"下一步 Next: {_ui.escape(next_text(view))}"
    )
    confirmed_col, pending_col = st.columns(2)
    with confirmed_col.container(border=True, key="task.confirmed"):
        st.subheader("已確認 Confirmed")
        st.caption("已確認的欄位不會再詢問。Confirmed fields are not asked again.")
        if not state.confirmed:
            st.write("—")
        for field, value in state.confirmed.items():
            st.markdown(
                f":material/verified: **{_ui.escape(_labels.field(field))}** = "
                f"{_ui.escape(_labels.value(value))} :green-badge[已確認 confirmed]"
            )
    with pending_col.container(border=True, key="task.pending"):
        st.subheader("待辦 Pending")
        if not state.pending:
            st.write("—")
        for item in state.pending:
            st.markdown(f":material/pending: {_ui.escape(_labels.field(item))}")
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
            f"最近一次分析 {_ui.escape(run.run_id)} {_ui.escape(_labels.status(run.status))}: "
            f"{_ui.escape(run.error or '—')} — 需要人工接手 a person takes over."
        )
    if view.record.conflicts or view.source_conflicts:
        with st.container(key="task.conflict_banner"):
            st.warning("此任務有待處理的衝突。This task has conflicts to settle.")
            st.page_link(
                "app_pages/conflicts.py",
                label="處理衝突 Settle conflicts",
                icon=":material/call_split:",
                query_params={"task": state.task_id},
            )
    picker(expanded=False)

with rest:
    if view.draft is not None:
        draft = view.draft
        with st.container(border=True, key="task.draft"):
            st.subheader(_ui.draft_title(view.draft_number, draft.decision_version))
            st.markdown(
                f"{_ui.badge_md(view.draft_standing)} · 分析結論 analysis: "
                f"{_ui.escape(_labels.status(draft.status))} · 建議 next action: "
                f"{_ui.escape(_labels.status(draft.proposed_next_action))}"
            )
            _ui.draft_claims(draft, key_prefix="task")
            if draft.missing_fields:
                st.markdown("缺少 Missing: " + _ui.escape(_labels.fields(draft.missing_fields)))
    if view.approvals:
        with st.container(border=True, key="task.approvals"):
            st.subheader("核准項目 Approval items")
            for item in view.approvals:
                result = _labels.result(item.result)
                st.markdown(
                    f"{_ui.badge_md(item.status)} {_ui.escape(_labels.kind(item.kind))} "
                    f"{_ui.escape(item.item_key)} · {_ui.escape(_labels.kind(item.required_role))}"
                    + (f" — {_ui.escape(item.decided_by)}" if item.decided_by else "")
                    + (f": {_ui.escape(item.comment)}" if item.comment else "")
                    + (f" · {_ui.escape(result)}" if result else "")
                )
            if view.progress.stage == "sales" and allows(principal, Permission.DECIDE_DRAFTS):
                st.page_link(
                    "app_pages/approvals.py",
                    label="前往核准 Go to approvals",
                    icon=":material/approval:",
                    query_params={"task": state.task_id},
                )
            if view.progress.stage == "engineering" and allows(
                principal, Permission.DECIDE_ENGINEERING
            ):
                st.page_link(
                    "app_pages/engineering.py",
                    label="前往工程確認 Go to engineering",
                    icon=":material/engineering:",
                    query_params={"task": state.task_id},
                )
    if view.used_memories:
        used_memories(view)
    st.subheader("時間軸 Timeline")
    with st.container(key="task.timeline"):
        for row in view.timeline:
            title = (
                _labels.event(row.title)
                if row.source != "decision"
                else f"{_labels.event('decision')} {row.title}"
            )
            parts = [
                f"`{row.at.strftime('%Y-%m-%d %H:%M:%S')}`",
                f"**{_ui.escape(title)}**",
                _ui.escape(row.actor),
            ]
            if row.status:
                parts.append(_ui.badge_md(row.status))
            if row.decision_status:
                parts.append(
                    f"分析結論 analysis: {_ui.escape(_labels.status(row.decision_status))}"
                )
            if row.revision is not None:
                parts.append(f"r{row.revision}")
            st.markdown(" · ".join(parts))
            if row.detail:
                st.caption(_ui.escape(row.detail))
            for note in row.conflicts:
                st.caption(
                    _ui.escape(
                        f"{_labels.field(note.field)}: 已確認 confirmed "
                        f"{_labels.value(note.confirmed)} ↔ 新值 proposed "
                        f"{_labels.value(note.proposed)}"
                    )
                )
            if row.result:
                st.caption(_ui.escape(_labels.result(row.result)))

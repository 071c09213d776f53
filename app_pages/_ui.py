"""Shared widgets: escaped text, highlighted citation spans, status badges, error display.

Document, mail and model text is data: it is always escaped here before Streamlit's Markdown
sees it (HTML, links, images, `$` math and directives included), never rendered as HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

import streamlit as st

from app_pages import _labels, _session
from app_pages._session import Keys, remember
from services.agents.resume import ResumeResult
from services.agents.runs import RunEventView
from services.core.errors import InvalidInput, MemdeskError, NotAuthorized, NotFound, StaleRevision
from services.core.principals import Principal
from services.desk.changes import ChangesSince
from services.desk.drafts import Draft
from services.desk.highlight import Segment
from services.desk.service import ApprovalCard
from services.desk.timeline import run_steps

T = TypeVar("T")

# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of
# them also disarms GFM autolinks, Streamlit's `:color[...]` directives and `$` math.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
_LEADING_SPACES = re.compile(r"^( +)", re.MULTILINE)

STATUS_COLORS = {
    "completed": "green",
    "approved": "green",
    "awaiting_approval": "orange",
    "pending": "orange",
    "pending_approval": "orange",
    "waiting_input": "blue",
    "blocked": "red",
    "failed": "red",
    "rejected": "red",
    "revoked": "red",
    "dead_letter": "red",
    "cancelled": "gray",
    "superseded": "gray",
    "draft": "gray",
    "withdrawn": "gray",
    "waiting": "blue",
    "succeeded": "green",
    "ready_for_review": "orange",
    "insufficient_evidence": "red",
    "source_conflict": "red",
}


def escape(text: object, *, line_start: bool = True) -> str:
    """Markdown-safe text: every punctuation escaped, line breaks and indentation kept.

    `line_start=False` for a piece that continues a line (a segment after a highlight)."""
    escaped = _PUNCTUATION.sub(r"\\\1", str(text))
    # Indentation would start a code block; keep it visible with no-break spaces.
    head, newline, rest = escaped.partition("\n")
    rest = _LEADING_SPACES.sub(lambda m: "\u00a0" * len(m.group(1)), rest)
    if line_start:
        head = _LEADING_SPACES.sub(lambda m: "\u00a0" * len(m.group(1)), head)
    return (head + newline + rest).replace("\r\n", "\n").replace("\n", "  \n")


def code(value: object) -> str:
    """Inline code: shown literally (no Markdown inside a code span, so nothing is escaped);
    the fence is longer than any run of backticks in the text, and line breaks become spaces."""
    raw = " ".join(str(value).split("\n"))
    longest = max((len(run) for run in re.findall(r"`+", raw)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if raw.startswith("`") or raw.endswith("`") else ""
    return f"{fence}{pad}{raw}{pad}{fence}"


def text(value: object) -> None:
    """Show untrusted text as plain, escaped Markdown."""
    st.markdown(escape(value))


def highlighted(segments: Iterable[Segment]) -> str:
    """Markdown for a body whose cited span(s) are highlighted (segments come from services)."""
    parts: list[str] = []
    line_start = True
    for segment in segments:
        starts_line, line_start = line_start, segment.text.endswith("\n")
        if not segment.highlight:
            parts.append(escape(segment.text, line_start=starts_line))
            continue
        # A directive cannot span lines: highlight each line of the span on its own.
        lines = segment.text.replace("\r\n", "\n").split("\n")
        parts.append(
            "  \n".join(f":orange-background[{escape(line)}]" if line else "" for line in lines)
        )
    return "".join(parts)


def badge(status: str, *, label: str | None = None) -> None:
    st.badge(
        label or _labels.status(status),
        color=STATUS_COLORS.get(status, "blue"),  # type: ignore[arg-type]
    )


def badge_md(status: str) -> str:
    """A status badge inside Markdown, in people's words (the label table)."""
    color = STATUS_COLORS.get(status, "blue")
    return f":{color}-badge[{escape(_labels.status(status))}]"


def query(name: str) -> str | None:
    """One query parameter of this page's URL (`/task?id=Q42`), trimmed; None when absent."""
    value = st.query_params.get(name)
    if not isinstance(value, str):
        return None
    return value.strip() or None


def not_found(kind: str, key: str) -> None:
    """The one message for a missing object and for one the person may not see."""
    st.error(f"找不到 Not found: {escape(kind)} {escape(key)}")


def task_link(task_id: str, *, label: str | None = None, key: str | None = None) -> None:
    """A link to the task's own URL (/task?id=...)."""
    with st.container(key=key) if key else _nothing():
        st.page_link(
            "app_pages/task.py",
            label=label or f"任務 Task {task_id}",
            icon=":material/assignment:",
            query_params={"id": task_id},
        )


def evidence_link(
    evidence_id: str, run_id: str | None, *, label: str = "原文 Source", key: str | None = None
) -> None:
    """A link to a citation beside its original (/evidence?cite=...&run=...)."""
    params = {"cite": evidence_id}
    if run_id:
        params["run"] = run_id
    with st.container(key=key) if key else _nothing():
        st.page_link(
            "app_pages/evidence.py",
            label=label,
            icon=":material/format_quote:",
            query_params=params,
        )


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def error_text(exc: MemdeskError) -> str:
    """A domain error in both languages: a Chinese and English lead, then the service's own
    message (which names the record or field), escaped."""
    if isinstance(exc, StaleRevision):
        return f"資料已被他人更新 Changed meanwhile — {escape(exc)}"
    if isinstance(exc, NotFound):
        return f"找不到 Not found: {escape(exc.kind)} {escape(exc.key)}"
    if isinstance(exc, NotAuthorized):
        return f"無權限 Not allowed — {escape(exc)}"
    if isinstance(exc, InvalidInput):
        return f"輸入有誤 Invalid input — {escape(exc)}"
    return f"無法完成 Could not complete — {escape(exc)}"


def show_error(exc: MemdeskError) -> None:
    """A named domain error as one `st.error` line (never a traceback)."""
    st.error(error_text(exc))


@contextmanager
def domain_errors() -> Iterator[None]:
    try:
        yield
    except MemdeskError as exc:
        show_error(exc)


def or_stop(call: Callable[[], T]) -> T:
    """The result of a service call, or the page stops with the domain error shown."""
    try:
        return call()
    except MemdeskError as exc:
        show_error(exc)
        st.stop()
        raise  # st.stop() raises; this line only satisfies type checkers


def toast_next(message: str) -> None:
    """Toast after the rerun that follows a decision (a toast before st.rerun is lost)."""
    remember(Keys.TOAST, message)


def flush_toast() -> None:
    message = st.session_state.pop(Keys.TOAST, None)
    if isinstance(message, str):
        st.toast(message, icon=":material/check_circle:")


def resume_with_progress(
    principal: Principal, task_id: str, supplement: str | None, *, write: Callable[[str], object]
) -> ResumeResult:
    """The desk's run (the call `memdesk resume` makes), with its steps written as the service
    reports them."""

    def show(event: RunEventView) -> None:
        for step in run_steps([event]):
            write(f"{escape(_labels.run_step(step.kind))} — {escape(step.text)}")

    return _session.services().desk.run(principal, task_id, supplement=supplement, on_event=show)


def _short(text: str, limit: int) -> str:
    """The opening of an item's text for a one-line list (its card shows it whole)."""
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def draft_claims(draft: Draft, *, key_prefix: str) -> None:
    """Each claim of a draft with its citations (document, version, offsets, quote)."""
    for number, claim in enumerate(draft.claims, start=1):
        with st.container(border=True, key=f"{key_prefix}.claim.{number}"):
            st.markdown(f"**{number}.** {escape(claim.text)}")
            if not claim.citations:
                st.markdown(":red-badge[無引用 no citation]")
            for index, citation in enumerate(claim.citations):
                label = f"{citation.ref} [{citation.start}–{citation.end}]"
                history = " :violet-badge[歷史 history — 僅供比較]" if citation.is_history else ""
                # A citation is a span (a sentence, clause or list item): shown whole, so the
                # line that supports the claim is always visible.
                quote = f" 「{escape(citation.quote)}」" if citation.quote else ""
                left, right = st.columns([5, 1], vertical_alignment="center")
                left.markdown(f":material/format_quote: **{escape(label)}**{history}{quote}")
                with right:
                    evidence_link(
                        citation.evidence_id,
                        draft.run_id or None,
                        key=f"{key_prefix}.cite.{number}.{index}",
                    )


def seen_revision(approval_id: int, current: int) -> int:
    """The task revision this person looked at when the item was first shown to them."""
    key = Keys.seen(approval_id)
    if not isinstance(st.session_state.get(key), int):
        remember(key, current)
    return int(st.session_state[key])


def draft_title(number: int | None, decision_version: int) -> str:
    """ "草稿 2 Draft 2": drafts count 1, 2, 3 per task; the decision version stays internal."""
    return f"草稿 {number} Draft {number}" if number else f"草稿 Draft (v{decision_version})"


def approval_card(card: ApprovalCard, *, key_prefix: str, task_link_shown: bool = True) -> None:
    """One pending approval item: what is to be decided, what it waits for, approve / reject."""
    item = card.approval
    seen = seen_revision(item.id, card.task_revision)
    with st.container(border=True, key=f"{key_prefix}.item.{item.id}"):
        what = (
            draft_title(card.draft_number, item.decision_version)
            if item.kind == "draft"
            else f"{_labels.kind(item.kind)} {item.item_key.rsplit('-', 1)[-1]}"
        )
        st.markdown(
            f"**{escape(item.task_id)}** · {escape(what)} · {badge_md(card.task_status)} · "
            f"任務版次 revision {seen}"
        )
        if task_link_shown:
            task_link(item.task_id, label=f"開啟任務 Open task {item.task_id}")
        if card.task_revision != seen:
            st.warning(
                f"任務已更新 The task moved from revision {seen} to {card.task_revision} "
                "since you opened it. 請先查看變更 Review the changes before deciding."
            )
            who = _session.principal()
            if who is not None:
                diff = _session.services().desk.changes_since(who, item.task_id, seen)
                changes(diff, key=f"{key_prefix}.changes.{item.id}")
            if st.button("已閱讀變更 I have read the changes", key=f"{key_prefix}.seen.{item.id}"):
                remember(Keys.seen(item.id), card.task_revision)
                st.rerun()
        if card.stale_citations:
            cited = ", ".join(
                f"{c.document_id}@{c.version} ({_labels.status(c.state)}"
                + (f", current v{c.current_version})" if c.current_version else ")")
                for c in card.stale_citations
            )
            st.warning(
                f"草稿引用的版本已非現行 This draft cites text that is no longer current: "
                f"{escape(cited)}. 建議重新分析 Re-run the analysis before deciding."
            )
        if card.waiting_for:
            listed = "; ".join(
                f"{w.item_key} ({_labels.status(w.status)}) {_short(w.text, 60)}"
                for w in card.waiting_for
            )
            st.info(
                f"等待工程確認後才能核准 Waiting for engineering before it can be approved "
                f"({len(card.waiting_for)}): {escape(listed)}"
            )
        if card.draft is not None:
            draft_claims(card.draft, key_prefix=f"{key_prefix}.{item.id}")
        elif item.kind == "engineering":
            st.markdown(f"{escape(item.payload.get('text', ''))}")
            citation = item.payload.get("citation") or {}
            if citation.get("document_id"):
                label = f"{citation['document_id']}@{citation.get('version')}"
                st.markdown(
                    f":material/format_quote: **{escape(label)}** "
                    f"「{escape(citation.get('quote', ''))}」"
                )
                evidence_link(
                    str(citation["evidence_id"]), item.run_id, key=f"{key_prefix}.{item.id}.source"
                )
        approve, reject, _ = st.columns([1, 1, 4])
        if approve.button(
            "核准 Approve",
            key=f"{key_prefix}.approve.{item.id}",
            type="primary",
            disabled=bool(card.waiting_for),
        ):
            remember(Keys.DECIDING, [item.id, True, seen])
        if reject.button("退回 Reject", key=f"{key_prefix}.reject.{item.id}"):
            remember(Keys.DECIDING, [item.id, False, seen])


def decision_dialog() -> None:
    """Open the confirm dialog for the item being decided, if any. The choice lives in session
    state (ids only) so the dialog survives its own reruns until confirmed, cancelled or closed."""
    deciding = st.session_state.get(Keys.DECIDING)
    if isinstance(deciding, list) and len(deciding) == 3:
        approval_id, approve, seen = deciding
        confirm_decision(int(approval_id), bool(approve), int(seen))


RESULT_KEYS = ("decision.days", "decision.method", "decision.criteria", "decision.equipment")


def _stop_deciding() -> None:
    st.session_state.pop(Keys.DECIDING, None)
    for key in ("decision.comment", *RESULT_KEYS):
        st.session_state.pop(key, None)


def _result_fields() -> dict[str, object]:
    """An engineer's structured result (every field optional), as the desk expects it."""
    st.markdown("**工程結果 Engineering result**（選填 optional）")
    days = st.number_input(
        _labels.RESULT_FIELD["extra_working_days"],
        min_value=0,
        max_value=365,
        value=None,
        step=1,
        key="decision.days",
    )
    method = st.text_input(_labels.RESULT_FIELD["method"], key="decision.method", max_chars=300)
    criteria = st.text_area(
        _labels.RESULT_FIELD["acceptance_criteria"],
        key="decision.criteria",
        max_chars=1000,
        height=80,
    )
    equipment = st.text_input(
        _labels.RESULT_FIELD["equipment"], key="decision.equipment", max_chars=300
    )
    result: dict[str, object] = {
        "method": method,
        "acceptance_criteria": criteria,
        "equipment": equipment,
    }
    if days is not None:
        result["extra_working_days"] = int(days)
    return result


@st.dialog("確認決定 Confirm decision", on_dismiss=_stop_deciding)
def confirm_decision(approval_id: int, approve: bool, seen: int) -> None:
    who = _session.principal()
    if who is None:
        st.error("請先登入。Please log in.")
        return
    desk = _session.services().desk
    try:
        item = _session.services().approvals.get(who, approval_id)
    except MemdeskError as exc:
        show_error(exc)
        return
    verb = "核准 approve" if approve else "退回 reject"
    st.markdown(
        f"您將 **{verb}** {escape(item.task_id)} · {escape(item.item_key)}"
        f"（任務版次 revision {seen}）。"
    )
    comment = st.text_area(
        "意見 Comment" + ("" if approve else "（退回必填 required to reject）"),
        key="decision.comment",
        placeholder=_labels.placeholder("comment"),
    )
    result = _result_fields() if approve and item.kind == "engineering" else None
    confirm, cancel = st.columns(2)
    if cancel.button("取消 Cancel", key="decision.cancel"):
        _stop_deciding()
        st.rerun()
    if not confirm.button("確認 Confirm", key="decision.confirm", type="primary"):
        return
    if not approve and not comment.strip():
        st.error("退回需要意見。A comment is required to reject.")
        return
    try:
        outcome = desk.decide(
            who, approval_id, approve=approve, comment=comment, seen_revision=seen, result=result
        )
    except (StaleRevision, InvalidInput) as exc:
        st.error(f"無法決定 Could not decide — {error_text(exc)}")
        if isinstance(exc, StaleRevision):
            changes(desk.changes_since(who, item.task_id, seen))
            st.caption("重新載入以查看最新內容。Reload to see the current draft.")
            if st.button("重新載入 Reload", key="decision.reload"):
                remember(Keys.seen(approval_id), None)
                _stop_deciding()
                st.rerun()
        return
    except MemdeskError as exc:
        show_error(exc)
        return
    remember(Keys.seen(approval_id), None)
    _stop_deciding()
    toast_next(
        f"已{'核准' if approve else '退回'} {'approved' if approve else 'rejected'} "
        f"{outcome.approval.task_id} {outcome.approval.item_key} → "
        f"{_labels.status(outcome.state.status.value)}"
    )
    st.rerun()


def changes(diff: ChangesSince, *, key: str = "stale.changes") -> None:
    """What changed on a task since the revision a person saw (instead of a traceback)."""
    with st.container(border=True, key=key):
        st.markdown(
            f"**{escape(diff.task_id)}**: 版次 revision {diff.seen_revision} → "
            f"{diff.current_revision}"
        )
        for change in diff.changes:
            st.markdown(
                f"- {escape(_labels.field(change.field))}: {escape(_labels.value(change.before))}"
                f" → {escape(_labels.value(change.after))}"
            )
        for write in diff.writes:
            st.markdown(f"- {escape(write)}")

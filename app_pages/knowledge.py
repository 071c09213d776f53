"""Knowledge owners (/knowledge, /knowledge?candidate=...): what waits, the candidate with its
diff, edits as new revisions, approve / withdraw / reject, publish, and revoke with a dialog."""

from __future__ import annotations

import streamlit as st

from app_pages import _labels, _session, _ui
from services.core.errors import MemdeskError, NotFound
from services.publishing.candidates import CandidateReview, CandidateView
from services.publishing.diff import DiffSegment, TextDiff
from services.publishing.publisher import PublishProgress

STATUSES = {
    "pending": "待審 Pending",
    "approved": "已核准待發布 Approved",
    "published": "已發布 Published",
    "rejected": "已駁回 Rejected",
    "revised": "已修訂 Revised",
}
ALL_VERSIONS = "全部版本 All versions"
REVOKING = "knowledge.revoking"  # [document_id, version or 0 for all] while confirming

principal = _session.require_page("knowledge")
services = _session.services()
_ui.flush_toast()
st.title("知識審核 Knowledge")
st.caption(
    "候選知識在核准前一律是推論，不會被引用。Candidates stay inferences, never cited, until a "
    "knowledge owner approves and publishes them."
)


def inline_diff(segments: list[DiffSegment]) -> str:
    """Deleted text struck through on red, inserted text on green; all of it escaped."""
    parts = []
    for segment in segments:
        if segment.kind == "equal":
            parts.append(_ui.escape(segment.text, line_start=False))
            continue
        style = "red-background" if segment.kind == "delete" else "green-background"
        lines = segment.text.replace("\r\n", "\n").split("\n")  # a directive cannot span lines
        strike = "~~" if segment.kind == "delete" else ""
        parts.append(
            "  \n".join(
                f":{style}[{strike}{_ui.escape(line)}{strike}]" if line else "" for line in lines
            )
        )
    return "".join(parts)


def label(candidate: CandidateView) -> str:
    target = f"v{candidate.base_version}" if candidate.base_version is not None else "新 new"
    return (
        f"{candidate.document_id} ({target}) · {candidate.title[:40]} · "
        f"{_labels.status(candidate.status)} · {candidate.candidate_id}"
    )


def side_by_side(diff: TextDiff, left: str, *, key: str) -> None:
    """Changed lines beside each other; a static table, so no column is cut off."""
    rows = [r for r in diff.rows if r.kind != "equal"] or diff.rows
    with st.container(key=key):
        st.table(
            [
                {
                    "#": r.right_no or r.left_no,
                    "變更 change": _labels.kind(r.kind),
                    left: r.left or "",
                    "提議 Proposed": r.right or "",
                }
                for r in rows
            ]
        )


def show_review(review: CandidateReview) -> None:
    candidate, current = review.candidate, review.current
    edited = next((s for s in reversed(candidate.sources) if s.kind == "candidate"), None)
    st.markdown(
        f"**{_ui.escape(candidate.title)}** · {_ui.badge_md(candidate.status)} · "
        f"修訂 revision {candidate.revision}"
        + (f"（{_ui.escape(edited.by)} 編輯 edited）" if edited and edited.by else "")
        + f" · {_ui.escape(_labels.kind(candidate.origin))} · "
        f"提議 proposed by {_ui.escape(candidate.proposed_by)}"
    )
    if review.newer:
        st.info("此候選已有新修訂。This candidate was replaced by a newer revision.")
        st.page_link(
            "app_pages/knowledge.py",
            label=f"開啟新修訂 Open the newer revision {review.newer}",
            icon=":material/edit_note:",
            query_params={"candidate": review.newer},
        )
    if candidate.rationale:
        st.markdown(f"理由 Rationale: {_ui.escape(candidate.rationale)}")
    if not review.base_is_current:
        st.warning("提議之後已發布了新版本。A newer version was published since this was proposed.")
    if review.previous is not None and review.revision_diff is not None:
        with st.container(border=True, key="knowledge.revision"):
            st.subheader("本次修訂 This revision's edit")
            if review.title_changed:
                st.markdown(
                    f"標題 Title: ~~{_ui.escape(review.previous.title)}~~ → "
                    f"**{_ui.escape(candidate.title)}**"
                )
            st.markdown(inline_diff(review.revision_diff.inline))
    st.subheader("來源 Sources")
    shown = [s for s in candidate.sources if s.kind != "candidate"]
    if not shown:
        st.caption("沒有列出來源。No sources listed.")
    for source in shown:
        with st.container(border=True):
            st.caption(f"{_labels.kind(source.kind)} · {source.ref}")
            if source.quote:
                _ui.text(source.quote)
    left = f"現行 Current {current.ref}" if current else "現行 Current (無 none)"
    st.subheader("與現行版本的差異 Diff against the current version")
    side_by_side(review.diff, left, key="knowledge.side_by_side")
    with st.container(border=True, key="knowledge.inline"):
        st.markdown(inline_diff(review.diff.inline))


def edit(candidate: CandidateView) -> None:
    with st.expander("編輯標題與內文 Edit title and body", expanded=False):
        with st.form("knowledge.edit_form", clear_on_submit=False):
            title = st.text_input("標題 Title", value=candidate.title, key="knowledge.edit_title")
            body = st.text_area(
                "內文 Body", value=candidate.body, height=300, key="knowledge.edit_body"
            )
            note = st.text_input("修訂說明 Note", key="knowledge.edit_note")
            saved = st.form_submit_button("儲存為新修訂 Save as a new revision")
        if saved:
            with _ui.domain_errors():
                revision = services.candidates.revise(
                    principal, candidate.candidate_id, title=title, body=body, note=note
                )
                _ui.toast_next(f"已存為修訂 Saved as revision {revision.revision}")
                for key in ("knowledge.edit_title", "knowledge.edit_body", "knowledge.edit_note"):
                    st.session_state.pop(key, None)
                st.query_params["candidate"] = revision.candidate_id
                st.rerun()


def decide(review: CandidateReview) -> None:
    candidate_id = review.candidate.candidate_id
    if review.why_not:
        st.warning(_ui.escape(review.why_not))
    comment = st.text_input("核准意見 Comment", key="knowledge.comment")
    if st.button("核准 Approve", key="knowledge.approve", disabled=not review.can_approve):
        with _ui.domain_errors():
            services.candidates.approve(principal, candidate_id, comment=comment)
            _ui.toast_next(f"已核准 Approved {candidate_id}")
            st.rerun()
    reject(candidate_id)


def reject(candidate_id: str) -> None:
    reason = st.text_input("駁回理由 Reason to reject", key="knowledge.reason")
    if st.button("駁回 Reject", key="knowledge.reject"):
        with _ui.domain_errors():
            services.candidates.reject(principal, candidate_id, reason=reason)
            _ui.toast_next(f"已駁回 Rejected {candidate_id}")
            st.rerun()


def publish(candidate_id: str) -> None:
    if st.button("發布新版本 Publish", key="knowledge.publish", type="primary"):
        with st.status("發布中 Publishing…", expanded=True) as status:

            def progress(step: PublishProgress) -> None:
                status.write(f"{step.done}/{step.total} {_ui.escape(step.message)}")

            try:
                result = services.publisher.publish(principal, candidate_id, progress=progress)
            except MemdeskError as exc:
                status.update(label="發布失敗 Publishing failed", state="error")
                _ui.show_error(exc)
                return
            status.update(label=f"已發布 Published {result.document.ref}", state="complete")
        superseded = ", ".join(f"v{v}" for v in result.superseded) or "—"
        st.success(
            f"已發布 Published {_ui.escape(result.document.ref)}，取代 superseded {superseded}。"
        )
        if result.cleanup_pending:
            st.info("舊版索引內容稍後清除。The previous version's index content is removed later.")
        for draft in result.flagged_drafts:
            st.warning(
                f"草稿引用舊版 Stale draft: 任務 task {_ui.escape(draft.task_id)} · "
                f"#{draft.approval_id} cites {_ui.escape(', '.join(draft.cited))}"
            )
        return
    with st.expander("撤回核准或駁回 Withdraw the approval or reject", expanded=False):
        reason = st.text_input("理由 Reason", key="knowledge.withdraw_reason")
        back, no = st.columns(2)
        if back.button("撤回核准（回到待審）Withdraw approval", key="knowledge.withdraw"):
            with _ui.domain_errors():
                services.candidates.withdraw(principal, candidate_id, reason=reason)
                _ui.toast_next(f"已撤回核准 Approval withdrawn {candidate_id}")
                st.rerun()
        if no.button("駁回 Reject", key="knowledge.reject_approved"):
            with _ui.domain_errors():
                services.candidates.reject(principal, candidate_id, reason=reason)
                _ui.toast_next(f"已駁回 Rejected {candidate_id}")
                st.rerun()


def _stop_revoking() -> None:
    st.session_state.pop(REVOKING, None)
    st.session_state.pop("knowledge.revoke_reason", None)


@st.dialog("確認撤銷 Confirm revocation", on_dismiss=_stop_revoking)
def confirm_revoke(document_id: str, version: int | None) -> None:
    versions = _ui.or_stop(lambda: services.knowledge.versions(principal, document_id))
    affected = [
        v
        for v in versions
        if (version is None and v.status in ("approved", "superseded")) or v.version == version
    ]
    named = ", ".join(
        f"{document_id}@{v.version} ({_labels.status(v.status)}, "
        f"{v.valid_from} → {v.valid_to or '∞'})"
        for v in affected
    )
    st.markdown(f"您將撤銷 You will revoke: **{_ui.escape(named)}**")
    st.markdown(
        "將清除 What is purged: 這些版本在索引中的向量與快取，並驗證已清除；"
        "引用它們的草稿會被標示。"
        "Their vectors and cache entries in the index, with the purge verified; drafts that "
        "cite them are flagged. 文件版本本身保留為已撤銷 The versions stay on record as revoked."
    )
    reason = st.text_input("撤銷理由 Reason", key="knowledge.revoke_reason")
    go, cancel = st.columns(2)
    if cancel.button("取消 Cancel", key="knowledge.revoke_cancel"):
        _stop_revoking()
        st.rerun()
    if not go.button("確認撤銷 Revoke", key="knowledge.revoke_confirm", type="primary"):
        return
    try:
        result = services.publisher.revoke(principal, document_id, version=version, reason=reason)
    except MemdeskError as exc:
        _ui.show_error(exc)
        return
    revoked = ", ".join(f"v{v}" for v in result.versions)
    _stop_revoking()
    if result.purge_verified and result.purge is not None:
        _ui.toast_next(
            f"已撤銷 Revoked {document_id} {revoked}; purge verified "
            f"({result.purge.chunks_removed} chunks removed)"
        )
    else:
        _ui.toast_next(f"已撤銷 Revoked {document_id} {revoked}; purge NOT verified")
    st.rerun()


def waiting_counts() -> None:
    counts = _ui.or_stop(lambda: services.candidates.waiting(principal))
    first, second, third = st.columns(3)
    first.metric("待審候選 Candidates to review", counts.pending)
    second.metric("已核准待發布 Approved, not published", counts.approved)
    third.metric("送審中的文件版本 Submitted versions", counts.submitted)
    if counts.submitted and st.button(
        "收入送審中的文件版本 Bring submitted versions into the queue", key="knowledge.adopt"
    ):
        with _ui.domain_errors():
            adopted = services.candidates.adopt_pending(principal)
            _ui.toast_next(f"{len(adopted)} 筆加入佇列 added to the queue")
            st.rerun()


def _pick() -> None:
    chosen = st.session_state.get("knowledge.pick")
    if isinstance(chosen, str) and chosen:
        st.query_params["candidate"] = chosen


queue_tab, revoke_tab = st.tabs(["候選知識 Candidates", "撤銷 Revoke"])
with queue_tab:
    waiting_counts()
    status_choice = st.selectbox(
        "狀態 Status", list(STATUSES), format_func=STATUSES.__getitem__, key="knowledge.status"
    )
    candidates = _ui.or_stop(lambda: services.candidates.list(principal, statuses=[status_choice]))
    # A dict's lookup, not a lambda: the format function is kept in session state, which must
    # stay picklable (runner.enforceSerializableSessionState).
    labels = {c.candidate_id: label(c) for c in candidates}
    if candidates:
        st.selectbox(
            "候選 Candidate",
            list(labels),
            format_func=labels.__getitem__,
            index=None,
            placeholder="選擇候選 Choose a candidate",
            key="knowledge.pick",
            on_change=_pick,
        )
    else:
        st.info("沒有此狀態的候選知識。No candidates with this status.")
    chosen = _ui.query("candidate")
    if chosen is not None:
        try:
            review = services.candidates.review(principal, chosen)
        except NotFound:
            _ui.not_found("candidate", chosen)
        except MemdeskError as exc:
            _ui.show_error(exc)
        else:
            with st.container(border=True, key="knowledge.candidate"):
                show_review(review)
                status = review.candidate.status
                if status == "pending":
                    edit(review.candidate)
                    decide(review)
                elif status == "approved":
                    publish(chosen)
                elif review.candidate.published_version is not None:
                    st.info(f"已發布為 Published as v{review.candidate.published_version}")

with revoke_tab:
    page = _ui.or_stop(
        lambda: services.knowledge.search(principal, statuses=["approved", "superseded"], limit=500)
    )
    versions: dict[str, list[int]] = {}
    current: dict[str, int] = {}
    for doc in page.items:
        versions.setdefault(doc.document_id, []).append(doc.version)
        if doc.status == "approved":
            current[doc.document_id] = max(current.get(doc.document_id, 0), doc.version)
    if not versions:
        st.info("沒有可撤銷的文件。No documents to revoke.")
    else:
        document_id = st.selectbox("文件 Document", sorted(versions), key="knowledge.revoke_doc")
        choices = sorted(versions[document_id], reverse=True)
        # One version by default: the current one (all versions must be chosen on purpose).
        default = choices.index(current[document_id]) if document_id in current else 0
        names: dict[int | str, str] = {v: f"v{v}" for v in choices}
        names[ALL_VERSIONS] = ALL_VERSIONS
        version = st.selectbox(
            "版本 Version",
            list(names),
            index=default,
            format_func=names.__getitem__,
            key=f"knowledge.revoke_version.{document_id}",  # each document starts at its current
        )
        if st.button("撤銷… Revoke…", key="knowledge.revoke", type="primary"):
            st.session_state[REVOKING] = [document_id, 0 if version == ALL_VERSIONS else version]
    revoking = st.session_state.get(REVOKING)
    if isinstance(revoking, list) and len(revoking) == 2:
        confirm_revoke(str(revoking[0]), int(revoking[1]) or None)

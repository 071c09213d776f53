"""Knowledge owners: the candidate queue, the diff against the current version, publish, revoke."""

from __future__ import annotations

import streamlit as st

from app_pages import _session, _ui
from services.core.errors import MemdeskError
from services.publishing.candidates import CandidateReview, CandidateView
from services.publishing.diff import DiffSegment
from services.publishing.publisher import PublishProgress

STATUSES = {
    "pending": "待審 Pending",
    "approved": "已核准待發布 Approved",
    "published": "已發布 Published",
    "rejected": "已駁回 Rejected",
}
ALL_VERSIONS = "全部版本 All versions"

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
        f"{candidate.document_id} ({target}) · {candidate.proposed_by} · {candidate.candidate_id}"
    )


def show_review(review: CandidateReview) -> None:
    candidate, current = review.candidate, review.current
    st.markdown(
        f"**{_ui.escape(candidate.title)}** · {_ui.badge_md(candidate.status)} · "
        f"{_ui.escape(candidate.origin)} · {_ui.escape(candidate.proposed_by)}"
    )
    if candidate.rationale:
        st.markdown(f"理由 Rationale: {_ui.escape(candidate.rationale)}")
    if not review.base_is_current:
        st.warning("提議之後已發布了新版本。A newer version was published since this was proposed.")
    st.subheader("來源 Sources")
    if not candidate.sources:
        st.caption("沒有列出來源。No sources listed.")
    for source in candidate.sources:
        with st.container(border=True):
            st.caption(f"{source.kind} · {source.ref}")
            if source.quote:
                _ui.text(source.quote)
    left = f"現行 Current {current.ref}" if current else "現行 Current (無 none)"
    st.subheader("差異 Diff")
    st.dataframe(
        {
            "#": [r.right_no or r.left_no for r in review.diff.rows],
            "變更 change": [r.kind for r in review.diff.rows],
            left: [r.left or "" for r in review.diff.rows],
            "提議 Proposed": [r.right or "" for r in review.diff.rows],
        },
        hide_index=True,
        key="knowledge.side_by_side",
    )
    with st.container(border=True, key="knowledge.inline"):
        st.markdown(inline_diff(review.diff.inline))


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
    reason = st.text_input("駁回理由 Reason to reject", key="knowledge.reason")
    if st.button("駁回 Reject", key="knowledge.reject"):
        with _ui.domain_errors():
            services.candidates.reject(principal, candidate_id, reason=reason)
            _ui.toast_next(f"已駁回 Rejected {candidate_id}")
            st.rerun()


def publish(candidate_id: str) -> None:
    if not st.button("發布新版本 Publish", key="knowledge.publish", type="primary"):
        return
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


queue_tab, revoke_tab = st.tabs(["候選知識 Candidates", "撤銷 Revoke"])
with queue_tab:
    if st.button(
        "收入送審中的文件版本 Bring submitted versions into the queue", key="knowledge.adopt"
    ):
        with _ui.domain_errors():
            adopted = services.candidates.adopt_pending(principal)
            _ui.toast_next(f"{len(adopted)} 筆加入佇列 added to the queue")
            st.rerun()
    status_choice = st.selectbox(
        "狀態 Status", list(STATUSES), format_func=STATUSES.__getitem__, key="knowledge.status"
    )
    candidates = _ui.or_stop(lambda: services.candidates.list(principal, statuses=[status_choice]))
    if not candidates:
        st.info("沒有此狀態的候選知識。No candidates with this status.")
    else:
        # A dict's lookup, not a lambda: the format function is kept in session state, which
        # must stay picklable (runner.enforceSerializableSessionState).
        labels = {c.candidate_id: label(c) for c in candidates}
        chosen = st.selectbox(
            "候選 Candidate", list(labels), format_func=labels.__getitem__, key="knowledge.pick"
        )
        review = _ui.or_stop(lambda: services.candidates.review(principal, chosen))
        show_review(review)
        if review.candidate.status == "pending":
            decide(review)
        elif review.candidate.status == "approved":
            publish(chosen)
        elif review.candidate.published_version is not None:
            st.info(f"已發布為 Published as v{review.candidate.published_version}")

with revoke_tab:
    page = _ui.or_stop(
        lambda: services.knowledge.search(principal, statuses=["approved", "superseded"], limit=500)
    )
    versions: dict[str, list[int]] = {}
    for doc in page.items:
        versions.setdefault(doc.document_id, []).append(doc.version)
    if not versions:
        st.info("沒有可撤銷的文件。No documents to revoke.")
    else:
        document_id = st.selectbox("文件 Document", sorted(versions), key="knowledge.revoke_doc")
        version = st.selectbox(
            "版本 Version",
            [ALL_VERSIONS, *sorted(versions[document_id], reverse=True)],
            key="knowledge.revoke_version",
        )
        reason = st.text_input("撤銷理由 Reason", key="knowledge.revoke_reason")
        if st.button("撤銷並清除索引 Revoke and purge", key="knowledge.revoke", type="primary"):
            with _ui.domain_errors():
                result = services.publisher.revoke(
                    principal,
                    document_id,
                    version=None if version == ALL_VERSIONS else int(version),
                    reason=reason,
                )
                revoked = ", ".join(f"v{v}" for v in result.versions)
                if result.purge_verified and result.purge is not None:
                    st.success(
                        f"已撤銷 Revoked {_ui.escape(document_id)} {revoked}；清除已驗證 Purge "
                        f"verified: {result.purge.chunks_removed} chunks removed, "
                        f"{result.purge.vectors_remaining} vectors and "
                        f"{result.purge.cache_entries_remaining} cache entries left."
                    )
                else:
                    st.error(
                        f"已撤銷 Revoked {_ui.escape(document_id)} {revoked}，但清除未驗證 "
                        f"purge NOT verified: {_ui.escape(result.purge_error or result.purge)}"
                    )
                for draft in result.flagged_drafts:
                    st.warning(
                        f"草稿引用已撤銷版本 Draft cites revoked text: 任務 task "
                        f"{_ui.escape(draft.task_id)} · #{draft.approval_id}"
                    )

"""CLI for knowledge publishing: `candidates ...`, `publish`, `revoke`, `check-citations`."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import AsUser, JsonFlag, emit, open_services, principal_for, run_command
from services.core.errors import InvalidInput
from services.publishing.candidates import CandidateReview, CandidateView, Proposal
from services.publishing.publisher import PublishProgress, PublishResult
from services.publishing.revocation import RevocationResult

candidates_app = typer.Typer(no_args_is_help=True, help="Candidate knowledge: propose, review.")


def register(app: typer.Typer) -> None:
    app.add_typer(candidates_app, name="candidates")
    app.command("publish")(publish)
    app.command("revoke")(revoke)
    app.command("check-citations")(check_citations)


# ---- candidates ------------------------------------------------------------------------------
@candidates_app.command("list")
def candidates_list(
    as_user: AsUser,
    status: Annotated[list[str] | None, typer.Option("--status")] = None,
    as_json: JsonFlag = False,
) -> None:
    """The candidate queue (knowledge owners) or your own proposals."""
    with open_services() as s:
        items = run_command(lambda: s.candidates.list(principal_for(s, as_user), statuses=status))
        emit(
            [c.model_dump(mode="json") for c in items],
            as_json=as_json,
            text=lambda: "\n".join(_line(c) for c in items) or "no candidates",
        )


@candidates_app.command("show")
def candidates_show(candidate_id: str, as_user: AsUser, as_json: JsonFlag = False) -> None:
    """A candidate with its sources and the diff against the current approved version."""
    with open_services() as s:
        review = run_command(lambda: s.candidates.review(principal_for(s, as_user), candidate_id))
        emit(review, as_json=as_json, text=lambda: _review_text(review))


@candidates_app.command("propose")
def candidates_propose(
    as_user: AsUser,
    document_id: Annotated[str, typer.Option("--document", help="Existing or new document id.")],
    body: Annotated[str | None, typer.Option("--body", help="The proposed text.")] = None,
    body_file: Annotated[Path | None, typer.Option("--body-file")] = None,
    title: Annotated[str | None, typer.Option("--title")] = None,
    origin: Annotated[str, typer.Option("--origin", help="correction|inference|memory")] = (
        "correction"
    ),
    evidence: Annotated[
        list[str] | None, typer.Option("--evidence", help="DOC@V:START-END")
    ] = None,
    memory: Annotated[list[str] | None, typer.Option("--memory", help="Memory id.")] = None,
    run_id: Annotated[str | None, typer.Option("--run")] = None,
    claim: Annotated[
        int | None, typer.Option("--claim", help="Propose claim N (0-based) of --run's decision.")
    ] = None,
    rationale: Annotated[str | None, typer.Option("--rationale")] = None,
    doc_type: Annotated[str | None, typer.Option("--doc-type")] = None,
    acl: Annotated[list[str] | None, typer.Option("--acl")] = None,
    append: Annotated[
        bool, typer.Option("--append", help="The text is added to the current version.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Propose new text for a document (it stays an inference until a knowledge owner approves)."""
    with open_services() as s:

        def propose() -> CandidateView:
            if claim is not None:
                if run_id is None or body is not None or body_file is not None:
                    raise InvalidInput("--claim takes its text from --run (no --body/--body-file)")
                return s.candidates.propose_from_run(
                    principal_for(s, as_user),
                    run_id=run_id,
                    claim=claim,
                    document_id=document_id,
                    title=title,
                    rationale=rationale,
                )
            if (body is None) == (body_file is None):
                raise InvalidInput("give the proposed text with exactly one of --body/--body-file")
            text = body if body is not None else _read(body_file)
            if origin not in ("correction", "inference", "memory"):
                raise InvalidInput(f"--origin must be correction, inference or memory: {origin}")
            return s.candidates.propose(
                principal_for(s, as_user),
                Proposal(
                    document_id=document_id,
                    body=text,
                    origin=origin,
                    title=title,
                    evidence_ids=evidence or [],
                    memory_ids=memory or [],
                    run_id=run_id,
                    rationale=rationale,
                    doc_type=doc_type,
                    acl=acl,
                    append=append,
                ),
            )

        candidate = run_command(propose)
        emit(candidate, as_json=as_json, text=lambda: f"proposed {_line(candidate)}")


@candidates_app.command("adopt")
def candidates_adopt(as_user: AsUser, as_json: JsonFlag = False) -> None:
    """Bring document versions submitted as pending_approval into the candidate queue."""
    with open_services() as s:
        adopted = run_command(lambda: s.candidates.adopt_pending(principal_for(s, as_user)))
        emit(
            [c.model_dump(mode="json") for c in adopted],
            as_json=as_json,
            text=lambda: "\n".join(f"adopted {_line(c)}" for c in adopted) or "nothing to adopt",
        )


@candidates_app.command("approve")
def candidates_approve(
    candidate_id: str,
    as_user: AsUser,
    comment: Annotated[str, typer.Option("--comment")] = "",
    as_json: JsonFlag = False,
) -> None:
    """Approve a candidate (knowledge owners; never your own). Publish it with `publish`."""
    with open_services() as s:
        candidate = run_command(
            lambda: s.candidates.approve(principal_for(s, as_user), candidate_id, comment=comment)
        )
        emit(candidate, as_json=as_json, text=lambda: f"approved {_line(candidate)}")


@candidates_app.command("reject")
def candidates_reject(
    candidate_id: str,
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")],
    as_json: JsonFlag = False,
) -> None:
    """Reject a candidate with a reason."""
    with open_services() as s:
        candidate = run_command(
            lambda: s.candidates.reject(principal_for(s, as_user), candidate_id, reason=reason)
        )
        emit(candidate, as_json=as_json, text=lambda: f"rejected {_line(candidate)}")


# ---- publish, revoke, citations --------------------------------------------------------------
def publish(
    candidate_id: str,
    as_user: AsUser,
    valid_from: Annotated[str | None, typer.Option("--valid-from")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Publish an approved candidate as the next version: index built, verified, switched."""
    with open_services() as s:

        def progress(step: PublishProgress) -> None:
            typer.echo(f"[{step.done}/{step.total}] {step.message}", err=True)

        def run() -> PublishResult:
            start = _date(valid_from, "--valid-from")
            principal = principal_for(s, as_user)
            return s.publisher.publish(principal, candidate_id, valid_from=start, progress=progress)

        result = run_command(run)
        emit(result, as_json=as_json, text=lambda: _publish_text(result))


def revoke(
    document_id: str,
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")],
    version: Annotated[int | None, typer.Option("--version")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Revoke one version (--version) or the whole document; purge and verify the index."""
    with open_services() as s:
        result = run_command(
            lambda: s.publisher.revoke(
                principal_for(s, as_user), document_id, version=version, reason=reason
            )
        )
        payload = {**result.model_dump(mode="json"), "purge_verified": result.purge_verified}
        emit(payload, as_json=as_json, text=lambda: _revoke_text(result))
        if not result.purge_verified:
            raise typer.Exit(1)


def check_citations(approval_id: int, as_user: AsUser, as_json: JsonFlag = False) -> None:
    """Is the draft of an approval item still citing current versions?"""
    with open_services() as s:
        check = run_command(
            lambda: s.citations.check_approval(principal_for(s, as_user), approval_id)
        )
        payload = {**check.model_dump(mode="json"), "stale": check.stale}
        emit(
            payload,
            as_json=as_json,
            text=lambda: "\n".join(
                [
                    f"approval {check.approval_id} ({check.task_id}): "
                    f"{'STALE' if check.stale else 'current'}"
                ]
                + [
                    f"  {c.document_id}@{c.version}: {c.state}"
                    + (f" (current: v{c.current_version})" if c.current_version else "")
                    for c in check.citations
                ]
            ),
        )


def _line(c: CandidateView) -> str:
    base = f"@{c.base_version}" if c.base_version is not None else " (new)"
    return f"{c.candidate_id} {c.status} {c.document_id}{base} by {c.proposed_by} [{c.origin}]"


def _review_text(review: CandidateReview) -> str:
    c = review.candidate
    lines = [_line(c), f"title: {c.title}"]
    if c.rationale:
        lines.append(f"rationale: {c.rationale}")
    for source in c.sources:
        lines.append(f"source {source.kind} {source.ref}: {source.quote or '-'}")
    current = review.current
    lines.append(f"current: {current.ref if current else 'none (new document)'}")
    if not review.base_is_current:
        lines.append("warning: a newer version was published since this was proposed")
    for row in review.diff.rows:
        mark = {"equal": " ", "replace": "~", "delete": "-", "insert": "+"}[row.kind]
        lines.append(f"{mark} {row.left or '':<40} | {row.right or ''}")
    lines.append(
        "you may approve" if review.can_approve else f"you may not approve: {review.why_not}"
    )
    return "\n".join(lines)


def _publish_text(result: PublishResult) -> str:
    lines = [
        f"published {result.document.ref} (valid from {result.document.valid_from}); "
        f"superseded {', '.join(f'v{v}' for v in result.superseded) or 'nothing'}"
    ]
    if result.cleanup_pending:
        lines.append("note: removing the previous version's index content is pending")
    lines += [
        f"stale draft: approval {d.approval_id} of task {d.task_id} cites {', '.join(d.cited)}"
        for d in result.flagged_drafts
    ]
    return "\n".join(lines)


def _revoke_text(result: RevocationResult) -> str:
    purge = result.purge
    lines = [
        f"revoked {result.document_id} version(s) {', '.join(map(str, result.versions))}: "
        f"{result.reason}",
        "purge verified" if result.purge_verified else f"purge NOT verified: {result.purge_error}",
    ]
    if purge is not None:
        lines.append(
            f"  chunks removed {purge.chunks_removed}, vectors left {purge.vectors_remaining}, "
            f"probe hits {purge.probe_hits}, cache entries left {purge.cache_entries_remaining}"
        )
    lines += [
        f"flagged draft: approval {d.approval_id} of task {d.task_id} cites {', '.join(d.cited)}"
        for d in result.flagged_drafts
    ]
    return "\n".join(lines)


def _read(path: Path | None) -> str:
    assert path is not None
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from exc


def _date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInput(f"{option} must be an ISO date YYYY-MM-DD, got {value!r}") from exc

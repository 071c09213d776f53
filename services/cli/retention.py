"""CLI for retention: `purge-expired`, `holds set|lift|list`, `retention show|set` (admins)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from services.cli.common import AsUser, JsonFlag, emit, open_services, principal_for, run_command

holds_app = typer.Typer(no_args_is_help=True, help="Legal holds (admins).")
retention_app = typer.Typer(no_args_is_help=True, help="Retention policies (admins).")

RecordType = Annotated[str, typer.Option("--type", help="task, document or memory.")]


def register(app: typer.Typer) -> None:
    app.command("purge-expired")(purge_expired)
    app.add_typer(holds_app, name="holds")
    app.add_typer(retention_app, name="retention")


def purge_expired(
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Remove tasks, document versions and memories past retention; held, incomplete and
    audit records stay."""
    with open_services() as services:
        report = run_command(
            lambda: services.retention.purge_expired(actor="system:retention", dry_run=dry_run)
        )
        emit(report, as_json=as_json, text=lambda: _purge_text(report))


def _purge_text(report: Any) -> str:
    verb = "would remove" if report.dry_run else "removed"
    lines = [
        f"{verb} {len(report.removed.get('task', []))} task(s); "
        f"{len(report.kept_on_hold.get('task', []))} kept under legal hold"
    ]
    for record_type in sorted(set(report.removed) | set(report.kept_on_hold)):
        if record_type == "task":
            continue
        lines.append(
            f"{verb} {len(report.removed.get(record_type, []))} {record_type}(s); "
            f"{len(report.kept_on_hold.get(record_type, []))} kept under legal hold"
        )
    lines += [f"  {verb}: {t} {key}" for t, keys in sorted(report.removed.items()) for key in keys]
    return "\n".join(lines)


# ---- holds and retention ---------------------------------------------------------------------
@holds_app.command("set")
def holds_set(
    record_id: str,
    as_user: AsUser,
    record_type: RecordType,
    reason: Annotated[str, typer.Option("--reason")],
    as_json: JsonFlag = False,
) -> None:
    """Put a record under legal hold (DOC or DOC@VERSION for documents)."""
    with open_services() as s:
        hold = run_command(
            lambda: s.retention.set_hold(
                principal_for(s, as_user),
                record_type=record_type,
                record_id=record_id,
                reason=reason,
            )
        )
        emit(hold, as_json=as_json, text=lambda: f"hold {hold.id} set on {record_type} {record_id}")


@holds_app.command("lift")
def holds_lift(
    hold_id: int,
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")],
    as_json: JsonFlag = False,
) -> None:
    """Lift a legal hold with a reason (the hold stays on record)."""
    with open_services() as s:
        hold = run_command(
            lambda: s.retention.lift_hold(principal_for(s, as_user), hold_id, reason=reason)
        )
        emit(hold, as_json=as_json, text=lambda: f"hold {hold.id} lifted")


@holds_app.command("list")
def holds_list(
    as_user: AsUser,
    all_holds: Annotated[bool, typer.Option("--all", help="Lifted holds too.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Legal holds of your tenant."""
    with open_services() as s:
        holds = run_command(
            lambda: s.retention.holds(principal_for(s, as_user), active_only=not all_holds)
        )
        emit(
            [h.model_dump(mode="json") for h in holds],
            as_json=as_json,
            text=lambda: (
                "\n".join(
                    f"{h.id}: {h.record_type} {h.record_id} — {h.reason} "
                    f"({'active' if h.active else 'lifted: ' + (h.lift_reason or '')})"
                    for h in holds
                )
                or "no legal holds"
            ),
        )


@retention_app.command("show")
def retention_show(as_user: AsUser, as_json: JsonFlag = False) -> None:
    """Your tenant's retention policies."""
    with open_services() as s:
        policies = run_command(lambda: s.retention.policies(principal_for(s, as_user)))
        emit(
            policies,
            as_json=as_json,
            text=lambda: (
                f"completed tasks: {policies.task_days} day(s)"
                f"{' (default)' if policies.task_days_is_default else ''}\n"
                f"finished document versions: "
                f"{policies.document_days or 'kept'}{' day(s)' if policies.document_days else ''}"
            ),
        )


@retention_app.command("set")
def retention_set(
    as_user: AsUser,
    record_type: RecordType,
    days: Annotated[int | None, typer.Option("--days", help="Omit to clear the policy.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Set how long finished tasks or document versions are kept."""
    with open_services() as s:
        policies = run_command(
            lambda: s.retention.set_policy(
                principal_for(s, as_user), record_type=record_type, days=days
            )
        )
        emit(policies, as_json=as_json, text=lambda: f"retention for {record_type} updated")

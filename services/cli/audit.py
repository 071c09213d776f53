"""CLI for the audit log's integrity: `audit verify` walks every tenant's keyed hash chain;
`audit seal` covers chains from before keyed hashes with a keyed entry (once, after upgrading)."""

from __future__ import annotations

from typing import Annotated

import typer

from services.cli.common import JsonFlag, emit, open_services, run_command
from services.records.audit_chain import ChainReport, seal_legacy_chains, verify_chain

audit_app = typer.Typer(no_args_is_help=True, help="The audit log (operators).")


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")


@audit_app.command("verify")
def verify(
    tenant: Annotated[str | None, typer.Option("--tenant", help="One tenant's chain.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Check every entry's hash and its link to the one before; exit 1 at a broken link."""
    with open_services() as services:
        report = run_command(lambda: verify_chain(services.db, tenant_id=tenant))
        emit(
            {**report.model_dump(mode="json"), "ok": report.ok},
            as_json=as_json,
            text=lambda: _text(report),
        )
        if not report.ok:
            raise typer.Exit(1)


@audit_app.command("seal")
def seal(as_json: JsonFlag = False) -> None:
    """Cover every chain that has no keyed entry yet (written before keyed hashes) with one
    keyed entry; a chain that does not verify is left alone and reported (exit 1)."""
    with open_services() as services:
        report = run_command(
            lambda: seal_legacy_chains(services.db, clock=services.clock, actor="system:audit")
        )
        emit(
            report,
            as_json=as_json,
            text=lambda: "\n".join(
                [f"sealed tenant {t}: covers {n} earlier entries" for t, n in report.sealed.items()]
                + [f"refused tenant {b.tenant_id}: {b.problem}" for b in report.refused]
                or ["nothing to seal: every chain is keyed"]
            ),
        )
        if report.refused:
            raise typer.Exit(1)


def _text(report: ChainReport) -> str:
    head = f"{report.entries} entries in {report.tenants} tenant chain(s)"
    if report.key_id:
        head += f", keyed with audit key {report.key_id}"
    if report.unkeyed:
        head += f" ({report.unkeyed} from before keyed hashes, covered by the keyed ones)"
    if report.ok:
        return f"{head}: every link verifies"
    lines = [f"{head}: {len(report.broken)} chain(s) broken"]
    lines += [
        f"  tenant {b.tenant_id}: first broken link at seq {b.seq} "
        f"(entry {b.entry_id}): {b.problem}"
        for b in report.broken
    ]
    return "\n".join(lines)

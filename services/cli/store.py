"""CLI for the store itself: `init`, `migrate`, `seed-demo`, `import`, `task show`, `schemas`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from services import bootstrap
from services.cli.common import AsUser, JsonFlag, emit, open_services, principal_for, run_command

task_app = typer.Typer(no_args_is_help=True, help="Inspect task state.")
schemas_app = typer.Typer(no_args_is_help=True, help="Interchange contracts.")


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(migrate)
    app.command("seed-demo")(seed_demo)
    app.command("import")(import_corpus)
    app.add_typer(task_app, name="task")
    app.add_typer(schemas_app, name="schemas")


def init() -> None:
    """Create the data directory and run the schema migrations."""
    with open_services() as services:
        run_command(lambda: bootstrap.initialise(services))
        typer.echo(f"initialised {services.settings.resolved_home}")


def migrate() -> None:
    """Bring the database schema to the latest migration."""
    init()


def seed_demo(as_json: JsonFlag = False) -> None:
    """Load the demo corpus (tenants A, B, C and the Q42 scenario). Safe to repeat."""
    with open_services() as services:
        report = run_command(lambda: bootstrap.seed_demo(services))
        emit(report, as_json=as_json, text=lambda: _import_text(report))


def import_corpus(
    corpus: Annotated[Path, typer.Argument(help="A corpus@1 JSON file.")],
    as_json: JsonFlag = False,
) -> None:
    """Import a corpus@1 file: all or nothing, idempotent."""
    with open_services() as services:
        run_command(lambda: bootstrap.initialise(services))
        report = run_command(lambda: services.importer.import_file(corpus))
        emit(report, as_json=as_json, text=lambda: _import_text(report))


@task_app.command("show")
def task_show(
    task_id: Annotated[str, typer.Argument()],
    as_user: AsUser,
    as_json: JsonFlag = False,
) -> None:
    """Print the restored task-state@1 of TASK as USER sees it."""
    with open_services() as services:

        def show() -> Any:
            principal = principal_for(services, as_user)
            return services.tasks.get(principal, task_id)

        record = run_command(show)
        emit(record.state, as_json=as_json, text=lambda: _task_text(record))


@schemas_app.command("export")
def schemas_export(
    directory: Annotated[Path, typer.Argument()] = Path("data/schemas"),
) -> None:
    """Write the JSON Schema of every contract into DIRECTORY."""
    from services.contracts import export_schemas

    for path in export_schemas(directory):
        typer.echo(str(path))


def _import_text(report: Any) -> str:
    if report.already_loaded:
        return f"already loaded {report.source}: nothing changed"
    lines = [f"imported {report.source}"]
    for label, counts in (
        ("created", report.created),
        ("updated", report.updated),
        ("unchanged", report.unchanged),
    ):
        if counts:
            lines.append(f"  {label}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    lines += [f"  warning: {w}" for w in report.warnings]
    if report.index_sync == "deferred":
        lines.append(
            "  index: sync deferred (the index is unreachable); the next import, "
            "`memdesk index sync` or worker start does it"
        )
    elif report.index_sync == "synced":
        lines.append("  index: synced")
    return "\n".join(lines)


def _task_text(record: Any) -> str:
    state = record.state
    lines = [
        f"task {state.task_id} (tenant {state.tenant_id}) revision {state.revision}: "
        f"{state.status.value}",
        "confirmed:",
        *[f"  {key} = {value!r}" for key, value in state.confirmed.items()],
        f"pending: {', '.join(state.pending) or '-'}",
        f"next step: {state.next_step or '-'}",
        f"evidence: {', '.join(state.evidence_ids) or '-'}",
    ]
    for conflict in record.conflicts:
        lines.append(
            f"conflict: {conflict.field} confirmed {conflict.confirmed!r}, "
            f"proposed {conflict.proposed!r}"
        )
    return "\n".join(lines)

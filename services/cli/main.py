"""`memdesk` CLI (typer). Exit codes: 0 ok, 2 bad input (the message names it), 1 other failure."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel

from services import bootstrap
from services.bootstrap import Services
from services.errors import InvalidInput, MemdeskError
from services.principals import Principal

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="memdesk: governed memory for an AI virtual employee.",
)
task_app = typer.Typer(no_args_is_help=True, help="Inspect task state.")
schemas_app = typer.Typer(no_args_is_help=True, help="Interchange contracts.")
app.add_typer(task_app, name="task")
app.add_typer(schemas_app, name="schemas")

T = TypeVar("T")
AsUser = Annotated[str, typer.Option("--as", help="Act as this user id (identity, not a hint).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="ISO date that counts as 'now' for validity.")
]


@contextmanager
def _services() -> Iterator[Services]:
    services = bootstrap.build()
    try:
        yield services
    finally:
        services.close()


def run_command(fn: Callable[[], T]) -> T:
    """Turn domain errors into the CLI's exit codes with a one-line message on stderr."""
    try:
        return fn()
    except MemdeskError as exc:
        typer.echo(f"error: {exc}", err=True)
        for problem in getattr(exc, "problems", [])[:50]:
            if problem != str(exc):
                typer.echo(f"  - {problem}", err=True)
        raise typer.Exit(2 if exc.bad_input else 1) from exc


def parse_as_of(value: str | None) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as exc:
        raise InvalidInput(f"--as-of must be an ISO date YYYY-MM-DD, got {value!r}") from exc


def principal_for(services: Services, user_id: str) -> Principal:
    return services.directory.principal(user_id)


def emit(value: Any, *, as_json: bool, text: Callable[[], str] | None = None) -> None:
    if as_json or text is None:
        payload = value.model_dump(mode="json") if isinstance(value, BaseModel) else value
        sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=None if as_json else 2))
        sys.stdout.write("\n")
    else:
        typer.echo(text())


@app.command()
def init() -> None:
    """Create the data directory and run the schema migrations."""
    with _services() as services:
        run_command(lambda: bootstrap.initialise(services))
        typer.echo(f"initialised {services.settings.resolved_home}")


@app.command()
def migrate() -> None:
    """Bring the database schema to the latest migration."""
    init()


@app.command("seed-demo")
def seed_demo(as_json: JsonFlag = False) -> None:
    """Load the demo corpus (tenants A, B, C and the Q42 scenario). Safe to repeat."""
    with _services() as services:
        report = run_command(lambda: bootstrap.seed_demo(services))
        emit(report, as_json=as_json, text=lambda: _import_text(report))


@app.command("import")
def import_corpus(
    corpus: Annotated[Path, typer.Argument(help="A corpus@1 JSON file.")],
    as_json: JsonFlag = False,
) -> None:
    """Import a corpus@1 file: all or nothing, idempotent."""
    with _services() as services:
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
    with _services() as services:

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


@app.command("purge-expired")
def purge_expired(
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Remove tasks, document versions and memories past retention; held, incomplete and
    audit records stay."""
    with _services() as services:
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


from services.cli import agents as _agents  # noqa: E402 (needs the app and helpers above)
from services.cli import knowledge as _knowledge_cli  # noqa: E402 - needs the helpers above
from services.cli import memories as _memories_cli  # noqa: E402 - needs the helpers above
from services.cli import retrieval as _retrieval_cli  # noqa: E402 - needs the helpers above
from services.cli import users as _users_cli  # noqa: E402 - needs the helpers above

_agents.register(app)
_knowledge_cli.register(app)
_retrieval_cli.register(app)
_users_cli.register(app)
_memories_cli.register(app)


def main() -> None:
    try:
        app()
    except Exception as exc:  # an unexpected failure: exit 1 with one line, details on demand
        if os.environ.get("MEMDESK_DEBUG"):
            raise
        typer.echo(
            f"error: {type(exc).__name__}: {exc} (set MEMDESK_DEBUG=1 for details)", err=True
        )
        raise SystemExit(1) from exc


if __name__ == "__main__":
    main()

"""CLI for resuming work: `resume`, `runs list|show|cancel|recover`, `worker`."""

from __future__ import annotations

import threading
from typing import Annotated, Any

import typer

from services import bootstrap
from services.agents.runs import RunView
from services.agents.worker import stop_on_signals
from services.cli.common import (
    AsOf,
    AsUser,
    JsonFlag,
    emit,
    open_services,
    parse_as_of,
    principal_for,
    run_command,
)
from services.core.errors import MemdeskError

runs_app = typer.Typer(no_args_is_help=True, help="The runs queue: list, show, cancel.")


def register(app: typer.Typer) -> None:
    app.command("resume")(resume)
    app.command("worker")(worker)
    app.add_typer(runs_app, name="runs")


def resume(
    task_id: Annotated[str, typer.Argument(help="The task to resume.")],
    as_user: AsUser,
    supplement: Annotated[
        str | None, typer.Option("--supplement", help="New information from the customer.")
    ] = None,
    as_of: AsOf = None,
    as_json: JsonFlag = False,
) -> None:
    """Resume TASK: restore it, merge the supplement, gather evidence, analyse, review, and stop
    for people (approval, information or review). Runs in-process through the runs queue."""
    with open_services() as services:

        def go() -> dict[str, Any]:
            principal = principal_for(services, as_user)
            result = services.resumer.resume(
                principal, task_id, supplement=supplement, as_of=parse_as_of(as_of)
            )
            return {**result.as_json(), "run": _run_json(result.run)}

        result = run_command(go)
        emit(result, as_json=as_json, text=lambda: _resume_text(result))
        if not resume_succeeded(result):
            typer.echo(
                f"error: run {result['run_id']} {result['run']['status']}: "
                f"{result['run']['error']}",
                err=True,
            )
            raise typer.Exit(1)


def resume_succeeded(result: dict[str, Any]) -> bool:
    """Whether `resume` did its job. A draft that review refused is an answer, not a failure:
    the task waits `blocked` for a person with the reasons, and the command reports that. A run
    that could not finish (dead-lettered after retries: index, database or model unreachable),
    was cancelled, or failed before review gave a verdict is a failure."""
    run = result["run"]
    if run["status"] == "succeeded":
        return True
    refused = run["status"] == "failed" and run.get("review_passed") is False
    return refused and result["state"]["status"] == "blocked"


@runs_app.command("list")
def runs_list(
    as_user: AsUser,
    task: Annotated[str | None, typer.Option("--task")] = None,
    status: Annotated[list[str] | None, typer.Option("--status")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Runs of USER's tenant, newest first."""
    with open_services() as services:
        found = run_command(
            lambda: services.runs.search(
                principal_for(services, as_user), task_id=task, statuses=status
            )
        )
        payload = [_run_json(run) for run in found]
        emit(payload, as_json=as_json, text=lambda: "\n".join(_run_line(r) for r in found) or "-")


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument()], as_user: AsUser, as_json: JsonFlag = False
) -> None:
    """One run with its events (hand-off packets, retrievals, model calls, retries)."""
    with open_services() as services:

        def show() -> dict[str, Any]:
            principal = principal_for(services, as_user)
            run = services.runs.get(principal, run_id)
            events = services.runs.events(principal, run_id)
            return {**_run_json(run), "events": [e.model_dump(mode="json") for e in events]}

        payload = run_command(show)
        emit(payload, as_json=as_json, text=lambda: _show_text(payload))


@runs_app.command("cancel")
def runs_cancel(
    run_id: Annotated[str, typer.Argument()],
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")] = "cancelled from the CLI",
    as_json: JsonFlag = False,
) -> None:
    """Stop a run: no further model or tool call is scheduled; a cancel event is left."""
    with open_services() as services:
        run = run_command(
            lambda: services.runs.cancel(principal_for(services, as_user), run_id, reason=reason)
        )
        emit(_run_json(run), as_json=as_json, text=lambda: _run_line(run))


@runs_app.command("recover")
def runs_recover(as_json: JsonFlag = False) -> None:
    """Move on tasks whose approvals were all decided before a crash stopped them."""
    with open_services() as services:
        moved = run_command(services.approval_flow.recover_all)
        emit({"moved": moved}, as_json=as_json, text=lambda: f"moved {len(moved)} task(s)")


def worker(
    once: Annotated[
        bool, typer.Option("--once", help="Work until the queue is empty, then stop.")
    ] = False,
    poll: Annotated[float, typer.Option("--poll", help="Seconds between polls when idle.")] = 2.0,
    max_runs: Annotated[
        int, typer.Option("--max-runs", help="Stop after N attempts (0 = no limit).")
    ] = 0,
) -> None:
    """Claim runs from the SQL queue and execute them (start several for scale-out).

    SIGTERM or Ctrl-C: finish the attempt in hand, claim nothing more, exit 0.

    A killed worker loses nothing: its run is reclaimed after MEMDESK_RUN_TIMEOUT_SECONDS."""
    stop = threading.Event()
    with (
        stop_on_signals(stop, say=lambda text: typer.echo(text, err=True)),
        open_services() as services,
    ):
        typer.echo(f"worker {services.worker.worker_id} started", err=True)
        try:  # index syncs deferred while the index was unreachable are owed first
            services.index.catch_up()
        except MemdeskError as exc:
            typer.echo(f"error: deferred index sync still owed: {exc}", err=True)
        seconds = bootstrap.warm_up(services)  # before the first claim, not inside it
        typer.echo(f"worker {services.worker.worker_id} ready ({seconds:.1f} s warm-up)", err=True)

        def idle() -> None:
            try:
                services.approval_flow.recover_all()
            except MemdeskError as exc:
                typer.echo(f"error: {exc}", err=True)

        done = services.worker.serve(
            stop=stop,
            until_empty=once,
            max_runs=max_runs,
            poll_seconds=poll,
            on_run=lambda run: typer.echo(_run_line(run)),
            on_idle=idle,
            on_error=lambda exc: typer.echo(f"error: {exc}", err=True),
        )
        typer.echo(f"worker {services.worker.worker_id} stopped after {done} run(s)", err=True)


def _run_json(run: RunView) -> dict[str, Any]:
    return run.model_dump(mode="json", exclude={"decision", "review"}) | {
        "review_passed": (run.review or {}).get("passed"),
        "review_reasons": (run.review or {}).get("reasons", []),
    }


def _run_line(run: RunView) -> str:
    return (
        f"{run.run_id}\t{run.task_id}\t{run.status}\tattempts {run.attempts}/{run.max_attempts}"
        f"\tmodel calls {run.model_calls}\ttokens {run.tokens_in + run.tokens_out}"
        + (f"\t{run.error}" if run.error else "")
    )


def _resume_text(result: dict[str, Any]) -> str:
    state, run, decision = result["state"], result["run"], result["decision"] or {}
    lines = [
        f"run {result['run_id']}: {run['status']} — task {state['task_id']} is now "
        f"{state['status']} (revision {state['revision']})",
        f"decision: {decision.get('status', '-')} → {decision.get('proposed_next_action', '-')}",
    ]
    lines += [
        f"  • {c['text']}  [{', '.join(c['evidence_ids'])}]" for c in decision.get("claims", [])
    ]
    if decision.get("missing_fields"):
        lines.append(f"missing: {', '.join(decision['missing_fields'])}")
    if run.get("review_reasons"):
        lines.append("review refused the draft; a person takes over:")
        lines += [f"  review: {reason}" for reason in run["review_reasons"]]
    lines.append(f"next step: {state.get('next_step') or '-'}")
    return "\n".join(lines)


def _show_text(payload: dict[str, Any]) -> str:
    lines = [
        f"run {payload['run_id']} task {payload['task_id']}: {payload['status']} "
        f"(attempts {payload['attempts']}/{payload['max_attempts']}, prompt "
        f"{payload['prompt_id']}@{payload['prompt_version']}, model {payload['model']})"
    ]
    for event in payload["events"]:
        hop = f" {event['source_agent']}→{event['target_agent']}" if event["source_agent"] else ""
        lines.append(f"  {event['at']}  {event['kind']}{hop}")
    return "\n".join(lines)

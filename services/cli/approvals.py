"""CLI for people's decisions: `approvals list|approve|reject`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from services.cli.common import AsUser, JsonFlag, emit, open_services, principal_for, run_command

approvals_app = typer.Typer(no_args_is_help=True, help="Approval items: list, approve, reject.")


def register(app: typer.Typer) -> None:
    app.add_typer(approvals_app, name="approvals")


@approvals_app.command("list")
def approvals_list(
    as_user: AsUser,
    task: Annotated[str | None, typer.Option("--task")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Pending items USER may decide (or every item of TASK's current decision)."""
    with open_services() as services:

        def find() -> list[Any]:
            principal = principal_for(services, as_user)
            if task:
                return services.approval_flow.current(principal, task)
            return services.approval_flow.queue(principal)

        items = run_command(find)
        payload = [item.model_dump(mode="json") for item in items]
        emit(
            payload,
            as_json=as_json,
            text=lambda: (
                "\n".join(
                    f"{i.id}\t{i.task_id}\tv{i.decision_version}\t{i.item_key}\t{i.required_role}\t"
                    f"{i.status}"
                    for i in items
                )
                or "-"
            ),
        )


def _decide(as_user: str, approval_id: int, approve: bool, comment: str, as_json: bool) -> None:
    with open_services() as services:
        outcome = run_command(
            lambda: services.approval_flow.decide(
                principal_for(services, as_user), approval_id, approve=approve, comment=comment
            )
        )
        emit(
            outcome,
            as_json=as_json,
            text=lambda: (
                f"approval {approval_id} {outcome.approval.status}; task "
                f"{outcome.state.task_id} is {outcome.state.status.value}"
            ),
        )


@approvals_app.command("approve")
def approvals_approve(
    approval_id: Annotated[int, typer.Argument()],
    as_user: AsUser,
    comment: Annotated[str, typer.Option("--comment")] = "",
    as_json: JsonFlag = False,
) -> None:
    """Approve one item (records who, when and why; sends nothing anywhere)."""
    _decide(as_user, approval_id, True, comment, as_json)


@approvals_app.command("reject")
def approvals_reject(
    approval_id: Annotated[int, typer.Argument()],
    as_user: AsUser,
    comment: Annotated[str, typer.Option("--comment", help="Why (required).")] = "",
    as_json: JsonFlag = False,
) -> None:
    """Reject one item; the task goes back to waiting for input with the reason."""
    _decide(as_user, approval_id, False, comment, as_json)

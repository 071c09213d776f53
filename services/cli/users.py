"""CLI for local accounts: `users add | reset-password | list` (passwords never on the command
line unless asked for: typer prompts, hidden, with confirmation)."""

from __future__ import annotations

from typing import Annotated

import typer

from services.cli.common import JsonFlag, emit, open_services, run_command
from services.records.accounts import AccountView

users_app = typer.Typer(no_args_is_help=True, help="Local accounts: add, reset-password, list.")
Password = Annotated[
    str,
    typer.Option(
        "--password",
        prompt=True,
        hide_input=True,
        confirmation_prompt=True,
        envvar="MEMDESK_NEW_PASSWORD",
        help="Prompted (hidden) when not given; MEMDESK_NEW_PASSWORD also works.",
    ),
]
ACTOR = "system:cli"


def register(app: typer.Typer) -> None:
    app.add_typer(users_app, name="users")


@users_app.command("add")
def add(
    user_id: Annotated[str, typer.Argument()],
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant id the user belongs to.")],
    role: Annotated[list[str], typer.Option("--role", help="Repeat for several roles.")],
    password: Password,
    grant: Annotated[list[str] | None, typer.Option("--grant", help="e.g. customer:C-ACME")] = None,
    name: Annotated[str, typer.Option("--name", help="Display name.")] = "",
    email: Annotated[str | None, typer.Option("--email", help="For OIDC logins.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Create a local account with a password."""
    with open_services() as services:
        account = run_command(
            lambda: services.accounts.add_user(
                tenant_id=tenant,
                user_id=user_id,
                password=password,
                roles=role,
                grants=grant or [],
                display_name=name,
                email=email,
                actor=ACTOR,
            )
        )
        emit(account, as_json=as_json, text=lambda: f"added {_line(account)}")


@users_app.command("reset-password")
def reset_password(
    user_id: Annotated[str, typer.Argument()],
    password: Password,
    as_json: JsonFlag = False,
) -> None:
    """Set a new password for USER (clears a lockout)."""
    with open_services() as services:
        account = run_command(
            lambda: services.accounts.set_password(user_id, password, actor=ACTOR)
        )
        emit(account, as_json=as_json, text=lambda: f"password set for {account.user_id}")


@users_app.command("list")
def list_users(
    tenant: Annotated[str | None, typer.Option("--tenant")] = None,
    as_json: JsonFlag = False,
) -> None:
    """List accounts (never their hashes)."""
    with open_services() as services:
        accounts = run_command(lambda: services.accounts.all_accounts(tenant_id=tenant))
        emit(
            [a.model_dump(mode="json") for a in accounts],
            as_json=as_json,
            text=lambda: "\n".join(_line(a) for a in accounts) or "no users",
        )


def _line(account: AccountView) -> str:
    password = "password set" if account.has_password else "no password"
    return (
        f"{account.user_id} (tenant {account.tenant_id}) roles {','.join(account.roles)}"
        f" grants {','.join(account.grants) or '-'}; {password}"
    )

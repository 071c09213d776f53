"""`memdesk` CLI (typer): assembles one command group per area. Exit codes: 0 ok, 2 bad input
(the message names it), 1 other failure."""

from __future__ import annotations

import os

import typer

from services.cli import (
    agents,
    approvals,
    audit,
    bench,
    evaluation,
    memories,
    publishing,
    retention,
    retrieval,
    store,
    users,
)

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    help="memdesk: governed memory for an AI virtual employee.",
)
for area in (
    store,
    agents,
    approvals,
    retrieval,
    evaluation,
    publishing,
    retention,
    memories,
    users,
    audit,
    bench,
):
    area.register(app)


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

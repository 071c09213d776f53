"""What every `memdesk` command shares: options, the services, exit codes and output."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from typing import Annotated, Any, TypeVar

import typer
from pydantic import BaseModel

from services import bootstrap
from services.bootstrap import Services
from services.core.errors import InvalidInput, MemdeskError
from services.core.principals import Principal

T = TypeVar("T")
AsUser = Annotated[str, typer.Option("--as", help="Act as this user id (identity, not a hint).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
AsOf = Annotated[
    str | None, typer.Option("--as-of", help="ISO date that counts as 'now' for validity.")
]


@contextmanager
def open_services() -> Iterator[Services]:
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

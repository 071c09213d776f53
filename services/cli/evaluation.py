"""CLI for evaluation: `eval --corpus --golden` in a fresh temporary store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import JsonFlag, run_command
from services.lab import evaluation
from services.settings import Settings


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)


def eval_command(
    corpus: Annotated[Path, typer.Option("--corpus", help="corpus@1 file to load.")],
    golden: Annotated[Path, typer.Option("--golden", help="golden@1 cases to run.")],
    as_json: JsonFlag = False,
) -> None:
    """Run golden@1 cases against CORPUS in a fresh temporary store (never your data)."""
    report = run_command(lambda: evaluation.evaluate(Settings(), corpus=corpus, golden_path=golden))
    if as_json:
        sys.stdout.write(evaluation.dumps(report) + "\n")
    else:
        typer.echo(evaluation.render_text(report))

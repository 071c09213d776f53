"""CLI for evaluation: `eval --corpus --golden` and `eval-public DATASET`, in throwaway stores."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from services.cli.common import JsonFlag, run_command
from services.core.errors import InvalidInput
from services.lab import evaluation, memory_eval, public_eval
from services.settings import Settings

# Where the README tells you to put the downloaded file (git-ignored).
CMRC2018_DEFAULT = Path("data/cmrc2018/cmrc2018_dev.json")
SQUAD2_DEFAULT = Path("data/squad2/squad2_dev_subset.json")

public = typer.Typer(help="Evaluate on public datasets, side by side with plain baselines.")


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)
    app.command("eval-memory")(eval_memory_command)
    app.add_typer(public, name="eval-public")


MEMORY_GOLDEN_DEFAULT = Path("data/memory/memory-dev.golden.json")


def eval_memory_command(
    golden: Annotated[
        Path, typer.Option("--golden", help="memory-golden@1 cases to run.")
    ] = MEMORY_GOLDEN_DEFAULT,
    as_json: JsonFlag = False,
) -> None:
    """Memory Bank generation, consolidation and recall on GOLDEN, in a throwaway store."""
    report = run_command(lambda: memory_eval.evaluate(Settings(), golden_path=golden))
    if as_json:
        sys.stdout.write(memory_eval.dumps(report) + "\n")
    else:
        typer.echo(memory_eval.render_text(report))


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


@public.command("cmrc2018")
def cmrc2018_command(
    dataset: Annotated[
        Path,
        typer.Option("--dataset", help="cmrc2018_dev.json (SQuAD format), see the README."),
    ] = CMRC2018_DEFAULT,
    questions: Annotated[
        int, typer.Option("--questions", help="Questions to ask, spread evenly over passages.")
    ] = 400,
    write_dir: Annotated[
        Path | None,
        typer.Option("--write-dir", help="Also keep the converted corpus@1/golden@1 files here."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """CMRC 2018 dev: memdesk, BM25 and dense-only; answerability split; Traditional queries."""

    def run() -> dict[str, object]:
        if not dataset.is_file():
            raise InvalidInput(
                f"{dataset}: no such file. Get squad-style-data/cmrc2018_dev.json from the CMRC "
                "2018 repository (ymcui/cmrc2018) and pass it with --dataset PATH"
            )
        return public_eval.evaluate_cmrc2018(
            Settings(),
            dataset=dataset,
            questions=questions,
            write_dir=write_dir,
            progress=lambda line: typer.echo(f"eval-public: {line}", err=True),
        )

    report = run_command(run)
    if as_json:
        sys.stdout.write(public_eval.dumps(report) + "\n")
    else:
        typer.echo(public_eval.render_text(report))


@public.command("squad2")
def squad2_command(
    dataset: Annotated[
        Path,
        typer.Option("--dataset", help="A SQuAD 2.0 file (dev-v2.0.json or a part of it)."),
    ] = SQUAD2_DEFAULT,
    write_dir: Annotated[
        Path | None,
        typer.Option("--write-dir", help="Also keep the converted corpus@1/golden@1 files here."),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """SQuAD 2.0 dev: memdesk, BM25 and dense-only; answerability split; SQuAD's own
    unanswerable questions."""

    def run() -> dict[str, object]:
        if not dataset.is_file():
            raise InvalidInput(f"{dataset}: no such file (see data/squad2/README.md)")
        return public_eval.evaluate_squad2(
            Settings(),
            dataset=dataset,
            write_dir=write_dir,
            progress=lambda line: typer.echo(f"eval-public: {line}", err=True),
        )

    report = run_command(run)
    if as_json:
        sys.stdout.write(public_eval.dumps_squad2(report) + "\n")
    else:
        typer.echo(public_eval.render_squad2(report))

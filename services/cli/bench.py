"""CLI for every benchmark: `bench retrieval|ingest|load|soak`, each printing one JSON object."""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import typer

from services.cli.common import JsonFlag, emit, run_command
from services.settings import Settings

bench_app = typer.Typer(no_args_is_help=True, help="Benchmarks printing one JSON object.")


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")
    bench_app.command("load")(bench_load)
    bench_app.command("soak")(bench_soak)


@bench_app.command("retrieval")
def bench_retrieval(
    chunks: Annotated[int, typer.Option("--chunks")] = 100_000,
    tenants: Annotated[int, typer.Option("--tenants")] = 100,
    queries: Annotated[int, typer.Option("--queries")] = 300,
    curve: Annotated[
        bool,
        typer.Option(
            "--curve",
            help="1k, 3k, 10k and 30k chunks per tenant (--tenants of each), each in a fresh "
            "process; --chunks is not used.",
        ),
    ] = False,
    round_robin: Annotated[
        bool, typer.Option("--round-robin", help="Query tenant after tenant, in order.")
    ] = False,
    baseline: Annotated[
        bool, typer.Option("--baseline/--no-baseline", help="Also time the naive baseline.")
    ] = True,
    cache_mb: Annotated[
        int | None, typer.Option("--cache-mb", help="MEMDESK_RETRIEVAL_CACHE_MB for the run.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Governed retrieval vs one shared Chroma collection with a `where` filter."""
    from services.lab import bench_retrieval as bench

    settings = Settings()
    if cache_mb is not None:
        settings = settings.model_copy(update={"retrieval_cache_mb": cache_mb})
    if curve:
        result = run_command(lambda: bench.curve(settings, tenants=tenants, queries=queries))
    else:
        result = run_command(
            lambda: bench.retrieval(
                settings,
                chunks=chunks,
                tenants=tenants,
                queries=queries,
                round_robin=round_robin,
                baseline=baseline,
            )
        )
    emit(result, as_json=as_json, text=lambda: json.dumps(result, indent=2))


@bench_app.command("ingest")
def bench_ingest(
    chunks: Annotated[int, typer.Option("--chunks")] = 2000,
    rounds: Annotated[int, typer.Option("--rounds", help="Interleaved raw/ingest rounds.")] = 3,
    as_json: JsonFlag = False,
) -> None:
    """Chunk + embed + index + verify + switch with the default embedder, vs the raw model."""
    from services.lab import bench_retrieval as bench

    result = run_command(lambda: bench.ingest(Settings(), chunks=chunks, rounds=rounds))
    emit(result, as_json=as_json, text=lambda: json.dumps(result, indent=2))


def bench_load(
    tasks: Annotated[int, typer.Option("--tasks", help="Tasks resumed at once.")] = 2000,
    tenants: Annotated[int, typer.Option("--tenants")] = 20,
    workers: Annotated[int, typer.Option("--workers", help="`memdesk worker` processes.")] = 4,
    embedded: Annotated[
        bool, typer.Option("--embedded/--no-embedded", help="Also run the embedded default.")
    ] = True,
    pg_admin_url: Annotated[
        str,
        typer.Option(
            "--pg-admin-url",
            help="PostgreSQL server where a throwaway database is created and dropped.",
        ),
    ] = os.environ.get(
        "MEMDESK_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    ),
    as_json: JsonFlag = False,
) -> None:
    """Resume many tasks at once: scale-out vs embedded, every invariant checked.

    Scale-out: a fresh PostgreSQL database, a Chroma server on 127.0.0.1, N worker processes.
    Embedded: SQLite + a Chroma directory, one in-process worker."""
    from services.lab import bench_load

    result = run_command(
        lambda: bench_load.load(
            Settings(),
            tasks=tasks,
            tenants=tenants,
            workers=workers,
            embedded=embedded,
            pg_admin_url=pg_admin_url,
        )
    )
    emit(result, as_json=as_json, text=lambda: _load_text(result))


def _load_text(result: dict[str, Any]) -> str:
    lines = []
    for mode in (result, result.get("embedded")):
        if not mode:
            continue
        lines.append(
            f"{mode['mode']}: {mode['runs_terminal']}/{mode['runs_total']} runs settled, "
            f"{mode['throughput_runs_per_s']} runs/s, p50 {mode['run_latency_ms_p50']} ms, "
            f"p95 {mode['run_latency_ms_p95']} ms; lost updates {mode['lost_updates']}, "
            f"duplicate approvals {mode['duplicate_approvals']}, forbidden evidence "
            f"{mode['forbidden_evidence']}"
        )
    return "\n".join(lines)


def bench_soak(
    minutes: Annotated[float, typer.Option("--minutes", help="How long to mix operations.")] = 5.0,
    seed: Annotated[int, typer.Option("--seed")] = 7,
    min_operations: Annotated[
        int,
        typer.Option(
            "--min-operations",
            help="Go on past --minutes until this many operations have been tried.",
        ),
    ] = 0,
    scale_out: Annotated[
        bool,
        typer.Option("--scale-out", help="PostgreSQL + a loopback Chroma server, not embedded."),
    ] = False,
    pg_admin_url: Annotated[str, typer.Option("--pg-admin-url")] = os.environ.get(
        "MEMDESK_BENCH_PG_ADMIN_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
    ),
    as_json: JsonFlag = False,
) -> None:
    """Mix imports, publishes, revocations, runs, approvals; then check every invariant.

    Runs on a throwaway store; exits 1 if an invariant is broken."""
    from services.lab import bench_soak

    result = run_command(
        lambda: bench_soak.soak(
            Settings(),
            minutes=minutes,
            seed=seed,
            min_operations=min_operations,
            scale_out=scale_out,
            pg_admin_url=pg_admin_url,
        )
    )
    emit(result, as_json=as_json, text=lambda: _soak_text(result))
    if not result["invariants_ok"]:
        raise typer.Exit(1)


def _soak_text(result: dict[str, Any]) -> str:
    lines = [
        f"soak {result['elapsed_s']} s: {result['operations_total']} operations "
        + ", ".join(f"{k} {v}" for k, v in result["operations"].items())
    ]
    for name, check in result["checks"].items():
        verdict = "ok" if not check["violations"] else f"{check['violations']} VIOLATION(S)"
        lines.append(f"  {name}: {verdict} ({check['checked']} checked)")
        lines += [f"    - {example}" for example in check["examples"]]
    return "\n".join(lines)

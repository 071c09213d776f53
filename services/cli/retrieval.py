"""CLI for retrieval: `retrieve` and `index rebuild|sync|health|purge`."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

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
from services.retrieval.types import RetrievalResult

index_app = typer.Typer(no_args_is_help=True, help="The vector index: versions, sync, health.")


def register(app: typer.Typer) -> None:
    app.command("retrieve")(retrieve)
    app.add_typer(index_app, name="index")


def retrieve(
    query: Annotated[str, typer.Argument(help="What to look for, in any language.")],
    as_user: AsUser,
    as_of: AsOf = None,
    k: Annotated[int, typer.Option("--k", help="How many citations at most.")] = 5,
    customer: Annotated[
        str | None,
        typer.Option(
            "--customer", help="Search for this customer's work: no other customer's documents."
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Governed retrieval as USER: only approved, valid, readable evidence, re-verified."""
    with open_services() as services:

        def run() -> RetrievalResult:
            principal = principal_for(services, as_user)
            return services.retrieval.retrieve(
                principal, query, k=k, as_of=parse_as_of(as_of), customer_id=customer
            )

        result = run_command(run)
        if as_json:
            payload = {
                "status": result.status,
                "evidence": [
                    e.model_dump(
                        mode="json",
                        include={
                            "evidence_id",
                            "document_id",
                            "version",
                            "chunk_id",
                            "knowledge_class",
                            "title",
                            "start",
                            "end",
                            "quote",
                            "content_hash",
                        },
                    )
                    for e in result.evidence
                ],
                "conflicts": [c.model_dump(mode="json") for c in result.conflicts],
                "missing": result.missing,
                # Who judged whether the spans answer, and what the model calls cost.
                "reader": result.reader,
                "model_calls": result.model_calls,
                "tokens": result.tokens,
            }
            emit(payload, as_json=True)
        else:
            typer.echo(_retrieval_text(result))


@index_app.command("rebuild")
def index_rebuild(as_json: JsonFlag = False) -> None:
    """Build a new index version, verify it, switch to it atomically, drop the old one."""
    with open_services() as services:
        run_command(lambda: _initialised(services))
        info = run_command(services.index.rebuild)
        emit(
            info,
            as_json=as_json,
            text=lambda: (
                f"active index {info.index_version}: {info.chunk_count} chunks "
                f"({info.embedding_model}, {info.dimension}-d, {info.chunker_version})"
            ),
        )


@index_app.command("sync")
def index_sync(as_json: JsonFlag = False) -> None:
    """Bring the active index in line with SQL (what imports and publications trigger)."""
    with open_services() as services:
        run_command(lambda: _initialised(services))
        report = run_command(lambda: services.index.sync())
        emit(
            report,
            as_json=as_json,
            text=lambda: (
                f"index {report.index_version}: +{report.chunks_added} "
                f"-{report.chunks_removed} chunks" + (" (rebuilt)" if report.rebuilt else "")
            ),
        )


@index_app.command("health")
def index_health(as_json: JsonFlag = False) -> None:
    """Active version, counts, documents not yet searchable, orphans and leftovers."""
    with open_services() as services:
        health = run_command(services.index.health)
        payload = {**health.model_dump(mode="json"), "ok": health.ok}
        emit(payload, as_json=as_json, text=lambda: _health_text(payload))
        if not health.ok:
            raise typer.Exit(1)


@index_app.command("purge")
def index_purge(
    document_id: Annotated[str, typer.Argument()],
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant of the document.")],
    version: Annotated[int | None, typer.Option("--version")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Remove a document's vectors and cache entries and prove they are gone."""
    with open_services() as services:
        report = run_command(
            lambda: services.index.purge_document(
                tenant_id=tenant, document_id=document_id, version=version, actor="cli:purge"
            )
        )
        emit(
            report,
            as_json=as_json,
            text=lambda: (
                f"purged {report.chunks_removed} chunk(s) of {document_id}; "
                "verified gone from the store, SQL and caches"
            ),
        )


def _initialised(services: Any) -> None:
    from services import bootstrap

    bootstrap.initialise(services)


def _retrieval_text(result: RetrievalResult) -> str:
    lines = [f"status: {result.status}  (as of {result.as_of}, index {result.index_version})"]
    for e in result.evidence:
        label = " [history: a past decision, not a current commitment]" if e.is_history else ""
        lines.append(f"{e.rank}. {e.evidence_id}  {e.title}{label}")
        lines.append(f"   {e.quote.replace(chr(10), ' ')}")
    for conflict in result.conflicts:
        lines.append(f"conflict on {conflict.fact} ({conflict.unit}):")
        lines += [f"   {v.value}  {v.evidence_id}  「{v.quote}」" for v in conflict.values]
    if result.missing:
        lines.append("missing: " + ", ".join(result.missing))
    if result.dropped:
        lines.append("dropped by re-verification: " + json.dumps(result.dropped))
    if result.reader != "offline":
        lines.append(
            f"read by {result.reader} ({result.model_calls} model call(s), {result.tokens} tokens)"
        )
    return "\n".join(lines)


def _health_text(payload: dict[str, Any]) -> str:
    active = payload["active"] or {}
    lines = [
        f"index space {payload['space']}: active {active.get('index_version', '-')}",
        f"  chunks: SQL {payload['sql_chunks']}, vectors {payload['vector_count']}",
        f"  approved versions {payload['approved_versions']}, "
        f"indexed {payload['indexed_versions']}",
    ]
    lines += [f"  problem: {p}" for p in payload["problems"]] or ["  ok"]
    return "\n".join(lines)

"""`memdesk eval`: golden@1 cases run against a fresh temporary store, metrics of docs/formats.md.

Each case kind has a runner (services.lab.eval_cases). A case whose kind has no runner is
reported in `failures` and left out of the metrics.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from datetime import time as dt_time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select

from services import bootstrap
from services.bootstrap import Services
from services.contracts.golden import Golden, GoldenCase, ref_matches
from services.core.clock import Clock, FakeClock, SystemClock
from services.core.errors import InvalidInput, NotFound
from services.db.models import DocumentVersion
from services.lab.eval_cases import CASE_RUNNERS, CaseOutcome, Citation, EvalContext
from services.records.importer import parse_json_bytes
from services.retrieval.embedders import Embedder
from services.settings import Settings

OUTPUT_KEYS = (
    "dataset_id",
    "cases",
    "recall_at_k",
    "mrr",
    "ndcg_at_k",
    "forbidden_hits",
    "status_accuracy",
    "citation_accuracy",
    "reasked_confirmed",
    "latency_ms_p50",
    "latency_ms_p95",
    "model_calls",
    "tokens",
    "human_intervention_rate",
    "evidence_span_chars_p50",
    "evidence_span_chars_p95",
    "failures",
)


def load_golden(path: Path) -> Golden:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read file ({exc.strerror})") from exc
    data = parse_json_bytes(raw, source=str(path))
    if data.get("schema_version") != "golden@1":
        raise InvalidInput(f"{path}: schema_version must be 'golden@1'")
    try:
        return Golden.model_validate(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()]
        raise InvalidInput(f"{path}: {len(problems)} problem(s)", problems=problems) from exc


@contextmanager
def fresh_store(
    settings: Settings, *, clock: Clock | None = None, embedder: Embedder | None = None
) -> Iterator[Services]:
    """A throwaway MEMDESK_HOME (SQLite + embedded Chroma): the user's data is never touched."""
    with tempfile.TemporaryDirectory(prefix="memdesk-eval-") as home:
        scratch = settings.model_copy(
            update={"home": Path(home), "database_url": None, "chroma_url": None}
        )
        services = bootstrap.build(scratch, clock=clock or SystemClock(), embedder=embedder)
        try:
            bootstrap.initialise(services)
            yield services
        finally:
            services.close()


def evaluate(settings: Settings, *, corpus: Path, golden_path: Path) -> dict[str, Any]:
    golden = load_golden(golden_path)
    as_of = golden.as_of or date.today()
    # "Now" is the dataset's as_of, for validity checks and for every timestamp written.
    clock = FakeClock(datetime.combine(as_of, dt_time(9), tzinfo=UTC)) if golden.as_of else None
    with fresh_store(settings, clock=clock) as services:
        services.importer.import_file(corpus, actor="system:eval")
        services.index.sync()
        context = EvalContext(services=services, golden=golden, as_of=as_of)
        outcomes: list[tuple[GoldenCase, CaseOutcome]] = []
        failures: list[dict[str, str]] = []
        for case in golden.cases:
            runner = CASE_RUNNERS.get(case.kind)
            if runner is None:
                failures.append(
                    {"case_id": case.case_id, "reason": f"no runner for case kind '{case.kind}'"}
                )
                continue
            try:
                outcomes.append((case, runner(context, case)))
            except NotFound as exc:
                failures.append({"case_id": case.case_id, "reason": str(exc)})
        return _metrics(services, golden, outcomes, failures)


def _metrics(
    services: Services,
    golden: Golden,
    outcomes: list[tuple[GoldenCase, CaseOutcome]],
    failures: list[dict[str, str]],
) -> dict[str, Any]:
    recalls, reciprocal, ndcgs, latencies = [], [], [], []
    forbidden_hits = status_hits = 0
    citations_ok = citations_total = 0
    span_chars: list[int] = []
    for case, outcome in outcomes:
        k = getattr(case, "k", 5)
        docs = _distinct_documents(outcome.ranked)
        if case.relevant:
            found = [ref for ref in case.relevant if any(ref_matches(ref, *d) for d in docs[:k])]
            recalls.append(len(found) / len(case.relevant))
            first = next(
                (i for i, d in enumerate(docs) if any(ref_matches(r, *d) for r in case.relevant)),
                None,
            )
            reciprocal.append(0.0 if first is None else 1.0 / (first + 1))
            ndcgs.append(_ndcg(docs[:k], case.relevant))
            missed = [ref for ref in case.relevant if ref not in found]
            if missed:
                failures.append({"case_id": case.case_id, "reason": f"not in top {k}: {missed}"})
        hits = [d for d in outcome.ranked if any(ref_matches(f, *d) for f in case.forbidden)]
        forbidden_hits += len(hits)
        if hits:
            failures.append({"case_id": case.case_id, "reason": f"forbidden evidence: {hits}"})
        if outcome.status == case.expect_status:
            status_hits += 1
        else:
            failures.append(
                {
                    "case_id": case.case_id,
                    "reason": f"status {outcome.status}, expected {case.expect_status}",
                }
            )
        for citation in outcome.citations:
            citations_total += 1
            span_chars.append(citation.end - citation.start)
            if _citation_holds(services, outcome.tenant_id, citation):
                citations_ok += 1
            else:
                failures.append(
                    {"case_id": case.case_id, "reason": f"citation does not resolve: {citation}"}
                )
        failures += [{"case_id": case.case_id, "reason": p} for p in outcome.problems]
        latencies.append(outcome.latency_ms)
    task_outcomes = [o for _c, o in outcomes if o.needed_human is not None]
    reasked = [o.reasked_confirmed for _c, o in outcomes if o.reasked_confirmed is not None]
    return {
        "dataset_id": golden.dataset_id,
        "cases": len(outcomes),
        "recall_at_k": _mean(recalls),
        "mrr": _mean(reciprocal),
        "ndcg_at_k": _mean(ndcgs),
        "forbidden_hits": forbidden_hits,
        "status_accuracy": status_hits / len(outcomes) if outcomes else None,
        "citation_accuracy": citations_ok / citations_total if citations_total else None,
        "reasked_confirmed": sum(reasked) if reasked else None,
        "latency_ms_p50": _percentile(latencies, 50),
        "latency_ms_p95": _percentile(latencies, 95),
        "model_calls": sum(o.model_calls for _c, o in outcomes),
        "tokens": sum(o.tokens for _c, o in outcomes),
        "evidence_span_chars_p50": _percentile([float(n) for n in span_chars], 50),
        "evidence_span_chars_p95": _percentile([float(n) for n in span_chars], 95),
        "human_intervention_rate": (
            sum(1 for o in task_outcomes if o.needed_human) / len(task_outcomes)
            if task_outcomes
            else None
        ),
        "failures": failures,
    }


def _citation_holds(services: Services, tenant_id: str, citation: Citation) -> bool:
    """Checked straight against SQL, independently of the retrieval code that produced it."""
    with services.db.read() as session:
        row = session.scalar(
            select(DocumentVersion).where(
                DocumentVersion.tenant_id == tenant_id,
                DocumentVersion.document_id == citation.document_id,
                DocumentVersion.version == citation.version,
            )
        )
        if row is None:
            return False
        digest = "sha256:" + hashlib.sha256(row.body.encode("utf-8")).hexdigest()
        return (
            0 <= citation.start < citation.end <= len(row.body)
            and row.body[citation.start : citation.end] == citation.quote
            and digest == row.content_hash == citation.content_hash
        )


def _distinct_documents(ranked: list[tuple[str, int]]) -> list[tuple[str, int]]:
    return list(dict.fromkeys(ranked))


def _ndcg(docs: list[tuple[str, int]], relevant: list[str]) -> float:
    """Binary gain; each relevant ref counts once, at the first document it matches."""
    unmatched = list(relevant)
    dcg = 0.0
    for i, doc in enumerate(docs):
        ref = next((r for r in unmatched if ref_matches(r, *doc)), None)
        if ref is not None:
            unmatched.remove(ref)
            dcg += 1.0 / math.log2(i + 2)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), len(docs) or 1)))
    return dcg / ideal if ideal else 0.0


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _percentile(values: list[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = max(0, math.ceil(pct / 100 * len(ordered)) - 1)
    return round(ordered[index], 2)


def render_text(report: dict[str, Any]) -> str:
    lines = [f"{report['dataset_id']}: {report['cases']} case(s) evaluated"]
    for key in OUTPUT_KEYS[2:-1]:
        lines.append(f"  {key:24s} {report[key]}")
    lines.append(f"  failures ({len(report['failures'])}):")
    lines += [f"    {f['case_id']}: {f['reason']}" for f in report["failures"]]
    return "\n".join(lines)


def dumps(report: dict[str, Any]) -> str:
    return json.dumps({key: report[key] for key in OUTPUT_KEYS}, ensure_ascii=False)

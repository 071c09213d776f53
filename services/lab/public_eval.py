"""`memdesk eval-public cmrc2018`: memdesk beside plain BM25 and dense-only on public data.

The CMRC 2018 dev set is converted (services.lab.cmrc2018) to corpus@1 + golden@1 files and run
through the same path as `memdesk eval`: a throwaway store, the corpus imported and indexed,
every case asked by the case runner of `memdesk eval`. Three runs of governed retrieval:

* `simplified`: every passage readable, the questions as written (zh-Hans), expected `ok`;
* `split`: every second passage readable by `role:engineer` only, so the sales user has no
  readable answer for half the questions (expected `insufficient_evidence` there);
* `traditional`: every passage readable, the questions converted with OpenCC `s2twp`.

The baselines rank the same documents without governance (services.lab.baselines). Every key
of the report is deterministic except `timings_s`.
"""

from __future__ import annotations

import json
import math
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from datetime import time as dt_time
from pathlib import Path
from typing import Any

import numpy as np

from services.contracts.golden import Golden, RetrievalCase
from services.core.clock import FakeClock
from services.lab import cmrc2018, squad2
from services.lab.baselines import Bm25Baseline, DenseBaseline, Doc, words
from services.lab.eval_cases import CaseOutcome, EvalContext, run_retrieval_case
from services.lab.evaluation import fresh_store, load_golden
from services.retrieval.embedders import Embedder, Vectors, make_embedder
from services.settings import Settings

Progress = Callable[[str], None]
REPORT_KEYS = (
    "dataset",
    "questions",
    "passages",
    "k",
    "simplified",
    "split",
    "traditional",
    "misses",
    "timings_s",
)


class MemoEmbedder:
    """The configured embedder, remembering every text it embedded: the split store and the
    dense baseline reuse the vectors of the first store instead of computing them again."""

    def __init__(self, inner: Embedder, progress: Progress = lambda _line: None) -> None:
        self._inner = inner
        self._rows: dict[str, Vectors] = {}
        self._progress = progress

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        todo = list(dict.fromkeys(t for t in texts if t not in self._rows))
        if todo:
            for text, row in zip(todo, self._inner.embed(todo), strict=True):
                self._rows[text] = row
            if len(todo) > 1:  # a batch of chunks, not one query
                self._progress(f"embedded {len(self._rows)} texts with {self.name}")
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.vstack([self._rows[t] for t in texts])

    def embed_query(self, text: str) -> Vectors:
        row: Vectors = self.embed([text])[0]
        return row


@dataclass(frozen=True)
class Converted:
    """The converted files: what `memdesk eval --corpus --golden` would run as well."""

    corpus: Path
    golden: Path
    split_corpus: Path
    split_golden: Path
    traditional_golden: Path


def convert(dataset: Path, questions: int, directory: Path) -> tuple[Converted, list[Doc]]:
    passages = cmrc2018.read_squad(dataset)
    selected = cmrc2018.select_questions(passages, questions)
    directory.mkdir(parents=True, exist_ok=True)
    files = Converted(
        corpus=directory / "cmrc2018-corpus.json",
        golden=directory / "cmrc2018.golden.json",
        split_corpus=directory / "cmrc2018-split-corpus.json",
        split_golden=directory / "cmrc2018-split.golden.json",
        traditional_golden=directory / "cmrc2018-hant.golden.json",
    )
    _write(files.corpus, cmrc2018.corpus(passages, split=False))
    _write(files.golden, cmrc2018.golden(selected, split=False))
    _write(files.split_corpus, cmrc2018.corpus(passages, split=True))
    _write(files.split_golden, cmrc2018.golden(selected, split=True))
    _write(files.traditional_golden, cmrc2018.golden(selected, split=False, traditional=True))
    docs = [Doc(p.passage_id, p.title, p.context) for p in passages]
    return files, docs


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def evaluate_cmrc2018(
    settings: Settings,
    *,
    dataset: Path,
    questions: int = 400,
    write_dir: Path | None = None,
    progress: Progress = lambda _line: None,
) -> dict[str, Any]:
    started = time.perf_counter()
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memdesk-cmrc-") as scratch:
        progress(f"converting {dataset} ({questions} questions)")
        files, docs = convert(dataset, questions, write_dir or Path(scratch))
        golden = load_golden(files.golden)
        split_golden = load_golden(files.split_golden)
        hant_golden = load_golden(files.traditional_golden)
        embedder = MemoEmbedder(make_embedder(settings), progress)

        mark = time.perf_counter()
        with governed(settings, files.corpus, golden, embedder, progress) as ask:
            timings["index_s"] = time.perf_counter() - mark
            mark = time.perf_counter()
            simplified = _ask_all(ask, golden, "memdesk zh-Hans", progress)
            traditional = _ask_all(ask, hant_golden, "memdesk zh-Hant", progress)
            timings["memdesk_queries_s"] = time.perf_counter() - mark
        mark = time.perf_counter()
        unreadable = unreadable_documents(files.split_corpus, cmrc2018.SALES_USER)
        with governed(settings, files.split_corpus, split_golden, embedder, progress) as ask:
            split = _ask_all(ask, split_golden, "memdesk split", progress)
        timings["split_s"] = time.perf_counter() - mark

        mark = time.perf_counter()
        progress(f"baselines: BM25 and dense-only over {len(docs)} passages")
        bm25 = Bm25Baseline(docs)
        dense = DenseBaseline(docs, embedder)
        baselines: dict[str, Callable[[str, int], list[str]]] = {
            "bm25": bm25.rank,
            "dense": dense.rank,
        }
        base_simplified = {n: _rank_all(fn, golden) for n, fn in baselines.items()}
        base_traditional = {n: _rank_all(fn, hant_golden) for n, fn in baselines.items()}
        timings["baselines_s"] = time.perf_counter() - mark
    timings["total_s"] = time.perf_counter() - started
    report = _report(
        golden=golden,
        split_golden=split_golden,
        hant_golden=hant_golden,
        simplified=simplified,
        split=split,
        traditional=traditional,
        base_simplified=base_simplified,
        base_traditional=base_traditional,
        unreadable=unreadable,
        passages=len(docs),
    )
    report["timings_s"] = {key: round(value, 1) for key, value in timings.items()}
    progress(f"done in {timings['total_s']:.0f} s")
    return report


Ask = Callable[[RetrievalCase], CaseOutcome]


@contextmanager
def governed(
    settings: Settings, corpus: Path, golden: Golden, embedder: Embedder, progress: Progress
) -> Iterator[Ask]:
    """A throwaway store holding `corpus`, indexed, as `memdesk eval` builds it."""
    as_of = golden.as_of or date(2026, 1, 1)
    clock = FakeClock(datetime.combine(as_of, dt_time(9), tzinfo=UTC))
    with fresh_store(settings, clock=clock, embedder=embedder) as services:
        progress(f"importing and indexing {corpus.name}")
        services.importer.import_file(corpus, actor="system:eval")
        services.index.sync()
        context = EvalContext(services=services, golden=golden, as_of=as_of)
        yield lambda case: run_retrieval_case(context, case)


def _ask_all(ask: Ask, golden: Golden, label: str, progress: Progress) -> list[CaseOutcome]:
    outcomes = []
    cases = _retrieval_cases(golden)
    for i, case in enumerate(cases, 1):
        outcomes.append(ask(case))
        if i % 50 == 0 or i == len(cases):
            progress(f"{label}: {i}/{len(cases)}")
    return outcomes


def _rank_all(rank: Callable[[str, int], list[str]], golden: Golden) -> list[list[str]]:
    return [rank(case.query, case.k) for case in _retrieval_cases(golden)]


def _retrieval_cases(golden: Golden) -> list[RetrievalCase]:
    return [case for case in golden.cases if isinstance(case, RetrievalCase)]


# ---- metrics -------------------------------------------------------------------------------
def _report(
    *,
    golden: Golden,
    split_golden: Golden,
    hant_golden: Golden,
    simplified: list[CaseOutcome],
    split: list[CaseOutcome],
    traditional: list[CaseOutcome],
    base_simplified: dict[str, list[list[str]]],
    base_traditional: dict[str, list[list[str]]],
    unreadable: set[str],
    passages: int,
) -> dict[str, Any]:
    cases = _retrieval_cases(golden)
    k = cases[0].k if cases else cmrc2018.K
    relevant = [_doc(case.relevant[0]) for case in cases]
    answers = [str(getattr(case, "answer", "")) for case in cases]
    misses: dict[str, list[str]] = {}

    memdesk = _governed_metrics(cases, simplified, relevant, k)
    memdesk.update(_evidence_metrics(simplified, relevant, answers))
    misses["simplified_not_in_top_k"] = _ids(cases, _not_found(simplified, relevant, k))
    misses["simplified_not_ok"] = _ids(cases, [o.status != "ok" for o in simplified])
    misses["simplified_evidence_without_answer"] = _ids(
        cases, _evidence_misses(simplified, relevant, answers)
    )
    simplified_block = {"memdesk": memdesk}
    simplified_block.update(
        {name: _ranking_metrics(r, relevant, k) for name, r in base_simplified.items()}
    )

    hant_cases = _retrieval_cases(hant_golden)
    hant = _governed_metrics(hant_cases, traditional, relevant, k)
    misses["traditional_not_in_top_k"] = _ids(cases, _not_found(traditional, relevant, k))
    traditional_block = {"memdesk": hant}
    traditional_block.update(
        {name: _ranking_metrics(r, relevant, k) for name, r in base_traditional.items()}
    )

    split_block, split_misses = _split_metrics(_retrieval_cases(split_golden), split, unreadable, k)
    misses.update(split_misses)
    return {
        "dataset": "cmrc2018-dev",
        "questions": len(cases),
        "passages": passages,
        "k": k,
        "simplified": simplified_block,
        "split": split_block,
        "traditional": traditional_block,
        "misses": misses,
    }


def _governed_metrics(
    cases: list[RetrievalCase], outcomes: list[CaseOutcome], relevant: list[str], k: int
) -> dict[str, Any]:
    ranked = [_documents(o) for o in outcomes]
    metrics = _ranking_metrics(ranked, relevant, k)
    statuses = Counter(o.status for o in outcomes)
    metrics["status_accuracy"] = _share(
        sum(o.status == c.expect_status for c, o in zip(cases, outcomes, strict=True)),
        len(cases),
    )
    metrics["statuses"] = dict(sorted(statuses.items()))
    return metrics


def _ranking_metrics(ranked: list[list[str]], relevant: list[str], k: int) -> dict[str, Any]:
    found = [
        r.index(doc) if doc in r[:k] else None for r, doc in zip(ranked, relevant, strict=True)
    ]
    return {
        f"recall_at_{k}": _share(sum(f is not None for f in found), len(found)),
        f"mrr_at_{k}": _round(sum(1 / (f + 1) for f in found if f is not None) / len(found))
        if found
        else None,
    }


def _evidence_metrics(
    outcomes: list[CaseOutcome], relevant: list[str], answers: list[str]
) -> dict[str, Any]:
    """Evidence precision: of the questions whose passage is cited at all, the share whose first
    (best-ranked) span from that passage contains the answer. `evidence_answer_at_1`: the share
    of all questions whose top evidence span contains the answer. Span lengths over every span."""
    spans = [c.end - c.start for o in outcomes for c in o.citations]
    first_spans = [_first_span(o, doc) for o, doc in zip(outcomes, relevant, strict=True)]
    cited = [(quote, ans) for quote, ans in zip(first_spans, answers, strict=True) if quote]
    top = [
        bool(o.citations) and ans in o.citations[0].quote
        for o, ans in zip(outcomes, answers, strict=True)
    ]
    return {
        "evidence_precision": _share(sum(ans in quote for quote, ans in cited), len(cited)),
        "evidence_answer_at_1": _share(sum(top), len(top)),
        "evidence_span_chars_p50": _percentile(spans, 50),
        "evidence_span_chars_p95": _percentile(spans, 95),
    }


def _first_span(outcome: CaseOutcome, document_id: str) -> str | None:
    return next((c.quote for c in outcome.citations if c.document_id == document_id), None)


def _evidence_misses(
    outcomes: list[CaseOutcome], relevant: list[str], answers: list[str]
) -> list[bool]:
    flags = []
    for outcome, doc, answer in zip(outcomes, relevant, answers, strict=True):
        quote = _first_span(outcome, doc)
        flags.append(quote is not None and answer not in quote)
    return flags


def _split_metrics(
    cases: list[RetrievalCase], outcomes: list[CaseOutcome], unreadable: set[str], k: int
) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Status accuracy on answerable / unanswerable questions. forbidden_hits counts every
    returned span, in any case, of a passage the asking user may not read (not only the case's
    own passage)."""
    answerable = [i for i, c in enumerate(cases) if c.expect_status == "ok"]
    unanswerable = [i for i, c in enumerate(cases) if c.expect_status == "insufficient_evidence"]
    forbidden = [sum(c.document_id in unreadable for c in o.citations) for o in outcomes]
    right = [o.status == c.expect_status for c, o in zip(cases, outcomes, strict=True)]
    found = [_doc(cases[i].relevant[0]) in _documents(outcomes[i])[:k] for i in answerable]
    block = {
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "status_accuracy_answerable": _share(sum(right[i] for i in answerable), len(answerable)),
        "status_accuracy_unanswerable": _share(
            sum(right[i] for i in unanswerable), len(unanswerable)
        ),
        f"recall_at_{k}_answerable": _share(sum(found), len(found)),
        "statuses_answerable": _counts(outcomes[i].status for i in answerable),
        "statuses_unanswerable": _counts(outcomes[i].status for i in unanswerable),
        "forbidden_hits": sum(forbidden),
    }
    misses = {
        "split_answerable_wrong_status": [cases[i].case_id for i in answerable if not right[i]],
        "split_unanswerable_wrong_status": [cases[i].case_id for i in unanswerable if not right[i]],
        "split_forbidden_hits": [c.case_id for c, n in zip(cases, forbidden, strict=True) if n],
    }
    return block, misses


def unreadable_documents(corpus: Path, user_id: str) -> set[str]:
    """Documents of `corpus` that `user_id` may not read, re-derived from the file's ACLs (not
    by memdesk's own ACL code, which is what is being measured)."""
    data = json.loads(corpus.read_text(encoding="utf-8"))
    user = next(u for u in data["users"] if u["user_id"] == user_id)
    tags = {"tenant", f"user:{user_id}"}
    tags |= {f"role:{role}" for role in user["roles"]}
    tags |= set(user["grants"])
    return {
        d["document_id"]
        for d in data["documents"]
        if d["tenant_id"] != user["tenant_id"] or not tags & set(d["acl"])
    }


# ---- SQuAD 2.0 -----------------------------------------------------------------------------
SQUAD2_REPORT_KEYS = (
    "dataset",
    "questions",
    "passages",
    "k",
    "readable",
    "split",
    "impossible",
    "misses",
    "timings_s",
)


def evaluate_squad2(
    settings: Settings,
    *,
    dataset: Path,
    write_dir: Path | None = None,
    progress: Progress = lambda _line: None,
) -> dict[str, Any]:
    """memdesk beside BM25 (words) and dense-only on SQuAD 2.0: every answerable question with
    its passage readable; the same questions with every second passage hidden (the split); and
    SQuAD's own unanswerable questions against the readable passages."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="memdesk-squad2-") as scratch:
        progress(f"converting {dataset}")
        passages = squad2.read(dataset)
        directory = write_dir or Path(scratch)
        directory.mkdir(parents=True, exist_ok=True)
        files = {
            "corpus": directory / "squad2-corpus.json",
            "golden": directory / "squad2.golden.json",
            "split_corpus": directory / "squad2-split-corpus.json",
            "split_golden": directory / "squad2-split.golden.json",
            "impossible_golden": directory / "squad2-impossible.golden.json",
        }
        _write(files["corpus"], squad2.corpus(passages, split=False))
        _write(files["golden"], squad2.golden(passages, split=False))
        _write(files["split_corpus"], squad2.corpus(passages, split=True))
        _write(files["split_golden"], squad2.golden(passages, split=True))
        _write(files["impossible_golden"], squad2.impossible_golden(passages))
        golden = load_golden(files["golden"])
        split_golden = load_golden(files["split_golden"])
        impossible_golden = load_golden(files["impossible_golden"])
        embedder = MemoEmbedder(make_embedder(settings), progress)
        docs = [Doc(p.passage_id, p.title, p.context) for p in passages]

        mark = time.perf_counter()
        with governed(settings, files["corpus"], golden, embedder, progress) as ask:
            timings["index_s"] = time.perf_counter() - mark
            readable = _ask_all(ask, golden, "memdesk readable", progress)
            impossible = _ask_all(ask, impossible_golden, "memdesk impossible", progress)
        unreadable = unreadable_documents(files["split_corpus"], squad2.USER)
        with governed(settings, files["split_corpus"], split_golden, embedder, progress) as ask:
            split = _ask_all(ask, split_golden, "memdesk split", progress)
        progress(f"baselines: BM25 and dense-only over {len(docs)} passages")
        baselines: dict[str, Callable[[str, int], list[str]]] = {
            "bm25": Bm25Baseline(docs, tokenize=words).rank,
            "dense": DenseBaseline(docs, embedder).rank,
        }
        base = {name: _rank_all(fn, golden) for name, fn in baselines.items()}
    timings["total_s"] = time.perf_counter() - started
    report = _squad2_report(golden, impossible_golden, readable, impossible, base)
    split_block, split_misses = _split_metrics(
        _retrieval_cases(split_golden), split, unreadable, report["k"]
    )
    report["passages"] = len(docs)
    report["split"] = split_block
    report["misses"].update(split_misses)
    report["timings_s"] = {key: round(value, 1) for key, value in timings.items()}
    progress(f"done in {timings['total_s']:.0f} s")
    return report


def _squad2_report(
    golden: Golden,
    impossible_golden: Golden,
    readable: list[CaseOutcome],
    impossible: list[CaseOutcome],
    base: dict[str, list[list[str]]],
) -> dict[str, Any]:
    cases = _retrieval_cases(golden)
    k = cases[0].k if cases else squad2.K
    relevant = [_doc(case.relevant[0]) for case in cases]
    answers = [str(getattr(case, "answer", "")) for case in cases]
    memdesk = _governed_metrics(cases, readable, relevant, k)
    memdesk.update(_evidence_metrics(readable, relevant, answers))
    impossible_cases = _retrieval_cases(impossible_golden)
    return {
        "dataset": "squad2-dev",
        "questions": len(cases),
        "k": k,
        "readable": {
            "memdesk": memdesk,
            **{name: _ranking_metrics(r, relevant, k) for name, r in base.items()},
        },
        "impossible": {
            "questions": len(impossible_cases),
            "status_accuracy": _share(
                sum(o.status == "insufficient_evidence" for o in impossible), len(impossible)
            ),
            "statuses": _counts(o.status for o in impossible),
        },
        "misses": {
            "readable_not_in_top_k": _ids(cases, _not_found(readable, relevant, k)),
            "readable_not_ok": _ids(cases, [o.status != "ok" for o in readable]),
            "impossible_not_insufficient": [
                c.case_id
                for c, o in zip(impossible_cases, impossible, strict=True)
                if o.status != "insufficient_evidence"
            ],
        },
    }


def dumps_squad2(report: dict[str, Any]) -> str:
    return json.dumps({key: report[key] for key in SQUAD2_REPORT_KEYS}, ensure_ascii=False)


def render_squad2(report: dict[str, Any]) -> str:
    k = report["k"]
    lines = [
        f"{report['dataset']}: {report['questions']} answerable questions over "
        f"{report['passages']} passages, k={k}",
    ]
    for system, m in report["readable"].items():
        lines.append(
            f"  readable {system:10s} recall@{k} {_fmt(m[f'recall_at_{k}'])}"
            f"  MRR@{k} {_fmt(m[f'mrr_at_{k}'])}  ok-status {_fmt(m.get('status_accuracy'))}"
        )
    split, impossible = report["split"], report["impossible"]
    lines += [
        f"  split: status accuracy answerable {_fmt(split['status_accuracy_answerable'])} "
        f"({split['answerable']}), unanswerable {_fmt(split['status_accuracy_unanswerable'])} "
        f"({split['unanswerable']}), forbidden_hits {split['forbidden_hits']}",
        f"  SQuAD's unanswerable questions: insufficient_evidence "
        f"{_fmt(impossible['status_accuracy'])} of {impossible['questions']}",
        f"  time: {report['timings_s']}",
    ]
    return "\n".join(lines)


# ---- small helpers ---------------------------------------------------------------------------
def _documents(outcome: CaseOutcome) -> list[str]:
    """Distinct documents of the evidence, best first (as `memdesk eval` counts them)."""
    return list(dict.fromkeys(document_id for document_id, _version in outcome.ranked))


def _not_found(outcomes: list[CaseOutcome], relevant: list[str], k: int) -> list[bool]:
    return [doc not in _documents(o)[:k] for o, doc in zip(outcomes, relevant, strict=True)]


def _ids(cases: list[RetrievalCase], flags: list[bool]) -> list[str]:
    return [case.case_id for case, flag in zip(cases, flags, strict=True) if flag]


def _doc(ref: str) -> str:
    return ref.rpartition("@")[0] or ref


def _counts(values: Iterator[str] | Sequence[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def _share(part: int, whole: int) -> float | None:
    return _round(part / whole) if whole else None


def _round(value: float) -> float:
    return round(value, 4)


def _percentile(values: Sequence[float], pct: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(pct / 100 * len(ordered)) - 1)])


# ---- output --------------------------------------------------------------------------------
def dumps(report: dict[str, Any]) -> str:
    return json.dumps({key: report[key] for key in REPORT_KEYS}, ensure_ascii=False)


def render_text(report: dict[str, Any]) -> str:
    k = report["k"]
    lines = [
        f"{report['dataset']}: {report['questions']} questions over {report['passages']} passages,"
        f" k={k}",
        f"  {'':24s} {'recall@' + str(k):>10s} {'MRR@' + str(k):>8s} {'ok-status':>10s}",
    ]
    for block in ("simplified", "traditional"):
        for system, m in report[block].items():
            status = m.get("status_accuracy")
            lines.append(
                f"  {block + ' ' + system:24s} {_fmt(m[f'recall_at_{k}']):>10s}"
                f" {_fmt(m[f'mrr_at_{k}']):>8s} {_fmt(status):>10s}"
            )
    memdesk = report["simplified"]["memdesk"]
    split = report["split"]
    lines += [
        f"  evidence precision {_fmt(memdesk['evidence_precision'])}, answer in top span "
        f"{_fmt(memdesk['evidence_answer_at_1'])}, span chars p50/p95 "
        f"{memdesk['evidence_span_chars_p50']}/{memdesk['evidence_span_chars_p95']}",
        f"  split: status accuracy answerable {_fmt(split['status_accuracy_answerable'])} "
        f"({split['answerable']}), unanswerable {_fmt(split['status_accuracy_unanswerable'])} "
        f"({split['unanswerable']}), forbidden_hits {split['forbidden_hits']}",
        f"  time: {report['timings_s']}",
    ]
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"

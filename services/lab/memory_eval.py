"""`memdesk eval-memory`: a memory-golden@1 set through the real Memory Bank in a throwaway store.

Each case's events are generated into its scope, in order, so later cases consolidate against
what earlier ones left. Reported: precision and recall of the memories created or updated,
consolidation actions against the expected ones, cases that had to yield nothing (including
instructions), and recall@k of memories for follow-up questions.
"""

from __future__ import annotations

import json
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from services import bootstrap
from services.bootstrap import Services
from services.contracts.corpus import Corpus
from services.contracts.memory_golden import ExpectedMemory, MemoryCase, MemoryGolden
from services.core.errors import InvalidInput
from services.core.principals import Principal
from services.memory.types import ConversationEvent, MemoryChange
from services.records.importer import parse_json_bytes
from services.settings import Settings

TENANT, USER = "EVAL", "eval.admin"
ACTION_OF_CHANGE = {
    "created": "create",
    "updated": "update",
    "unchanged": "skip",
    "deleted": "delete",
}
OUTPUT_KEYS = (
    "dataset_id",
    "cases",
    "extractor",
    "embedding_model",
    "precision",
    "recall",
    "expected_memories",
    "generated_memories",
    "consolidation_accuracy",
    "consolidation",
    "silent_cases",
    "silent_cases_ok",
    "instructions_remembered",
    "retrieval_recall_at_k",
    "follow_ups",
    "failures",
)


def load(path: Path) -> MemoryGolden:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read file ({exc.strerror})") from exc
    data = parse_json_bytes(raw, source=str(path))
    try:
        return MemoryGolden.model_validate(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        raise InvalidInput(f"{path}: {len(problems)} problem(s)", problems=problems) from exc


def evaluate(settings: Settings, *, golden_path: Path) -> dict[str, Any]:
    golden = load(golden_path)
    with tempfile.TemporaryDirectory(prefix="memdesk-eval-memory-") as home:
        scratch = settings.model_copy(
            update={"home": Path(home), "database_url": None, "chroma_url": None}
        )
        services = bootstrap.build(scratch)
        try:
            bootstrap.initialise(services)
            admin = _admin(services)
            _configure(services, admin, golden)
            return _run(services, admin, golden)
        finally:
            services.close()


def _admin(services: Services) -> Principal:
    corpus = {
        "schema_version": "corpus@1",
        "tenants": [{"tenant_id": TENANT, "name": "Memory evaluation"}],
        "users": [
            {"user_id": USER, "tenant_id": TENANT, "display_name": "Eval", "roles": ["admin"]}
        ],
        "documents": [],
        "tasks": [],
    }
    services.importer.import_corpus(
        Corpus.model_validate(corpus),
        source="memory-golden",
        actor="system:eval-memory",
        raw=corpus,
    )
    return services.directory.principal(USER)


def _configure(services: Services, admin: Principal, golden: MemoryGolden) -> None:
    for config in golden.configs:
        keys = tuple(config.scope_keys)
        if keys:
            services.memories.config.save_customization(
                admin,
                scope_keys=keys,
                enable_third_person_memories=config.enable_third_person_memories,
                revisions_per_candidate_count=1,
                disable_memory_revisions=False,
            )
        for label in config.disabled_topics:
            services.memories.config.set_topic(admin, label=label, enabled=False, scope_keys=keys)


def _run(services: Services, admin: Principal, golden: MemoryGolden) -> dict[str, Any]:
    tally = _Tally()
    for case in golden.cases:
        events = [ConversationEvent(**e.model_dump()) for e in case.events]
        result = services.memories.generate(admin, scope=case.scope, events=events)
        tally.case(case, list(result.changes))
        for follow in case.follow_ups:
            hits = services.memories.search(
                admin, scope=case.scope, query=follow.question, k=follow.k
            )
            tally.follow_up(case, follow.relevant, [h.memory.fact for h in hits])
    models = services.memories.models()
    return {
        "dataset_id": golden.dataset_id,
        "cases": len(golden.cases),
        "extractor": models.extraction,
        "embedding_model": models.embedding_model,
        **tally.report(),
    }


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def matches(expected: ExpectedMemory, topic: str, fact: str) -> bool:
    folded = fold(fact)
    return topic == expected.topic and all(fold(part) in folded for part in expected.must_include)


class _Tally:
    def __init__(self) -> None:
        self.expected = self.generated = self.true_positive_generated = self.found = 0
        self.actions: Counter[str] = Counter()  # "expected->taken"
        self.silent = self.silent_ok = self.instructions_kept = 0
        self.follow_total = self.follow_found = 0
        self.follow_ups = 0
        self.failures: list[dict[str, str]] = []

    def case(self, case: MemoryCase, changes: list[MemoryChange]) -> None:
        written = [c for c in changes if c.action in ("created", "updated")]
        considered = [c for c in changes if c.action in ACTION_OF_CHANGE]
        self.generated += len(written)
        if not case.expected:
            self.silent += 1
            kept = [c for c in changes if c.action in ("created", "updated", "deleted")]
            if kept:
                self._fail(case, f"must yield nothing, wrote {[c.fact for c in kept]}")
                if case.kind == "instruction":
                    self.instructions_kept += len(kept)
            else:
                self.silent_ok += 1
            return
        for change in written:
            if any(matches(e, change.topic, change.fact) for e in case.expected):
                self.true_positive_generated += 1
            else:
                self._fail(case, f"unexpected memory [{change.topic}] {change.fact}")
        for expected in case.expected:
            counted = expected.action in ("create", "update")
            self.expected += counted
            taken = next(
                (
                    ACTION_OF_CHANGE[c.action]
                    for c in considered
                    if matches(expected, c.topic, c.fact)
                    or (c.action == "deleted" and matches(expected, c.topic, c.previous_fact or ""))
                ),
                "none",
            )
            self.actions[f"{expected.action}->{taken}"] += 1
            if counted and taken in ("create", "update"):
                self.found += 1
            if taken != expected.action:
                self._fail(case, f"expected {expected.action} of 「{expected.fact}」, got {taken}")

    def follow_up(self, case: MemoryCase, relevant: list[list[str]], facts: list[str]) -> None:
        self.follow_ups += 1
        for parts in relevant:
            self.follow_total += 1
            if any(all(fold(p) in fold(fact) for p in parts) for fact in facts):
                self.follow_found += 1
            else:
                self._fail(case, f"follow-up missed a memory with {parts}")

    def _fail(self, case: MemoryCase, reason: str) -> None:
        self.failures.append({"case_id": case.case_id, "reason": reason})

    def report(self) -> dict[str, Any]:
        agreed = sum(
            n for key, n in self.actions.items() if key.split("->")[0] == key.split("->")[1]
        )
        total_actions = sum(self.actions.values())
        return {
            "precision": _ratio(self.true_positive_generated, self.generated),
            "recall": _ratio(self.found, self.expected),
            "expected_memories": self.expected,
            "generated_memories": self.generated,
            "consolidation_accuracy": _ratio(agreed, total_actions),
            "consolidation": dict(sorted(self.actions.items())),
            "silent_cases": self.silent,
            "silent_cases_ok": self.silent_ok,
            "instructions_remembered": self.instructions_kept,
            "retrieval_recall_at_k": _ratio(self.follow_found, self.follow_total),
            "follow_ups": self.follow_ups,
            "failures": self.failures,
        }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def dumps(report: dict[str, Any]) -> str:
    return json.dumps({key: report[key] for key in OUTPUT_KEYS}, ensure_ascii=False)


def render_text(report: dict[str, Any]) -> str:
    lines = [f"{report['dataset_id']}: {report['cases']} case(s) ({report['extractor']})"]
    lines += [f"  {key:24s} {report[key]}" for key in OUTPUT_KEYS[4:-1]]
    lines.append(f"  failures ({len(report['failures'])}):")
    lines += [f"    {f['case_id']}: {f['reason']}" for f in report["failures"]]
    return "\n".join(lines)

"""Structural self-check for the demo corpus (corpus@1) and golden set (golden@1); stdlib only.

Usage: python data/check_dataset.py [CORPUS.json GOLDEN.json]
Exits 1 and lists every problem found; prints a short summary otherwise.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from datetime import date
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
DOC_TYPES = {"sop", "contract", "order", "quote", "mail", "note"}
CLASSES = {"fact", "history", "inference"}
STATUSES = {"draft", "pending_approval", "approved", "superseded", "revoked", "rejected"}
LANGUAGES = {"zh-Hant", "zh-Hans", "en"}
TASK_STATUSES = {
    "created",
    "restoring",
    "retrieving",
    "analyzing",
    "reviewing",
    "awaiting_approval",
    "completed",
    "waiting_input",
    "retrying",
    "blocked",
    "failed",
    "cancelled",
}
RETRIEVAL_STATUSES = {"ok", "insufficient_evidence", "source_conflict"}
TASK_CASE_STATUSES = {"ready_for_review", "insufficient_evidence", "source_conflict"}
DOC_KEYS = {
    "document_id",
    "version",
    "tenant_id",
    "doc_type",
    "knowledge_class",
    "status",
    "valid_from",
    "valid_to",
    "acl",
    "language",
    "title",
    "body",
    "customer_id",
    "approved_by",
}
TASK_KEYS = {
    "schema_version",
    "tenant_id",
    "task_id",
    "revision",
    "status",
    "confirmed",
    "pending",
    "next_step",
    "evidence_ids",
}
RETRIEVAL_KEYS = {
    "case_id",
    "kind",
    "user_id",
    "query",
    "k",
    "relevant",
    "forbidden",
    "expect_status",
}
TASK_CASE_KEYS = {
    "case_id",
    "kind",
    "user_id",
    "task_id",
    "supplement",
    "relevant",
    "forbidden",
    "expect_status",
    "must_not_request",
}
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
ACL_ENTRY = re.compile(r"tenant|role:[a-z_]+|user:[\w.-]+|customer:[\w-]+")
SNAKE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
# "<attribute phrase> <number> <unit>": the shape conflicting statements are written in.
QUANTITY = re.compile(
    r"(\d+(?:\.\d+)?)\s*(µm|mm|°C|%|小時|hours|months|working days|days|個工作天|日|個月|kg|公斤)"
)
DEMO_ID = "memory-demo@1"
DATASET_ID = re.compile(r"[a-z0-9][a-z0-9-]*@\d+")
# The demo set must cover every behaviour; a held-out set only needs enough cases to compare.
MINIMUM_CASES = {DEMO_ID: (45, 12)}
HELD_OUT_MINIMUM = (20, 3)

problems: list[str] = []


def fail(where: str, message: str) -> None:
    problems.append(f"{where}: {message}")


def iso(value: object) -> date | None:
    if isinstance(value, str) and ISO_DATE.fullmatch(value):
        try:
            return date.fromisoformat(value)
        except ValueError:
            return None
    return None


def check_corpus(corpus: dict) -> dict:
    if corpus.get("schema_version") != "corpus@1":
        fail("corpus", "schema_version must be corpus@1")
    if set(corpus) != {"schema_version", "tenants", "users", "documents", "tasks"}:
        fail("corpus", f"unexpected top-level keys {sorted(corpus)}")

    tenants = {t["tenant_id"] for t in corpus["tenants"]}
    if len(tenants) != len(corpus["tenants"]):
        fail("tenants", "duplicate tenant_id")

    users: dict[str, dict] = {}
    for u in corpus["users"]:
        where = f"user {u.get('user_id')}"
        if u["user_id"] in users:
            fail(where, "duplicate user_id")
        users[u["user_id"]] = u
        if u["tenant_id"] not in tenants:
            fail(where, f"unknown tenant {u['tenant_id']}")
        if not u["roles"] or not set(u["roles"]) <= ROLES:
            fail(where, f"roles {u['roles']} must be a non-empty subset of {sorted(ROLES)}")
        for g in u["grants"]:
            if not re.fullmatch(r"customer:[\w-]+", g):
                fail(where, f"grant {g!r} is not customer:ID")

    docs: dict[tuple[str, int], dict] = {}
    owner_tenant: dict[str, str] = {}
    for doc in corpus["documents"]:
        key = (doc.get("document_id"), doc.get("version"))
        where = f"document {key[0]}@{key[1]}"
        if set(doc) != DOC_KEYS:
            fail(where, f"keys differ from corpus@1: {sorted(set(doc) ^ DOC_KEYS)}")
            continue
        if key in docs:
            fail(where, "duplicate (document_id, version)")
        docs[key] = doc
        if owner_tenant.setdefault(doc["document_id"], doc["tenant_id"]) != doc["tenant_id"]:
            fail(where, "the same document_id is used by two tenants")
        if doc["tenant_id"] not in tenants:
            fail(where, f"unknown tenant {doc['tenant_id']}")
        if not isinstance(doc["version"], int) or doc["version"] < 1:
            fail(where, "version must be an integer >= 1")
        for field, allowed in (
            ("doc_type", DOC_TYPES),
            ("knowledge_class", CLASSES),
            ("status", STATUSES),
            ("language", LANGUAGES),
        ):
            if doc[field] not in allowed:
                fail(where, f"{field} {doc[field]!r} not in {sorted(allowed)}")
        start, end = iso(doc["valid_from"]), doc["valid_to"]
        if start is None:
            fail(where, f"valid_from {doc['valid_from']!r} is not an ISO date")
        if end is not None and (iso(end) is None or (start and iso(end) <= start)):
            fail(where, f"valid_to {end!r} must be null or an ISO date after valid_from")
        if not doc["acl"]:
            fail(where, "ACL is empty")
        for entry in doc["acl"]:
            if not ACL_ENTRY.fullmatch(entry):
                fail(where, f"ACL entry {entry!r} is malformed")
            elif entry.startswith("role:") and entry[5:] not in ROLES:
                fail(where, f"ACL names unknown role {entry}")
            elif (
                entry.startswith("user:")
                and users.get(entry[5:], {}).get("tenant_id") != doc["tenant_id"]
            ):
                fail(where, f"ACL names {entry}, not a user of tenant {doc['tenant_id']}")
        if not doc["title"].strip() or not doc["body"].strip():
            fail(where, "title and body must be non-empty")
        if doc["status"] in {"approved", "superseded", "revoked"}:
            approver = users.get(doc["approved_by"] or "")
            if not approver or approver["tenant_id"] != doc["tenant_id"]:
                fail(where, f"approved_by {doc['approved_by']!r} is not a user of the tenant")
        elif doc["approved_by"] is not None:
            fail(where, f"a {doc['status']} version cannot have approved_by")
        if doc["knowledge_class"] == "inference" and doc["status"] not in {
            "draft",
            "pending_approval",
            "rejected",
        }:
            fail(where, "an inference may only be draft, pending_approval or rejected")

    by_id: dict[str, list[dict]] = {}
    for doc in docs.values():
        by_id.setdefault(doc["document_id"], []).append(doc)
    for document_id, versions in by_id.items():
        numbers = sorted(d["version"] for d in versions)
        if numbers != list(range(1, len(numbers) + 1)):
            fail(f"document {document_id}", f"versions {numbers} are not 1..n")
        approved = [
            d
            for d in versions
            if d["status"] == "approved"
            and iso(d["valid_from"])
            and (d["valid_to"] is None or iso(d["valid_to"]))
        ]
        for a, b in combinations(approved, 2):
            if overlaps(a, b):
                fail(
                    f"document {document_id}",
                    f"approved versions {a['version']} and {b['version']} overlap in time",
                )

    tasks: dict[tuple[str, str], dict] = {}
    for task in corpus["tasks"]:
        key = (task.get("tenant_id"), task.get("task_id"))
        where = f"task {key[0]}/{key[1]}"
        if set(task) != TASK_KEYS:
            fail(where, f"keys differ from task-state@1: {sorted(set(task) ^ TASK_KEYS)}")
            continue
        if key in tasks:
            fail(where, "duplicate (tenant_id, task_id)")
        tasks[key] = task
        if task["schema_version"] != "task-state@1":
            fail(where, "schema_version must be task-state@1")
        if task["tenant_id"] not in tenants:
            fail(where, "unknown tenant")
        if not isinstance(task["revision"], int) or task["revision"] < 1:
            fail(where, "revision must be an integer >= 1")
        if task["status"] not in TASK_STATUSES:
            fail(where, f"status {task['status']!r} is not a task-state@1 status")
        if not isinstance(task["confirmed"], dict):
            fail(where, "confirmed must be an object")
        for item in [*task["pending"], *task["confirmed"]]:
            if not SNAKE.fullmatch(item):
                fail(where, f"field name {item!r} is not snake_case")
        if set(task["pending"]) & set(task["confirmed"]):
            fail(where, "a field is both confirmed and pending")
        for evidence_id in task["evidence_ids"]:
            mails = by_id.get(evidence_id, [])
            if not mails or mails[0]["tenant_id"] != task["tenant_id"]:
                fail(where, f"evidence {evidence_id} is not a document of its tenant")
            elif any(m["doc_type"] != "mail" for m in mails):
                fail(where, f"evidence {evidence_id} is not a mail")

    check_engineering_cover(users, tasks)
    return {"tenants": tenants, "users": users, "docs": docs, "by_id": by_id, "tasks": tasks}


def check_engineering_cover(users: dict[str, dict], tasks: dict[tuple[str, str], dict]) -> None:
    """A task's engineering items go to engineers holding its customer's grant: in a tenant with
    engineers, each customer of its tasks needs one, or that customer's items wait for nobody."""
    for tenant in sorted({tenant for tenant, _ in tasks}):
        engineers = [
            u for u in users.values() if u["tenant_id"] == tenant and "engineer" in u["roles"]
        ]
        if not engineers:
            continue
        granted = {g for u in engineers for g in u["grants"]}
        for (task_tenant, task_id), task in sorted(tasks.items()):
            customer = task["confirmed"].get("customer_id")
            if task_tenant == tenant and customer and f"customer:{customer}" not in granted:
                fail(
                    f"task {tenant}/{task_id}",
                    f"no engineer of tenant {tenant} holds customer:{customer}",
                )


def overlaps(a: dict, b: dict) -> bool:
    far = date.max
    a_end = iso(a["valid_to"]) or far
    b_end = iso(b["valid_to"]) or far
    return iso(a["valid_from"]) < b_end and iso(b["valid_from"]) < a_end


def readable(doc: dict, user: dict) -> bool:
    if doc["tenant_id"] != user["tenant_id"]:
        return False
    for entry in doc["acl"]:
        if entry == "tenant" or entry == f"user:{user['user_id']}" or entry in user["grants"]:
            return True
        if entry.startswith("role:") and entry[5:] in user["roles"]:
            return True
    return False


def citable(doc: dict, user: dict, as_of: date) -> bool:
    """What the spec allows to back a claim: approved, valid on as_of, readable by the user."""
    end = iso(doc["valid_to"])
    return (
        doc["status"] == "approved"
        and iso(doc["valid_from"]) <= as_of
        and (end is None or as_of < end)
        and readable(doc, user)
    )


def resolve(ref: str, index: dict, where: str) -> list[dict]:
    document_id, _, version = ref.partition("@")
    versions = index["by_id"].get(document_id)
    if not versions:
        fail(where, f"reference {ref} names no document")
        return []
    if not version:
        return versions
    found = index["docs"].get((document_id, int(version) if version.isdigit() else version))
    if found is None:
        fail(where, f"reference {ref} names no version")
        return []
    return [found]


def stated_quantities(body: str) -> list[tuple[str, str, str]]:
    """(context before the number, number, unit) for every number-with-unit in a body."""
    found = []
    for m in QUANTITY.finditer(body):
        context = re.sub(r"\s+", "", body[max(0, m.start() - 12) : m.start()])
        found.append((context, m.group(1), m.group(2)))
    return found


def common_suffix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def contradicts(a: dict, b: dict) -> bool:
    """Same attribute phrase (>= 4 shared characters right before the number), other value."""
    return any(
        ua == ub and na != nb and common_suffix(ca, cb) >= 4
        for ca, na, ua in stated_quantities(a["body"])
        for cb, nb, ub in stated_quantities(b["body"])
    )


def check_golden(golden: dict, index: dict) -> tuple[Counter, set[frozenset[str]]]:
    if golden.get("schema_version") != "golden@1":
        fail("golden", "schema_version must be golden@1")
    if not DATASET_ID.fullmatch(str(golden.get("dataset_id"))):
        fail("golden", "dataset_id must look like name@N")
    as_of = iso(golden.get("as_of"))
    if as_of is None:
        fail("golden", "as_of is not an ISO date")
        return Counter(), set()
    counts: Counter = Counter()
    declared_conflicts: set[frozenset[str]] = set()
    seen: set[str] = set()
    for case in golden["cases"]:
        where = f"case {case.get('case_id')}"
        if case["case_id"] in seen:
            fail(where, "duplicate case_id")
        seen.add(case["case_id"])
        kind = case.get("kind")
        keys, statuses = (
            (RETRIEVAL_KEYS, RETRIEVAL_STATUSES)
            if kind == "retrieval"
            else (TASK_CASE_KEYS, TASK_CASE_STATUSES)
        )
        if kind not in {"retrieval", "task"} or set(case) != keys:
            fail(where, f"kind {kind!r} or keys {sorted(case)} do not match golden@1")
            continue
        if case["expect_status"] not in statuses:
            fail(where, f"expect_status {case['expect_status']!r} not in {sorted(statuses)}")
        counts[(kind, case["expect_status"])] += 1
        user = index["users"].get(case["user_id"])
        if user is None:
            fail(where, f"unknown user {case['user_id']}")
            continue
        if kind == "retrieval":
            if not case["query"].strip() or not isinstance(case["k"], int) or case["k"] < 1:
                fail(where, "query must be non-empty and k a positive integer")
        else:
            task = index["tasks"].get((user["tenant_id"], case["task_id"]))
            if task is None:
                fail(where, f"task {case['task_id']} does not exist in tenant {user['tenant_id']}")
            elif not set(case["must_not_request"]) <= set(task["confirmed"]):
                fail(where, "must_not_request names fields that are not confirmed in the task")
            if not case["supplement"].strip():
                fail(where, "supplement is empty")

        relevant = [d for ref in case["relevant"] for d in resolve(ref, index, where)]
        forbidden = [d for ref in case["forbidden"] for d in resolve(ref, index, where)]
        relevant_keys = {(d["document_id"], d["version"]) for d in relevant}
        if relevant_keys & {(d["document_id"], d["version"]) for d in forbidden}:
            fail(where, "a version is both relevant and forbidden")
        for doc in relevant:
            if not citable(doc, user, as_of):
                fail(
                    where,
                    f"relevant {doc['document_id']}@{doc['version']} may not back a "
                    f"claim for {user['user_id']} on {as_of}",
                )
        for doc in forbidden:
            if citable(doc, user, as_of):
                fail(
                    where,
                    f"forbidden {doc['document_id']}@{doc['version']} is citable by "
                    f"{user['user_id']}: it is not forbidden",
                )
        status = case["expect_status"]
        if status == "insufficient_evidence" and relevant:
            fail(where, "insufficient_evidence cases keep relevant empty")
        if status in {"ok", "ready_for_review"} and not relevant:
            fail(where, f"{status} needs at least one relevant document")
        if status == "source_conflict":
            facts = {d["document_id"]: d for d in relevant if d["knowledge_class"] == "fact"}
            pair_found = any(
                a["customer_id"] == b["customer_id"] and contradicts(a, b)
                for a, b in combinations(facts.values(), 2)
            )
            if not pair_found:
                fail(where, "relevant holds no pair of facts stating one attribute differently")
            declared_conflicts.add(frozenset(facts))
    return counts, declared_conflicts


def check_accidental_conflicts(index: dict, as_of: date, declared: set[frozenset[str]]) -> None:
    """Only the declared pairs of current approved facts may contradict each other."""
    current = [
        d
        for d in index["docs"].values()
        if d["status"] == "approved"
        and d["knowledge_class"] == "fact"
        and iso(d["valid_from"]) <= as_of
        and (d["valid_to"] is None or as_of < iso(d["valid_to"]))
    ]
    for a, b in combinations(current, 2):
        if (
            a["tenant_id"] == b["tenant_id"]
            and a["customer_id"] == b["customer_id"]
            and a["document_id"] != b["document_id"]
            and contradicts(a, b)
            and frozenset((a["document_id"], b["document_id"])) not in declared
        ):
            fail(
                "corpus",
                f"{a['document_id']} and {b['document_id']} contradict each other "
                "but no source_conflict case declares it",
            )


def main(argv: list[str]) -> int:
    corpus_path = Path(argv[1]) if len(argv) > 1 else HERE / "demo-corpus.json"
    golden_path = Path(argv[2]) if len(argv) > 2 else HERE / "memory-demo.golden.json"
    corpus = json.loads(corpus_path.read_text(encoding="utf-8"))
    golden = json.loads(golden_path.read_text(encoding="utf-8"))
    index = check_corpus(corpus)
    if problems:  # the golden checks rely on a well-formed corpus
        print("\n".join(problems))
        print(f"{len(problems)} problem(s) in {corpus_path.name}")
        return 1
    counts, declared = check_golden(golden, index)
    if iso(golden.get("as_of")):
        check_accidental_conflicts(index, iso(golden["as_of"]), declared)

    retrieval = sum(n for (kind, _), n in counts.items() if kind == "retrieval")
    task_cases = sum(n for (kind, _), n in counts.items() if kind == "task")
    need_retrieval, need_tasks = MINIMUM_CASES.get(golden.get("dataset_id"), HELD_OUT_MINIMUM)
    if retrieval < need_retrieval:
        fail("golden", f"only {retrieval} retrieval cases (need {need_retrieval})")
    if task_cases < need_tasks:
        fail("golden", f"only {task_cases} task cases (need {need_tasks})")
    if problems:
        print("\n".join(problems))
        print(f"{len(problems)} problem(s)")
        return 1
    languages = Counter(d["language"] for d in index["docs"].values())
    print(
        f"ok: {len(index['docs'])} document versions ({dict(languages)}), "
        f"{len(index['tasks'])} tasks, {len(index['users'])} users"
    )
    for (kind, status), n in sorted(counts.items()):
        print(f"  {kind:9} {status:22} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

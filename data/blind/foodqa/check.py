#!/usr/bin/env python3
"""Stdlib-only checker for the blind-foodqa@1 dataset.

Validates foodqa-corpus.json (corpus@1) and foodqa.golden.json (golden@1) against the rules in
docs/formats.md and docs/product.md that can be checked without memdesk itself, plus a few
dataset conventions (body length, expected-status mix).  Written from the documented formats
only; it does not import or run any project code.

Usage:  python3 check.py [CORPUS.json GOLDEN.json]
Exit 0 when clean, 1 when any error was found.  Warnings never change the exit code.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import re
import sys
import unicodedata
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "foodqa-corpus.json")
GOLDEN = os.path.join(HERE, "foodqa.golden.json")

ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
DOC_TYPES = {"sop", "contract", "order", "quote", "mail", "note"}
KNOWLEDGE = {"fact", "history", "inference"}
DOC_STATUS = {"draft", "pending_approval", "approved", "superseded", "revoked", "rejected"}
TASK_STATUS = {
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
RETRIEVAL_STATUS = {"ok", "insufficient_evidence", "source_conflict"}
TASK_EXPECT = {"ready_for_review", "insufficient_evidence", "source_conflict"}
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
    "created_at",
    "updated_at",
}
CORPUS_KEYS = {"schema_version", "tenants", "users", "documents", "tasks"}
TENANT_KEYS = {"tenant_id", "name"}
USER_KEYS = {"user_id", "tenant_id", "display_name", "roles", "grants"}
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
GOLDEN_KEYS = {"schema_version", "dataset_id", "as_of", "cases"}
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
    "k",
    "relevant",
    "forbidden",
    "expect_status",
    "must_not_request",
}
MAX_INT = 2_147_483_647
ID_MAX = {"tenant": 64, "user": 128, "document": 200, "task": 128, "customer": 128}
# Dataset conventions (the brief, not the product): realistic body length.
BODY_MIN, BODY_MAX = 300, 1500

errors: list[str] = []
warnings: list[str] = []


def err(where: str, msg: str) -> None:
    errors.append(f"{where}: {msg}")


def warn(where: str, msg: str) -> None:
    warnings.append(f"{where}: {msg}")


# ---------------------------------------------------------------- loading


class DuplicateKey(ValueError):
    pass


def _no_dupes(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(f"key {key!r} given twice in one object")
        seen[key] = value
    return seen


def load(path: str):
    label = os.path.basename(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        err(label, f"cannot read: {exc}")
        return None
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        err(label, f"not valid UTF-8: {exc}")
        return None
    if text.startswith("\ufeff"):
        err(label, "starts with a byte-order mark")
    try:
        return json.loads(text, object_pairs_hook=_no_dupes)
    except DuplicateKey as exc:
        err(label, str(exc))
    except json.JSONDecodeError as exc:
        err(label, f"invalid JSON: {exc}")
    return None


# ---------------------------------------------------------------- primitives

_FORBIDDEN_ID_CHARS = set("@:/#")


def check_id(where: str, value, kind: str) -> bool:
    """formats.md 'Ids and limits'."""
    if not isinstance(value, str):
        err(where, f"{kind} id must be a string, got {type(value).__name__}")
        return False
    if not 1 <= len(value) <= ID_MAX[kind]:
        err(where, f"{kind} id {value!r} must be 1..{ID_MAX[kind]} characters")
        return False
    if unicodedata.normalize("NFC", value) != value:
        err(where, f"{kind} id {value!r} is not in Unicode NFC")
        return False
    first = unicodedata.category(value[0])
    if not (first.startswith("L") or first == "Nd"):
        err(where, f"{kind} id {value!r} must start with a letter or a digit")
        return False
    for ch in value:
        cat = unicodedata.category(ch)
        if ch in _FORBIDDEN_ID_CHARS:
            err(where, f"{kind} id {value!r} contains separator {ch!r}")
            return False
        if cat.startswith("L") or cat.startswith("M") or cat == "Nd" or ch in "-_.":
            continue
        err(where, f"{kind} id {value!r} contains forbidden character U+{ord(ch):04X} ({cat})")
        return False
    return True


def parse_date(where: str, value, field: str, nullable: bool = False):
    if value is None:
        if not nullable:
            err(where, f"{field} is required")
        return None
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        err(where, f"{field} {value!r} is not an ISO date YYYY-MM-DD")
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        err(where, f"{field} {value!r} is not a real date")
        return None


def parse_datetime(where: str, value, field: str):
    if value is None:
        return None
    if not isinstance(value, str):
        err(where, f"{field} must be a string date-time")
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        err(where, f"{field} {value!r} is not an ISO date-time")
        return None


def no_nul(where: str, value, field: str) -> None:
    if isinstance(value, str) and "\x00" in value:
        err(where, f"{field} contains NUL")


def unknown_keys(where: str, obj: dict, allowed: set[str], strict: bool = False) -> None:
    extra = sorted(set(obj) - allowed)
    if extra:
        (err if strict else warn)(where, f"unknown keys {extra}")


def depth(value, level: int = 0) -> int:
    if isinstance(value, dict):
        return max([level + 1] + [depth(v, level + 1) for v in value.values()])
    if isinstance(value, list):
        return max([level + 1] + [depth(v, level + 1) for v in value])
    return level


def check_acl_entry(where: str, entry, users_by_id: dict, tenant: str) -> None:
    if not isinstance(entry, str):
        err(where, f"ACL entry {entry!r} is not a string")
        return
    if entry == "tenant":
        return
    prefix, sep, rest = entry.partition(":")
    if not sep:
        err(where, f"unknown ACL entry {entry!r}")
        return
    if prefix == "role":
        if rest not in ROLES:
            err(where, f"ACL entry {entry!r} names unknown role")
    elif prefix == "user":
        if check_id(where, rest, "user"):
            u = users_by_id.get(rest)
            if u is None:
                err(where, f"ACL entry {entry!r} names a user not in the corpus")
            elif u.get("tenant_id") != tenant:
                err(where, f"ACL entry {entry!r} names a user of another tenant")
    elif prefix == "customer":
        check_id(where, rest, "customer")
    else:
        err(where, f"unknown ACL entry {entry!r}")


# ---------------------------------------------------------------- corpus


def check_corpus(c) -> dict:
    ctx = {"tenants": {}, "users": {}, "docs": {}, "by_id": {}, "tasks": {}}
    if not isinstance(c, dict):
        err("corpus", "top level must be an object")
        return ctx
    if c.get("schema_version") != "corpus@1":
        err("corpus.schema_version", f"must be 'corpus@1', got {c.get('schema_version')!r}")
    unknown_keys("corpus", c, CORPUS_KEYS)

    for i, t in enumerate(c.get("tenants", [])):
        where = f"tenants[{i}] ({t.get('tenant_id')})"
        unknown_keys(where, t, TENANT_KEYS)
        if check_id(where + ".tenant_id", t.get("tenant_id"), "tenant"):
            if t["tenant_id"] in ctx["tenants"]:
                err(where, "tenant_id given twice")
            ctx["tenants"][t["tenant_id"]] = t
        name = t.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 200:
            err(where + ".name", "required, 1..200 characters")
        no_nul(where, name, "name")

    for i, u in enumerate(c.get("users", [])):
        where = f"users[{i}] ({u.get('user_id')})"
        unknown_keys(where, u, USER_KEYS)
        if check_id(where + ".user_id", u.get("user_id"), "user"):
            if u["user_id"] in ctx["users"]:
                err(where, "user_id given twice")
            ctx["users"][u["user_id"]] = u
        if u.get("tenant_id") not in ctx["tenants"]:
            err(where + ".tenant_id", f"unknown tenant {u.get('tenant_id')!r}")
        dn = u.get("display_name", "")
        if not isinstance(dn, str) or len(dn) > 200:
            err(where + ".display_name", "at most 200 characters")
        no_nul(where, dn, "display_name")
        roles = u.get("roles", [])
        if not isinstance(roles, list) or not roles:
            warn(where + ".roles", "no roles")
        for r in roles or []:
            if r not in ROLES:
                err(where + ".roles", f"unknown role {r!r}")
        if len(set(roles or [])) != len(roles or []):
            err(where + ".roles", "role listed twice")
        for g in u.get("grants", []) or []:
            if not isinstance(g, str) or not g.startswith("customer:"):
                err(where + ".grants", f"grant {g!r} must be 'customer:' + a customer id")
            else:
                check_id(where + ".grants", g[len("customer:") :], "customer")

    # documents
    versions: dict[str, list[dict]] = {}
    for i, d in enumerate(c.get("documents", [])):
        label = f"{d.get('document_id')}@{d.get('version')}"
        where = f"documents[{i}] ({label})"
        unknown_keys(where, d, DOC_KEYS)
        for field in (
            "document_id",
            "version",
            "tenant_id",
            "doc_type",
            "knowledge_class",
            "status",
            "valid_from",
            "acl",
            "title",
            "body",
        ):
            if field not in d:
                err(where, f"missing required field {field}")
        ok_id = check_id(where + ".document_id", d.get("document_id"), "document")
        v = d.get("version")
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_INT:
            err(where + ".version", "must be an integer 1..2147483647")
            continue
        if not ok_id:
            continue
        key = (d["document_id"], v)
        if key in ctx["docs"]:
            err(where, "(document_id, version) given twice")
        ctx["docs"][key] = d
        versions.setdefault(d["document_id"], []).append(d)
        tenant = d.get("tenant_id")
        if tenant not in ctx["tenants"]:
            err(where + ".tenant_id", f"unknown tenant {tenant!r}")
        if d.get("doc_type") not in DOC_TYPES:
            err(where + ".doc_type", f"{d.get('doc_type')!r} not in {sorted(DOC_TYPES)}")
        if d.get("knowledge_class") not in KNOWLEDGE:
            err(
                where + ".knowledge_class",
                f"{d.get('knowledge_class')!r} not in {sorted(KNOWLEDGE)}",
            )
        status = d.get("status")
        if status not in DOC_STATUS:
            err(where + ".status", f"{status!r} not in {sorted(DOC_STATUS)}")
        vf = parse_date(where, d.get("valid_from"), "valid_from")
        vt = parse_date(where, d.get("valid_to"), "valid_to", nullable=True)
        if vf and vt and not vt > vf:
            err(where + ".valid_to", "must be after valid_from")
        d["_vf"], d["_vt"] = vf, vt
        acl = d.get("acl")
        if not isinstance(acl, list) or not acl:
            err(where + ".acl", "must be a non-empty list")
        else:
            if len(set(acl)) != len(acl):
                warn(where + ".acl", "entry listed twice")
            for e in acl:
                check_acl_entry(where + ".acl", e, ctx["users"], tenant)
        lang = d.get("language", "zh-Hant")
        if not isinstance(lang, str) or not 1 <= len(lang) <= 20:
            err(where + ".language", "1..20 characters")
        title, body = d.get("title"), d.get("body")
        if not isinstance(title, str) or not 1 <= len(title) <= 500:
            err(where + ".title", "required, 1..500 characters")
        if not isinstance(body, str) or not body:
            err(where + ".body", "required, non-empty")
        else:
            if not BODY_MIN <= len(body) <= BODY_MAX:
                err(
                    where + ".body",
                    f"{len(body)} characters; dataset convention is {BODY_MIN}..{BODY_MAX}",
                )
        for field in ("title", "body"):
            no_nul(where, d.get(field), field)
        cust = d.get("customer_id")
        if cust is not None:
            check_id(where + ".customer_id", cust, "customer")
            if f"customer:{cust}" not in (acl or []):
                warn(where, f"customer_id {cust} but no customer:{cust} ACL entry")
        ab = d.get("approved_by")
        if status in {"draft", "pending_approval", "rejected"}:
            if ab is not None:
                err(where + ".approved_by", f"must be null for status {status}")
        elif status in {"approved", "superseded", "revoked"} and ab is None:
            warn(where + ".approved_by", f"null for status {status}")
        if ab is not None:
            approver = ctx["users"].get(ab)
            if approver is None:
                err(where + ".approved_by", f"unknown user {ab!r}")
            elif approver.get("tenant_id") != tenant:
                err(where + ".approved_by", f"approver {ab!r} belongs to another tenant")
        if d.get("knowledge_class") == "inference" and status in {"approved", "superseded"}:
            err(where, "an inference is never approved as knowledge (product.md §3)")

    # version chains: no two approved versions apply on the same day; superseded closes at next
    for doc_id, vs in versions.items():
        vs.sort(key=lambda x: x["version"])
        tenants = {x.get("tenant_id") for x in vs}
        if len(tenants) > 1:
            err(
                f"documents ({doc_id})",
                f"versions belong to several tenants {sorted(map(str, tenants))}",
            )
        live = [x for x in vs if x.get("status") in {"approved", "superseded"} and x.get("_vf")]
        for a, b in itertools.pairwise(live):
            a_end = a.get("_vt") or dt.date.max
            if b["_vf"] < a_end:
                err(
                    f"documents ({doc_id}@{a['version']})",
                    f"valid until {a.get('valid_to')} overlaps {doc_id}@{b['version']} "
                    f"from {b['valid_from']}",
                )
            if a.get("_vt") and b.get("_vf") and a["_vt"] != b["_vf"]:
                warn(
                    f"documents ({doc_id}@{a['version']})",
                    f"valid_to {a['valid_to']} is not the next version's "
                    f"valid_from {b['valid_from']}",
                )
        for x in vs:
            if x.get("status") == "superseded" and x.get("_vt") is None:
                err(f"documents ({doc_id}@{x['version']})", "superseded but valid_to is null")
        ctx["by_id"][doc_id] = vs

    # tasks
    for i, t in enumerate(c.get("tasks", [])):
        where = f"tasks[{i}] ({t.get('task_id')})"
        unknown_keys(where, t, TASK_KEYS, strict=True)
        if t.get("schema_version", "task-state@1") != "task-state@1":
            err(where + ".schema_version", "must be 'task-state@1'")
        tenant = t.get("tenant_id")
        if tenant not in ctx["tenants"]:
            err(where + ".tenant_id", f"unknown tenant {tenant!r}")
        if check_id(where + ".task_id", t.get("task_id"), "task"):
            key = (tenant, t["task_id"])
            if key in ctx["tasks"]:
                err(where, "task given twice for this tenant")
            ctx["tasks"][key] = t
        rev = t.get("revision")
        if not isinstance(rev, int) or isinstance(rev, bool) or not 1 <= rev <= MAX_INT:
            err(where + ".revision", "must be an integer 1..2147483647")
        if t.get("status") not in TASK_STATUS:
            err(where + ".status", f"{t.get('status')!r} not a task status")
        confirmed = t.get("confirmed", {})
        if not isinstance(confirmed, dict):
            err(where + ".confirmed", "must be an object")
            confirmed = {}
        if depth(confirmed) > 16:
            err(where + ".confirmed", "nests deeper than 16 levels")
        if "due_date" in confirmed:
            parse_date(where + ".confirmed", confirmed["due_date"], "due_date")
        if "customer_id" in confirmed:
            check_id(where + ".confirmed.customer_id", confirmed["customer_id"], "customer")
        pending = t.get("pending", [])
        if not isinstance(pending, list) or not all(isinstance(p, str) for p in pending):
            err(where + ".pending", "must be a list of strings")
            pending = []
        for p in pending:
            if not re.fullmatch(r"[a-z][a-z0-9_]*", p):
                err(where + ".pending", f"{p!r} is not a snake_case field name")
            if p in confirmed:
                err(where + ".pending", f"{p!r} is both pending and confirmed")
        if t.get("next_step") != "retrieve":
            warn(where + ".next_step", f"{t.get('next_step')!r} (dataset convention: 'retrieve')")
        ev = t.get("evidence_ids", [])
        if not ev:
            warn(where + ".evidence_ids", "empty")
        for e in ev:
            m = (
                re.fullmatch(r"([^@:/#]+)(?:@(\d+)(?::(\d+)-(\d+))?)?", e)
                if isinstance(e, str)
                else None
            )
            if not m:
                err(where + ".evidence_ids", f"{e!r} is not DOC, DOC@V or DOC@V:START-END")
                continue
            doc_id, ver, start, end = m.groups()
            vs = ctx["by_id"].get(doc_id)
            if not vs:
                err(where + ".evidence_ids", f"{e!r} names no document in the corpus")
                continue
            if any(x.get("tenant_id") != tenant for x in vs):
                err(where + ".evidence_ids", f"{e!r} belongs to another tenant")
            if ver is not None:
                d = ctx["docs"].get((doc_id, int(ver)))
                if d is None:
                    err(where + ".evidence_ids", f"{e!r}: no such version")
                elif start is not None and not 0 <= int(start) < int(end) <= len(d["body"]):
                    err(where + ".evidence_ids", f"{e!r}: span outside the body")
        ca = parse_datetime(where, t.get("created_at"), "created_at")
        ua = parse_datetime(where, t.get("updated_at"), "updated_at")
        if ca and ua and ua < ca:
            err(where, "updated_at before created_at")
    return ctx


# ---------------------------------------------------------------- golden helpers


def readable(user: dict, d: dict) -> bool:
    """formats.md 'ACL entries': same tenant and at least one entry matches."""
    if user.get("tenant_id") != d.get("tenant_id"):
        return False
    roles, grants = set(user.get("roles") or []), set(user.get("grants") or [])
    for e in d.get("acl") or []:
        if e == "tenant":
            return True
        if e.startswith("role:") and e[5:] in roles:
            return True
        if e.startswith("user:") and e[5:] == user.get("user_id"):
            return True
        if e.startswith("customer:") and e in grants:
            return True
    return False


def usable(d: dict, as_of: dt.date) -> bool:
    """product.md §3: approved, valid now, not superseded (the status of the file)."""
    if d.get("status") != "approved":
        return False
    vf, vt = d.get("_vf"), d.get("_vt")
    return bool(vf and vf <= as_of and (vt is None or as_of < vt))


def resolve(ref, ctx) -> list[dict] | None:
    if not isinstance(ref, str):
        return None
    m = re.fullmatch(r"([^@:/#]+)(?:@(\d+))?", ref)
    if not m:
        return None
    doc_id, ver = m.groups()
    if ver is None:
        return ctx["by_id"].get(doc_id)
    d = ctx["docs"].get((doc_id, int(ver)))
    return [d] if d else None


def task_visible(user: dict, task: dict) -> bool:
    """product.md §1: customer scope covers tasks."""
    if user.get("tenant_id") != task.get("tenant_id"):
        return False
    cust = (task.get("confirmed") or {}).get("customer_id")
    if not cust:
        return True
    roles = set(user.get("roles") or [])
    return f"customer:{cust}" in (user.get("grants") or []) or bool(
        roles & {"knowledge_owner", "admin"}
    )


# ---------------------------------------------------------------- golden


def check_golden(g, ctx) -> Counter:
    mix: Counter = Counter()
    if not isinstance(g, dict):
        err("golden", "top level must be an object")
        return mix
    unknown_keys("golden", g, GOLDEN_KEYS)
    if g.get("schema_version") != "golden@1":
        err("golden.schema_version", "must be 'golden@1'")
    if g.get("dataset_id") != "blind-foodqa@1":
        err("golden.dataset_id", f"expected 'blind-foodqa@1', got {g.get('dataset_id')!r}")
    as_of = parse_date("golden", g.get("as_of"), "as_of")
    as_of = as_of or dt.date.today()
    seen_cases: set[str] = set()
    tasks_cased: set[str] = set()
    for i, case in enumerate(g.get("cases", [])):
        cid = case.get("case_id")
        where = f"cases[{i}] ({cid})"
        if not isinstance(cid, str) or not cid:
            err(where, "case_id required")
        elif cid in seen_cases:
            err(where, "case_id given twice")
        seen_cases.add(cid)
        kind = case.get("kind")
        user = ctx["users"].get(case.get("user_id"))
        if user is None:
            err(where + ".user_id", f"unknown user {case.get('user_id')!r}")
            continue
        k = case.get("k", 5)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 100:
            err(where + ".k", "must be an integer 1..100")
            k = 5
        status = case.get("expect_status", "ok" if kind == "retrieval" else None)
        if kind == "retrieval":
            unknown_keys(where, case, RETRIEVAL_KEYS)
            q = case.get("query")
            if not isinstance(q, str) or not q.strip():
                err(where + ".query", "must be a non-empty string")
            no_nul(where, q, "query")
            if status not in RETRIEVAL_STATUS:
                err(where + ".expect_status", f"{status!r} not in {sorted(RETRIEVAL_STATUS)}")
        elif kind == "task":
            unknown_keys(where, case, TASK_CASE_KEYS)
            if status not in TASK_EXPECT:
                err(where + ".expect_status", f"{status!r} not in {sorted(TASK_EXPECT)}")
            task = ctx["tasks"].get((user.get("tenant_id"), case.get("task_id")))
            if task is None:
                err(where + ".task_id", f"no task {case.get('task_id')!r} in the user's tenant")
            else:
                tasks_cased.add(task["task_id"])
                if not task_visible(user, task):
                    err(where, "the user cannot open this task (customer scope)")
                confirmed = task.get("confirmed") or {}
                for f in case.get("must_not_request", []):
                    if f not in confirmed:
                        err(
                            where + ".must_not_request",
                            f"{f!r} is not a confirmed field of the task",
                        )
                if not case.get("must_not_request"):
                    warn(where + ".must_not_request", "empty")
                sup = case.get("supplement")
                if sup is not None and not isinstance(sup, str):
                    err(where + ".supplement", "must be a string or null")
                no_nul(where, sup, "supplement")
        else:
            err(where + ".kind", f"{kind!r} is not 'retrieval' or 'task'")
            continue
        mix[(kind, status)] += 1

        rel, forb = case.get("relevant", []), case.get("forbidden", [])
        if len(set(rel)) != len(rel) or len(set(forb)) != len(forb):
            err(where, "a ref is listed twice")
        rel_docs: list[dict] = []
        for ref in rel:
            docs = resolve(ref, ctx)
            if not docs:
                err(where + ".relevant", f"{ref!r} resolves to no document version")
                continue
            for d in docs:
                rel_docs.append(d)
                lab = f"{d['document_id']}@{d['version']}"
                if not readable(user, d):
                    err(where + ".relevant", f"{lab} is not readable by {user['user_id']}")
                if not usable(d, as_of):
                    err(where + ".relevant", f"{lab} is not approved and valid on {as_of}")
                if d.get("knowledge_class") == "inference":
                    err(where + ".relevant", f"{lab} is an inference")
        for ref in forb:
            docs = resolve(ref, ctx)
            if not docs:
                err(where + ".forbidden", f"{ref!r} resolves to no document version")
        # overlap between relevant and forbidden, at version level
        rel_keys = {(d["document_id"], d["version"]) for d in rel_docs}
        for ref in forb:
            for d in resolve(ref, ctx) or []:
                if (d["document_id"], d["version"]) in rel_keys:
                    err(where, f"{d['document_id']}@{d['version']} is both relevant and forbidden")
        if len({(d["document_id"], d["version"]) for d in rel_docs}) > k:
            err(where, "more relevant versions than k")
        # expectations that follow from the status
        if status in {"ok", "ready_for_review"} and not rel:
            err(where, f"expect_status {status} with no relevant document")
        if status == "source_conflict" and len({d["document_id"] for d in rel_docs}) < 2:
            err(where, "source_conflict needs at least two relevant documents")
        # a forbidden version the user could legitimately use now would be contradictory
        for ref in forb:
            for d in resolve(ref, ctx) or []:
                if readable(user, d) and usable(d, as_of) and d.get("knowledge_class") == "fact":
                    cust = d.get("customer_id")
                    task = (
                        ctx["tasks"].get((user.get("tenant_id"), case.get("task_id")))
                        if kind == "task"
                        else None
                    )
                    tcust = ((task or {}).get("confirmed") or {}).get("customer_id")
                    if not (cust and tcust and cust != tcust):
                        warn(
                            where + ".forbidden",
                            f"{d['document_id']}@{d['version']} is a usable fact for this user",
                        )

    for _tenant, tid in ctx["tasks"]:
        if tid not in tasks_cased:
            warn(f"tasks ({tid})", "no golden case resumes this task")
    return mix


# ---------------------------------------------------------------- main


def main(argv: list[str]) -> int:
    corpus_path, golden_path = (argv[1], argv[2]) if len(argv) == 3 else (CORPUS, GOLDEN)
    c = load(corpus_path)
    g = load(golden_path)
    ctx = (
        check_corpus(c)
        if c is not None
        else {"tenants": {}, "users": {}, "docs": {}, "by_id": {}, "tasks": {}}
    )
    mix = check_golden(g, ctx) if g is not None else Counter()

    for w in warnings:
        print("warning:", w)
    for e in errors:
        print("error:", e)
    docs = list(ctx["docs"].values())
    print(
        f"documents: {len(docs)} versions of {len(ctx['by_id'])} documents; "
        f"users: {len(ctx['users'])}; tenants: {len(ctx['tenants'])}; tasks: {len(ctx['tasks'])}"
    )
    print("  by status:", dict(sorted(Counter(d.get("status") for d in docs).items())))
    print("  by doc_type:", dict(sorted(Counter(d.get("doc_type") for d in docs).items())))
    print(
        "  by knowledge_class:",
        dict(sorted(Counter(d.get("knowledge_class") for d in docs).items())),
    )
    total = sum(mix.values())
    print(f"cases: {total}")
    for (kind, status), n in sorted(mix.items()):
        print(f"  {kind:9s} {status:22s} {n:3d}")
    if total:
        ok = sum(n for (kd, s), n in mix.items() if s in {"ok", "ready_for_review"})
        ie = sum(n for (kd, s), n in mix.items() if s == "insufficient_evidence")
        sc = sum(n for (kd, s), n in mix.items() if s == "source_conflict")
        print(
            f"  mix: ok/ready {ok / total:.0%}, insufficient {ie / total:.0%}, "
            f"conflict {sc / total:.0%}"
        )
    print("clean" if not errors else f"{len(errors)} error(s)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Standalone consistency check for the blind-solar@1 dataset (standard library only).

Usage: python3 check.py [CORPUS.json GOLDEN.json]
Exit 0 when every check passes, 1 otherwise (each problem is printed).

Checks (from docs/formats.md and docs/product.md only):
- both files parse, no key given twice in one object, schema_version values;
- required keys and enums of tenants, users, documents, tasks (task-state@1) and cases (golden@1);
- id grammar, ISO dates (valid_to after valid_from), unique (document_id, version), non-empty ACLs
  with known entries, approved_by rules, text limits;
- every referenced tenant / user / task / document exists;
- every `relevant` reference is a document version that is approved, in effect on as_of, not
  replaced by a later approved version in effect on as_of, in the case user's tenant and readable
  by the user's ACL (and, for a task with a customer, not bound to another customer);
- every `forbidden` reference names no version citable by that user on as_of;
- task cases: the user may see the task (tenant, customer grant or knowledge_owner/admin) and
  `must_not_request` equals the task's confirmed fields;
- retrieval cases expecting `ok` have at least one relevant version, `source_conflict` at least two.
"""

import datetime
import json
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "solar-corpus.json")
GOLDEN = os.path.join(HERE, "solar.golden.json")

ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
DOC_TYPES = {"sop", "contract", "order", "quote", "mail", "note"}
CLASSES = {"fact", "history", "inference"}
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
TASK_CASE_STATUS = {"ready_for_review", "insufficient_evidence", "source_conflict"}
ID_LIMITS = {"tenant": 64, "user": 128, "document": 200, "task": 128, "customer": 128}
MAX_INT = 2_147_483_647

DOC_KEYS_REQ = {
    "document_id",
    "version",
    "tenant_id",
    "doc_type",
    "knowledge_class",
    "status",
    "valid_from",
    "valid_to",
    "acl",
    "title",
    "body",
}
DOC_KEYS_OPT = {"language", "customer_id", "approved_by", "content_hash"}
TASK_KEYS_REQ = {
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
TASK_KEYS_OPT = {"created_at", "updated_at"}
CASE_KEYS = {
    "case_id",
    "kind",
    "user_id",
    "query",
    "k",
    "relevant",
    "forbidden",
    "expect_status",
    "task_id",
    "supplement",
    "must_not_request",
}

errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def keys_ok(where, record, allowed, required=frozenset()):
    """Report missing required and unknown keys; False when a required key is missing."""
    missing = required - set(record)
    if missing:
        err(where, f"missing keys {sorted(missing)}")
        return False
    extra = set(record) - allowed - required
    if extra:
        err(where, f"unknown keys {sorted(extra)}")
    return True


def no_dup_keys(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise ValueError(f"duplicate key {k!r}")
        seen[k] = v
    return seen


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, object_pairs_hook=no_dup_keys)
    except Exception as e:
        print(f"FAIL {path}: cannot parse: {e}")
        sys.exit(1)


def valid_id(value, kind):
    if not isinstance(value, str) or not value:
        return False
    if unicodedata.normalize("NFC", value) != value or len(value) > ID_LIMITS[kind]:
        return False
    if not (value[0].isalpha() or value[0].isdigit()):
        return False
    for ch in value:
        cat = unicodedata.category(ch)
        if ch in "-_.":
            continue
        if ch.isalpha() or ch.isdigit() or cat.startswith("M"):
            continue
        return False
    return True


def iso_date(value):
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        return None


def acl_ok(entry):
    if entry == "tenant":
        return True
    for prefix, kind in (("user:", "user"), ("customer:", "customer")):
        if entry.startswith(prefix):
            return valid_id(entry[len(prefix) :], kind)
    if entry.startswith("role:"):
        return entry[5:] in ROLES
    return False


def readable(doc, user):
    if doc["tenant_id"] != user["tenant_id"]:
        return False
    for entry in doc["acl"]:
        if entry == "tenant":
            return True
        if entry.startswith("role:") and entry[5:] in user["roles"]:
            return True
        if entry.startswith("user:") and entry[5:] == user["user_id"]:
            return True
        if entry.startswith("customer:") and entry in user["grants"]:
            return True
    return False


def main():
    corpus_path, golden_path = (
        (sys.argv[1], sys.argv[2]) if len(sys.argv) == 3 else (CORPUS, GOLDEN)
    )
    corpus, golden = load(corpus_path), load(golden_path)

    # ---------------- corpus ----------------
    if corpus.get("schema_version") != "corpus@1":
        err("corpus", "schema_version must be corpus@1")
    tenants = {}
    for i, t in enumerate(corpus.get("tenants", [])):
        w = f"tenants[{i}]"
        if set(t) != {"tenant_id", "name"}:
            err(w, f"keys {sorted(t)}")
        if not valid_id(t.get("tenant_id"), "tenant"):
            err(w, "bad tenant_id")
        if not t.get("name") or len(t["name"]) > 200:
            err(w, "name empty or too long")
        if t.get("tenant_id") in tenants:
            err(w, "duplicate tenant")
        tenants[t.get("tenant_id")] = t

    users = {}
    for i, u in enumerate(corpus.get("users", [])):
        w = f"users[{i}] ({u.get('user_id')})"
        keys_ok(w, u, {"user_id", "tenant_id", "display_name", "roles", "grants"})
        if not valid_id(u.get("user_id"), "user"):
            err(w, "bad user_id")
        if u.get("tenant_id") not in tenants:
            err(w, "unknown tenant")
        if len(u.get("display_name", "")) > 200:
            err(w, "display_name too long")
        if not set(u.get("roles", [])) <= ROLES:
            err(w, f"bad roles {u.get('roles')}")
        for g in u.get("grants", []):
            if not (
                isinstance(g, str) and g.startswith("customer:") and valid_id(g[9:], "customer")
            ):
                err(w, f"bad grant {g!r}")
        if u.get("user_id") in users:
            err(w, "duplicate user")
        u.setdefault("roles", [])
        u.setdefault("grants", [])
        users[u.get("user_id")] = u

    docs = {}
    by_id = {}
    for i, d in enumerate(corpus.get("documents", [])):
        w = f"documents[{i}] ({d.get('document_id')}@{d.get('version')})"
        if not keys_ok(w, d, DOC_KEYS_OPT, DOC_KEYS_REQ):
            continue
        if not valid_id(d["document_id"], "document"):
            err(w, "bad document_id")
        if (
            not isinstance(d["version"], int)
            or isinstance(d["version"], bool)
            or not 1 <= d["version"] <= MAX_INT
        ):
            err(w, "bad version")
        if d["tenant_id"] not in tenants:
            err(w, "unknown tenant")
        if d["doc_type"] not in DOC_TYPES:
            err(w, "bad doc_type")
        if d["knowledge_class"] not in CLASSES:
            err(w, "bad knowledge_class")
        if d["status"] not in DOC_STATUS:
            err(w, "bad status")
        vf = iso_date(d["valid_from"])
        if vf is None:
            err(w, "valid_from not an ISO date")
        if d["valid_to"] is not None:
            vt = iso_date(d["valid_to"])
            if vt is None:
                err(w, "valid_to not an ISO date")
            elif vf is not None and vt <= vf:
                err(w, "valid_to must be after valid_from")
        if not isinstance(d["acl"], list) or not d["acl"]:
            err(w, "empty ACL")
        else:
            for e in d["acl"]:
                if not isinstance(e, str) or not acl_ok(e):
                    err(w, f"bad ACL entry {e!r}")
                elif e.startswith("user:") and (
                    e[5:] not in users or users[e[5:]]["tenant_id"] != d["tenant_id"]
                ):
                    err(w, f"ACL names unknown user {e!r}")
        if not d["title"] or len(d["title"]) > 500:
            err(w, "title empty or too long")
        if not d["body"]:
            err(w, "empty body")
        for field in ("title", "body"):
            if "\x00" in d[field]:
                err(w, f"NUL in {field}")
        if d.get("customer_id") is not None and not valid_id(d["customer_id"], "customer"):
            err(w, "bad customer_id")
        ab = d.get("approved_by")
        if d["status"] in ("draft", "pending_approval", "rejected"):
            if ab is not None:
                err(w, "approved_by must be null for draft/pending/rejected")
        else:
            if ab not in users or users[ab]["tenant_id"] != d["tenant_id"]:
                err(w, f"approved_by {ab!r} is not a user of the tenant")
        key = (d["document_id"], d["version"])
        if key in docs:
            err(w, "duplicate (document_id, version)")
        docs[key] = d
        by_id.setdefault(d["document_id"], []).append(d)
    for did, vs in by_id.items():
        if len({v["tenant_id"] for v in vs}) != 1:
            err(did, "versions of one document in different tenants")

    tasks = {}
    for i, t in enumerate(corpus.get("tasks", [])):
        w = f"tasks[{i}] ({t.get('task_id')})"
        if not keys_ok(w, t, TASK_KEYS_OPT, TASK_KEYS_REQ):
            continue
        if t["schema_version"] != "task-state@1":
            err(w, "schema_version")
        if t["tenant_id"] not in tenants:
            err(w, "unknown tenant")
        if not valid_id(t["task_id"], "task"):
            err(w, "bad task_id")
        if not isinstance(t["revision"], int) or not 1 <= t["revision"] <= MAX_INT:
            err(w, "bad revision")
        if t["status"] not in TASK_STATUS:
            err(w, "bad status")
        if not isinstance(t["confirmed"], dict) or not isinstance(t["pending"], list):
            err(w, "confirmed must be an object, pending a list")
        cust = t["confirmed"].get("customer_id")
        if cust is not None and not valid_id(cust, "customer"):
            err(w, "bad confirmed.customer_id")
        for ev in t["evidence_ids"]:
            base = ev.split("@")[0]
            if base not in by_id or by_id[base][0]["tenant_id"] != t["tenant_id"]:
                err(w, f"evidence id {ev!r} names no document of the tenant")
        if (t["tenant_id"], t["task_id"]) in tasks:
            err(w, "duplicate task")
        tasks[(t["tenant_id"], t["task_id"])] = t

    # ---------------- golden ----------------
    if golden.get("schema_version") != "golden@1":
        err("golden", "schema_version must be golden@1")
    if not golden.get("dataset_id"):
        err("golden", "dataset_id missing")
    as_of = iso_date(golden.get("as_of"))
    if as_of is None:
        err("golden", "as_of is not an ISO date")
        as_of = datetime.date.today()

    def in_effect(d):
        vf = iso_date(d["valid_from"])
        vt = iso_date(d["valid_to"]) if d["valid_to"] else None
        return vf <= as_of and (vt is None or as_of < vt)

    def citable(d, user, task_customer=None):
        if d["status"] != "approved" or not in_effect(d):
            return False
        # a later approved version already in effect replaces this one
        for other in by_id[d["document_id"]]:
            if (
                other["version"] > d["version"]
                and other["status"] == "approved"
                and iso_date(other["valid_from"]) <= as_of
            ):
                return False
        if not readable(d, user):
            return False
        return task_customer is None or d.get("customer_id") in (None, task_customer)

    def resolve(ref, w):
        m = re.fullmatch(r"([^@]+)(?:@(\d+))?", ref)
        if not m or m.group(1) not in by_id:
            err(w, f"reference {ref!r} names no document")
            return None
        if m.group(2) is None:
            return by_id[m.group(1)]
        key = (m.group(1), int(m.group(2)))
        if key not in docs:
            err(w, f"reference {ref!r} names no version")
            return None
        return [docs[key]]

    seen_cases = set()
    for i, c in enumerate(golden.get("cases", [])):
        w = f"cases[{i}] ({c.get('case_id')})"
        keys_ok(w, c, CASE_KEYS)
        if not c.get("case_id") or c["case_id"] in seen_cases:
            err(w, "missing or duplicate case_id")
        seen_cases.add(c.get("case_id"))
        user = users.get(c.get("user_id"))
        if user is None:
            err(w, "unknown user")
            continue
        task_customer = None
        if c.get("kind") == "retrieval":
            if not c.get("query"):
                err(w, "retrieval case without query")
            if c.get("expect_status") not in RETRIEVAL_STATUS:
                err(w, "bad expect_status for retrieval")
            if "k" in c and (not isinstance(c["k"], int) or c["k"] < 1):
                err(w, "bad k")
            n_rel = len(c.get("relevant", []))
            if c.get("expect_status") == "ok" and n_rel < 1:
                err(w, "ok case without relevant")
            if c.get("expect_status") == "source_conflict" and n_rel < 2:
                err(w, "source_conflict case needs both sides in relevant")
            if c.get("expect_status") == "insufficient_evidence" and n_rel:
                err(w, "insufficient_evidence case lists relevant versions")
        elif c.get("kind") == "task":
            if c.get("expect_status") not in TASK_CASE_STATUS:
                err(w, "bad expect_status for task")
            task = tasks.get((user["tenant_id"], c.get("task_id")))
            if task is None:
                err(w, "task not found in the user's tenant")
                continue
            task_customer = task["confirmed"].get("customer_id")
            if (
                task_customer is not None
                and f"customer:{task_customer}" not in user["grants"]
                and not {"knowledge_owner", "admin"} & set(user["roles"])
            ):
                err(w, "user may not see this customer's task")
            if sorted(c.get("must_not_request", [])) != sorted(task["confirmed"]):
                err(w, "must_not_request must equal the task's confirmed fields")
            if not c.get("supplement"):
                err(w, "task case without supplement")
        else:
            err(w, "kind must be retrieval or task")
            continue
        for ref in c.get("relevant", []):
            if "@" not in ref:
                err(w, f"relevant {ref!r} should name one version")
            vs = resolve(ref, w)
            if vs and not all(citable(d, user, task_customer) for d in vs):
                err(w, f"relevant {ref!r} is not citable for {user['user_id']} on {as_of}")
        for ref in c.get("forbidden", []):
            vs = resolve(ref, w)
            if vs and any(citable(d, user, task_customer) for d in vs):
                err(w, f"forbidden {ref!r} is citable for {user['user_id']} on {as_of}")
        overlap = set(c.get("relevant", [])) & set(c.get("forbidden", []))
        if overlap:
            err(w, f"in both relevant and forbidden: {sorted(overlap)}")

    if errors:
        for e in errors:
            print("FAIL", e)
        print(f"{len(errors)} problem(s)")
        return 1
    n_docs = len(docs)
    print(
        f"OK: {len(tenants)} tenants, {len(users)} users, {n_docs} document versions, "
        f"{len(tasks)} tasks, {len(golden['cases'])} cases (as_of {as_of})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

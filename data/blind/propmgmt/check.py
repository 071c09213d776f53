#!/usr/bin/env python3
"""Stdlib-only checker for the blind property-management dataset.

    python3 check.py [CORPUS.json GOLDEN.json]

Checks what docs/formats.md and docs/product.md say about corpus@1, task-state@1 and golden@1
that can be checked without memdesk itself: strict UTF-8, no duplicate JSON keys, the exported
JSON Schemas in data/schemas/ (a small validator for the keywords they use), the id grammar and
length limits, ACL entries and grants, (document_id, version) uniqueness, valid_to after
valid_from, approved versions of one document never applying on the same day, and that every
reference (users, tasks, relevant/forbidden refs, evidence ids, approved_by) resolves.  It also
checks dataset hygiene: every `relevant` version is approved, valid on `as_of` and readable by
the case's user, relevant and forbidden never overlap, and task cases name a task the user may
open.  Exit 0 when clean, 1 when any error is found.
"""

import datetime as dt
import json
import os
import sys
import unicodedata
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "schemas"))
MAX_INT = 2_147_483_647
ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
DOC_TYPES = {"sop", "contract", "order", "quote", "mail", "note"}
KCLASSES = {"fact", "history", "inference"}
DOC_STATUSES = {"draft", "pending_approval", "approved", "superseded", "revoked", "rejected"}
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
ID_MAX = {"tenant": 64, "user": 128, "document": 200, "task": 128, "customer": 128}
UNAPPROVED = {"draft", "pending_approval", "rejected"}

errors = []
notes = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


# ------------------------------------------------------------------ loading
class DuplicateKey(ValueError):
    pass


def _no_dupes(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise DuplicateKey(f"key {k!r} given twice in one object")
        obj[k] = v
    return obj


def load(path):
    with open(path, "rb") as handle:
        raw = handle.read()
    if raw.startswith(b"\xef\xbb\xbf"):
        err(path, "starts with a UTF-8 BOM")
        raw = raw[3:]
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        err(path, f"not valid UTF-8: {e}")
        return None
    try:
        return json.loads(text, object_pairs_hook=_no_dupes)
    except DuplicateKey as e:
        err(path, str(e))
    except json.JSONDecodeError as e:
        err(path, f"invalid JSON: {e}")
    return None


# ------------------------------------------------------------------ tiny JSON Schema validator
def is_date(v):
    try:
        return isinstance(v, str) and len(v) == 10 and dt.date.fromisoformat(v).isoformat() == v
    except ValueError:
        return False


def is_datetime(v):
    if not isinstance(v, str) or "T" not in v:
        return False
    try:
        dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_errors(inst, sch, root, path="$"):
    out = []
    if "$ref" in sch:
        ref = sch["$ref"]
        assert ref.startswith("#/"), ref
        node = root
        for part in ref[2:].split("/"):
            node = node[part]
        return schema_errors(inst, node, root, path)
    if "anyOf" in sch and all(schema_errors(inst, s, root, path) for s in sch["anyOf"]):
        out.append(f"{path}: matches none of anyOf")
    if "oneOf" in sch:
        disc = sch.get("discriminator")
        if disc and isinstance(inst, dict):
            tag = inst.get(disc["propertyName"])
            target = disc["mapping"].get(tag)
            if target is None:
                out.append(f"{path}.{disc['propertyName']}: unknown value {tag!r}")
            else:
                out += schema_errors(inst, {"$ref": target}, root, path)
        else:
            ok = [s for s in sch["oneOf"] if not schema_errors(inst, s, root, path)]
            if len(ok) != 1:
                out.append(f"{path}: matches {len(ok)} of oneOf")
    if "type" in sch:
        types = sch["type"] if isinstance(sch["type"], list) else [sch["type"]]
        if not any(TYPES[t](inst) for t in types):
            return [*out, f"{path}: expected {sch['type']}, got {type(inst).__name__}"]
    if "const" in sch and inst != sch["const"]:
        out.append(f"{path}: must be {sch['const']!r}")
    if "enum" in sch and inst not in sch["enum"]:
        out.append(f"{path}: {inst!r} not in {sch['enum']}")
    if isinstance(inst, str):
        if "minLength" in sch and len(inst) < sch["minLength"]:
            out.append(f"{path}: shorter than {sch['minLength']}")
        if "maxLength" in sch and len(inst) > sch["maxLength"]:
            out.append(f"{path}: longer than {sch['maxLength']}")
        fmt = sch.get("format")
        if fmt == "date" and not is_date(inst):
            out.append(f"{path}: not an ISO date")
        if fmt == "date-time" and not is_datetime(inst):
            out.append(f"{path}: not an ISO date-time")
    if TYPES["number"](inst):
        if "minimum" in sch and inst < sch["minimum"]:
            out.append(f"{path}: below {sch['minimum']}")
        if "maximum" in sch and inst > sch["maximum"]:
            out.append(f"{path}: above {sch['maximum']}")
    if isinstance(inst, list):
        if "minItems" in sch and len(inst) < sch["minItems"]:
            out.append(f"{path}: fewer than {sch['minItems']} items")
        if "items" in sch:
            for i, item in enumerate(inst):
                out += schema_errors(item, sch["items"], root, f"{path}[{i}]")
    if isinstance(inst, dict):
        for key in sch.get("required", []):
            if key not in inst:
                out.append(f"{path}: missing required {key!r}")
        props = sch.get("properties", {})
        for key, val in inst.items():
            if key in props:
                out += schema_errors(val, props[key], root, f"{path}.{key}")
            else:
                extra = sch.get("additionalProperties", True)
                if extra is False:
                    out.append(f"{path}: unexpected key {key!r}")
                elif isinstance(extra, dict):
                    out += schema_errors(val, extra, root, f"{path}.{key}")
    return out


def check_schema(inst, name, label):
    path = os.path.join(SCHEMA_DIR, name)
    if not os.path.exists(path):
        notes.append(f"schema {path} not found; JSON Schema validation of {label} skipped")
        return
    with open(path, encoding="utf-8") as handle:
        sch = json.load(handle)
    for e in schema_errors(inst, sch, sch):
        err(f"{label} (schema {name})", e)


# ------------------------------------------------------------------ grammar
def id_problem(value, kind):
    if not isinstance(value, str):
        return "not a string"
    if not 1 <= len(value) <= ID_MAX[kind]:
        return f"length must be 1..{ID_MAX[kind]}"
    if unicodedata.normalize("NFC", value) != value:
        return "not in Unicode NFC"
    if unicodedata.category(value[0])[0] not in "LN" or unicodedata.category(value[0]) in (
        "Nl",
        "No",
    ):
        return "must start with a letter or a digit"
    for ch in value:
        cat = unicodedata.category(ch)
        if ch in "-_.":
            continue
        if cat[0] in "LM" or cat == "Nd":
            continue
        return f"character {ch!r} (U+{ord(ch):04X}, {cat}) not allowed"
    return None


def check_id(where, value, kind):
    p = id_problem(value, kind)
    if p:
        err(where, f"{kind} id {value!r}: {p}")
    return p is None


def no_nul(where, obj, depth=0):
    if depth > 64:
        return
    if isinstance(obj, str):
        if "\x00" in obj:
            err(where, "contains NUL")
    elif isinstance(obj, dict):
        for k, v in obj.items():
            no_nul(where, k, depth + 1)
            no_nul(where, v, depth + 1)
    elif isinstance(obj, list):
        for v in obj:
            no_nul(where, v, depth + 1)


def nesting(obj):
    if isinstance(obj, dict):
        return 1 + max((nesting(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((nesting(v) for v in obj), default=0)
    return 0


# ------------------------------------------------------------------ corpus
def check_corpus(c, path):
    check_schema(c, "corpus-v1.schema.json", path)
    no_nul(path, c)
    if c.get("schema_version") != "corpus@1":
        err(path, "schema_version must be corpus@1")
    tenants, users, docs, tasks = {}, {}, {}, {}

    for i, t in enumerate(c.get("tenants", [])):
        w = f"tenants[{i}] ({t.get('tenant_id')})"
        if check_id(w + ".tenant_id", t.get("tenant_id"), "tenant"):
            if t["tenant_id"] in tenants:
                err(w, "tenant_id given twice")
            tenants[t["tenant_id"]] = t
        if not isinstance(t.get("name"), str) or not 1 <= len(t["name"]) <= 200:
            err(w + ".name", "must be 1..200 characters")

    for i, u in enumerate(c.get("users", [])):
        w = f"users[{i}] ({u.get('user_id')})"
        if check_id(w + ".user_id", u.get("user_id"), "user"):
            if u["user_id"] in users:
                err(w, "user_id given twice")
            users[u["user_id"]] = u
        if u.get("tenant_id") not in tenants:
            err(w + ".tenant_id", f"unknown tenant {u.get('tenant_id')!r}")
        if len(u.get("display_name", "")) > 200:
            err(w + ".display_name", "longer than 200")
        for r in u.get("roles", []):
            if r not in ROLES:
                err(w + ".roles", f"unknown role {r!r}")
        if len(set(u.get("roles", []))) != len(u.get("roles", [])):
            err(w + ".roles", "role given twice")
        for g in u.get("grants", []):
            if not isinstance(g, str) or not g.startswith("customer:"):
                err(w + ".grants", f"grant {g!r} is not customer:<id>")
            else:
                check_id(w + ".grants", g[len("customer:") :], "customer")

    by_doc = defaultdict(list)
    for i, d in enumerate(c.get("documents", [])):
        label = f"{d.get('document_id')}@{d.get('version')}"
        w = f"documents[{i}] ({label})"
        ok_id = check_id(w + ".document_id", d.get("document_id"), "document")
        v = d.get("version")
        if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_INT):
            err(w + ".version", "must be an integer 1..2147483647")
            continue
        if ok_id:
            key = (d["document_id"], v)
            if key in docs:
                err(w, "(document_id, version) not unique")
            docs[key] = d
            by_doc[d["document_id"]].append(d)
        if d.get("tenant_id") not in tenants:
            err(w + ".tenant_id", f"unknown tenant {d.get('tenant_id')!r}")
        if d.get("doc_type") not in DOC_TYPES:
            err(w + ".doc_type", f"{d.get('doc_type')!r}")
        if d.get("knowledge_class") not in KCLASSES:
            err(w + ".knowledge_class", f"{d.get('knowledge_class')!r}")
        st = d.get("status")
        if st not in DOC_STATUSES:
            err(w + ".status", f"{st!r}")
        vf, vt = d.get("valid_from"), d.get("valid_to")
        if not is_date(vf):
            err(w + ".valid_from", f"not an ISO date: {vf!r}")
        if vt is not None:
            if not is_date(vt):
                err(w + ".valid_to", f"not an ISO date: {vt!r}")
            elif is_date(vf) and vt <= vf:
                err(w + ".valid_to", "must be after valid_from")
        acl = d.get("acl")
        if not isinstance(acl, list) or not acl:
            err(w + ".acl", "must be a non-empty list")
            acl = []
        for e in acl:
            check_acl_entry(w + ".acl", e, d.get("tenant_id"), users)
        if len(set(acl)) != len(acl):
            err(w + ".acl", "entry given twice")
        if not isinstance(d.get("title"), str) or not 1 <= len(d["title"]) <= 500:
            err(w + ".title", "must be 1..500 characters")
        if not isinstance(d.get("body"), str) or not d["body"]:
            err(w + ".body", "must be non-empty")
        if len(d.get("language", "zh-Hant")) > 20:
            err(w + ".language", "longer than 20")
        cid = d.get("customer_id")
        if cid is not None:
            check_id(w + ".customer_id", cid, "customer")
        ab = d.get("approved_by")
        if st in UNAPPROVED and ab is not None:
            err(w + ".approved_by", f"must be null for a {st} version")
        if st in ("approved", "superseded", "revoked") and ab is None:
            err(w + ".approved_by", f"a {st} version names who approved it")
        if ab is not None:
            if ab not in users:
                err(w + ".approved_by", f"unknown user {ab!r}")
            elif users[ab]["tenant_id"] != d.get("tenant_id"):
                err(w + ".approved_by", f"{ab!r} is not of tenant {d.get('tenant_id')!r}")
        if d.get("knowledge_class") == "inference" and st in ("approved", "superseded"):
            err(w, "an inference is kept as a draft, never approved as knowledge (product.md §3)")
        if st == "superseded" and vt is None:
            err(w + ".valid_to", "a superseded version has its valid_to closed")

    # one document: one tenant, no two approved versions on the same day
    for doc_id, vers in by_doc.items():
        if len({d.get("tenant_id") for d in vers}) > 1:
            err(f"documents ({doc_id})", "versions belong to different tenants")
        appr = sorted(
            (d for d in vers if d.get("status") == "approved"), key=lambda d: d["version"]
        )
        for a_i, a in enumerate(appr):
            for b in appr[a_i + 1 :]:
                a_end = a.get("valid_to") or "9999-12-31"
                b_end = b.get("valid_to") or "9999-12-31"
                if a["valid_from"] < b_end and b["valid_from"] < a_end:
                    err(
                        f"documents ({doc_id})",
                        f"approved versions {a['version']} and {b['version']} "
                        "apply on the same day",
                    )

    for i, t in enumerate(c.get("tasks", [])):
        w = f"tasks[{i}] ({t.get('task_id')})"
        check_task(w, t, tenants, docs, by_doc)
        key = (t.get("tenant_id"), t.get("task_id"))
        if key in tasks:
            err(w, "task_id given twice in one tenant")
        tasks[key] = t
    return tenants, users, docs, by_doc, tasks


def check_acl_entry(where, e, tenant_id, users):
    if e == "tenant":
        return
    if not isinstance(e, str) or ":" not in e:
        err(where, f"unknown ACL entry {e!r}")
        return
    kind, _, rest = e.partition(":")
    if kind == "role":
        if rest not in ROLES:
            err(where, f"unknown role in {e!r}")
    elif kind == "user":
        if check_id(where, rest, "user"):
            if rest not in users:
                err(where, f"{e!r} names no user")
            elif users[rest]["tenant_id"] != tenant_id:
                err(where, f"{e!r} is a user of another tenant")
    elif kind == "customer":
        check_id(where, rest, "customer")
    else:
        err(where, f"unknown ACL entry {e!r}")


def parse_ref(ref):
    """'DOC' -> (DOC, None); 'DOC@N' -> (DOC, N); 'DOC@N:S-E' -> (DOC, N, S, E). None if bad."""
    if not isinstance(ref, str) or not ref:
        return None
    doc, at, rest = ref.partition("@")
    if not at:
        return (doc, None, None, None)
    ver, colon, span = rest.partition(":")
    if not ver.isdigit():
        return None
    if not colon:
        return (doc, int(ver), None, None)
    s, dash, e = span.partition("-")
    if not (dash and s.isdigit() and e.isdigit()):
        return None
    return (doc, int(ver), int(s), int(e))


def check_task(w, t, tenants, docs, by_doc):
    for k in t:
        if k not in TASK_KEYS:
            err(w, f"unexpected key {k!r} (task-state@1 has no other keys)")
    if t.get("schema_version", "task-state@1") != "task-state@1":
        err(w + ".schema_version", "must be task-state@1")
    tid = t.get("tenant_id")
    if tid not in tenants:
        err(w + ".tenant_id", f"unknown tenant {tid!r}")
    check_id(w + ".task_id", t.get("task_id"), "task")
    r = t.get("revision")
    if not (isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= MAX_INT):
        err(w + ".revision", "must be 1..2147483647")
    if t.get("status") not in TASK_STATUSES:
        err(w + ".status", f"{t.get('status')!r}")
    conf = t.get("confirmed", {})
    if not isinstance(conf, dict):
        err(w + ".confirmed", "must be an object")
        conf = {}
    if nesting(conf) > 16:
        err(w + ".confirmed", "nests deeper than 16 levels")
    if "due_date" in conf and not is_date(conf["due_date"]):
        notes.append(
            f"{w}.confirmed.due_date {conf['due_date']!r} is not an ISO date (shown as written)"
        )
    if "customer_id" in conf:
        check_id(w + ".confirmed.customer_id", conf["customer_id"], "customer")
    pend = t.get("pending", [])
    if not all(isinstance(p, str) and p for p in pend):
        err(w + ".pending", "items must be non-empty strings")
    both = set(pend) & set(conf)
    if both:
        err(w + ".pending", f"already confirmed: {sorted(both)}")
    if t.get("next_step") != "retrieve":
        notes.append(f"{w}.next_step is {t.get('next_step')!r}, not 'retrieve'")
    for ev in t.get("evidence_ids", []):
        p = parse_ref(ev)
        if p is None:
            err(w + ".evidence_ids", f"cannot parse {ev!r}")
            continue
        doc, ver, s, e = p
        vers = by_doc.get(doc, [])
        if ver is None:
            if not vers:
                err(w + ".evidence_ids", f"{ev!r} names no document")
        elif (doc, ver) not in docs:
            err(w + ".evidence_ids", f"{ev!r} names no document version")
            vers = []
        else:
            vers = [docs[(doc, ver)]]
            if s is not None and not (0 <= s < e <= len(vers[0]["body"])):
                err(w + ".evidence_ids", f"{ev!r} span outside the body")
        if vers and any(d["tenant_id"] != tid for d in vers):
            err(w + ".evidence_ids", f"{ev!r} is another tenant's document")
    for k in ("created_at", "updated_at"):
        if t.get(k) is not None and not is_datetime(t[k]):
            err(w + "." + k, "not an ISO date-time")
    if (
        is_datetime(t.get("created_at"))
        and is_datetime(t.get("updated_at"))
        and dt.datetime.fromisoformat(t["updated_at"]) < dt.datetime.fromisoformat(t["created_at"])
    ):
        err(w, "updated_at before created_at")


# ------------------------------------------------------------------ golden
def readable(user, d):
    if d["tenant_id"] != user["tenant_id"]:
        return False
    for e in d["acl"]:
        if e == "tenant":
            return True
        kind, _, rest = e.partition(":")
        if kind == "role" and rest in user.get("roles", []):
            return True
        if kind == "user" and rest == user["user_id"]:
            return True
        if kind == "customer" and e in user.get("grants", []):
            return True
    return False


def in_force(d, as_of):
    return (
        d["status"] == "approved"
        and d["valid_from"] <= as_of
        and (d.get("valid_to") is None or as_of < d["valid_to"])
    )


def task_visible(user, task):
    cid = (task.get("confirmed") or {}).get("customer_id")
    if cid is None:
        return True
    if {"knowledge_owner", "admin"} & set(user.get("roles", [])):
        return True
    return f"customer:{cid}" in user.get("grants", [])


def resolve(ref, docs, by_doc):
    p = parse_ref(ref)
    if p is None or p[2] is not None:
        return None
    doc, ver, _, _ = p
    if ver is None:
        return by_doc.get(doc) or None
    d = docs.get((doc, ver))
    return [d] if d else None


def check_golden(g, path, users, docs, by_doc, tasks):
    check_schema(g, "golden-v1.schema.json", path)
    no_nul(path, g)
    if g.get("schema_version") != "golden@1":
        err(path, "schema_version must be golden@1")
    if not g.get("dataset_id"):
        err(path, "dataset_id missing")
    as_of = g.get("as_of")
    if not is_date(as_of):
        err(path, "as_of must be an ISO date")
        as_of = dt.date.today().isoformat()
    seen = set()
    for i, c in enumerate(g.get("cases", [])):
        w = f"cases[{i}] ({c.get('case_id')})"
        cid = c.get("case_id")
        if not cid:
            err(w, "case_id missing")
        elif cid in seen:
            err(w, "case_id given twice")
        seen.add(cid)
        kind = c.get("kind")
        user = users.get(c.get("user_id"))
        if user is None:
            err(w + ".user_id", f"unknown user {c.get('user_id')!r}")
            continue
        k = c.get("k", 5)
        if not (isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= 100):
            err(w + ".k", "must be 1..100")
        status = c.get("expect_status", "ok" if kind == "retrieval" else None)
        task = None
        if kind == "retrieval":
            if not isinstance(c.get("query"), str) or not c["query"].strip():
                err(w + ".query", "empty")
            if status not in ("ok", "insufficient_evidence", "source_conflict"):
                err(w + ".expect_status", f"{status!r} is not a retrieval status")
        elif kind == "task":
            if status not in ("ready_for_review", "insufficient_evidence", "source_conflict"):
                err(w + ".expect_status", f"{status!r} is not a decision status")
            task = tasks.get((user["tenant_id"], c.get("task_id")))
            if task is None:
                err(w + ".task_id", f"no task {c.get('task_id')!r} in tenant {user['tenant_id']!r}")
            elif not task_visible(user, task):
                err(
                    w + ".task_id",
                    "the user has no grant for the task's customer (would be 'not found')",
                )
            sup = c.get("supplement")
            if sup is not None and not isinstance(sup, str):
                err(w + ".supplement", "must be a string or null")
            if task is not None:
                conf = set((task.get("confirmed") or {}).keys())
                for f in c.get("must_not_request", []):
                    if f not in conf:
                        err(w + ".must_not_request", f"{f!r} is not a confirmed field of the task")
        else:
            err(w + ".kind", f"{kind!r}")
            continue

        rel_versions, forb_versions = set(), set()
        for field, acc in (("relevant", rel_versions), ("forbidden", forb_versions)):
            for ref in c.get(field, []):
                got = resolve(ref, docs, by_doc)
                if got is None:
                    err(w + "." + field, f"{ref!r} names no document (version)")
                    continue
                acc.update((d["document_id"], d["version"]) for d in got)
                if field == "relevant":
                    for d in got:
                        lab = f"{ref!r}"
                        if d["knowledge_class"] == "inference":
                            err(w + ".relevant", f"{lab} is an inference")
                        if not in_force(d, as_of):
                            err(w + ".relevant", f"{lab} is not approved and valid on {as_of}")
                        if not readable(user, d):
                            err(w + ".relevant", f"{lab} is not readable by {user['user_id']}")
            if len(set(c.get(field, []))) != len(c.get(field, [])):
                err(w + "." + field, "ref given twice")
        both = rel_versions & forb_versions
        if both:
            err(w, f"relevant and forbidden overlap: {sorted(both)}")
        rel_docs = {d for d, _ in rel_versions}
        if status in ("ok", "ready_for_review") and not rel_docs:
            err(w + ".relevant", f"an expected {status} names at least one relevant document")
        if status == "source_conflict" and len(rel_docs) < 2:
            err(w + ".relevant", "a source_conflict names the disagreeing documents (two or more)")
        # Informational: a forbidden version the user could legitimately read and use.
        scope = (task.get("confirmed") or {}).get("customer_id") if task else None
        for key in sorted(forb_versions):
            d = docs[key]
            usable = (
                in_force(d, as_of) and readable(user, d) and d["knowledge_class"] != "inference"
            )
            if usable and not (scope and d.get("customer_id") not in (None, scope)):
                notes.append(
                    f"{w}: forbidden {key[0]}@{key[1]} is in force and readable by "
                    f"{user['user_id']} (deliberate?)"
                )
    return Counter(c.get("expect_status", "ok") for c in g.get("cases", []))


def main(argv):
    corpus_path = argv[1] if len(argv) > 1 else os.path.join(HERE, "propmgmt-corpus.json")
    golden_path = argv[2] if len(argv) > 2 else os.path.join(HERE, "propmgmt.golden.json")
    corpus = load(corpus_path)
    golden = load(golden_path)
    counts = Counter()
    if isinstance(corpus, dict):
        tenants, users, docs, by_doc, tasks = check_corpus(corpus, os.path.basename(corpus_path))
        for t in tasks.values():
            check_schema(t, "task-state-v1.schema.json", f"task {t.get('task_id')}")
        if isinstance(golden, dict):
            counts = check_golden(golden, os.path.basename(golden_path), users, docs, by_doc, tasks)
        print(
            f"tenants {len(tenants)}, users {len(users)}, document versions {len(docs)} "
            f"({len(by_doc)} documents), tasks {len(tasks)}"
        )
        print("statuses:", dict(Counter(d["status"] for d in docs.values())))
        print("knowledge classes:", dict(Counter(d["knowledge_class"] for d in docs.values())))
    elif corpus is not None:
        err(corpus_path, "top level must be an object")
    if counts:
        total = sum(counts.values())
        print(
            f"cases {total}:",
            ", ".join(f"{k} {v} ({100 * v / total:.0f}%)" for k, v in sorted(counts.items())),
        )
    for n in notes:
        print("note:", n)
    for e in errors:
        print("ERROR:", e)
    print("clean" if not errors else f"{len(errors)} error(s)")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

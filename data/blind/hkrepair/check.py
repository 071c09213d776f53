#!/usr/bin/env python3
"""Stdlib-only consistency checker for the blind-hkrepair@1 dataset.

    python3 check.py [CORPUS.json] [GOLDEN.json]

Exits 0 when clean, 1 when any problem is found (each printed on stderr).
Checks: both files parse (duplicate JSON keys are refused); required fields, types and enums of
corpus@1 / golden@1 / task-state@1 as described by the exported JSON Schemas and formats.md;
id grammar and length limits; unique ids; ACL and grant grammar; version lifecycle
(no two approved versions on the same day, superseded versions closed at their successor);
every reference in golden (users, tasks, DOC / DOC@N) resolves; relevant refs are usable by the
case's user on as_of and forbidden refs are not; must_not_request fields are confirmed fields of
the task; customer-scoped tasks are visible to the case user; and a table of facts (below) that
ties each expected status to concrete text in the bodies.
If the `jsonschema` package and the brief's schema files happen to be available, a full JSON
Schema validation is run as well (optional; skipped silently otherwise).
"""

import datetime as dt
import json
import os
import re
import sys
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "hkrepair-corpus.json")
GOLDEN = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "hkrepair.golden.json")
SCHEMA_DIR = os.environ.get("HKREPAIR_SCHEMA_DIR", os.path.join(HERE, "..", "..", "schemas"))

ERRORS = []


def err(msg):
    ERRORS.append(msg)


# ----------------------------------------------------------------------------- parsing
def _no_dupes(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError(f"duplicate key {k!r}")
        obj[k] = v
    return obj


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, object_pairs_hook=_no_dupes)
    except Exception as e:
        err(f"{path}: cannot parse: {e}")
        return None


# ----------------------------------------------------------------------------- grammar helpers
ROLES = {"sales", "engineer", "knowledge_owner", "admin"}
DOC_TYPES = {"sop", "contract", "order", "quote", "mail", "note"}
KCLASSES = {"fact", "history", "inference"}
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
RETRIEVAL_STATUS = {"ok", "insufficient_evidence", "source_conflict"}
TASK_CASE_STATUS = {"ready_for_review", "insufficient_evidence", "source_conflict"}
ID_LIMITS = {"tenant": 64, "user": 128, "document": 200, "task": 128, "customer": 128}
MAX_INT = 2147483647


def valid_id(value, kind):
    if not isinstance(value, str) or not value:
        return False
    if len(value) > ID_LIMITS[kind] or unicodedata.normalize("NFC", value) != value:
        return False
    first = unicodedata.category(value[0])
    if not (first.startswith("L") or first == "Nd"):
        return False
    for ch in value:
        cat = unicodedata.category(ch)
        if ch in "-_." or cat.startswith("L") or cat.startswith("M") or cat == "Nd":
            continue
        return False
    return True


def iso_date(value):
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def iso_datetime(value):
    if not isinstance(value, str):
        return False
    try:
        dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


def has_nul(obj):
    if isinstance(obj, str):
        return "\x00" in obj
    if isinstance(obj, dict):
        return any(has_nul(k) or has_nul(v) for k, v in obj.items())
    if isinstance(obj, list):
        return any(has_nul(v) for v in obj)
    return False


def depth(obj):
    if isinstance(obj, dict):
        return 1 + max((depth(v) for v in obj.values()), default=0)
    if isinstance(obj, list):
        return 1 + max((depth(v) for v in obj), default=0)
    return 0


def acl_entry_ok(entry):
    if entry == "tenant":
        return True
    if not isinstance(entry, str) or ":" not in entry:
        return False
    kind, _, rest = entry.partition(":")
    if kind == "role":
        return rest in ROLES
    if kind == "user":
        return valid_id(rest, "user")
    if kind == "customer":
        return valid_id(rest, "customer")
    return False


def grant_ok(grant):
    return (
        isinstance(grant, str)
        and grant.startswith("customer:")
        and valid_id(grant[len("customer:") :], "customer")
    )


# ----------------------------------------------------------------------------- corpus
def check_corpus(c):
    if not isinstance(c, dict):
        err("corpus: top level is not an object")
        return None
    if c.get("schema_version") != "corpus@1":
        err("corpus.schema_version must be 'corpus@1'")
    if has_nul(c):
        err("corpus: NUL character in some text")
    tenants, users, docs, tasks = {}, {}, {}, {}

    for i, t in enumerate(c.get("tenants", [])):
        where = "tenants[%d]" % i
        for f in ("tenant_id", "name"):
            if f not in t:
                err(f"{where}: missing {f}")
        if not valid_id(t.get("tenant_id"), "tenant"):
            err("{}.tenant_id: bad id {!r}".format(where, t.get("tenant_id")))
        if not isinstance(t.get("name"), str) or not 1 <= len(t.get("name", "")) <= 200:
            err(f"{where}.name: 1..200 characters required")
        if t.get("tenant_id") in tenants:
            err("{}: duplicate tenant_id {}".format(where, t.get("tenant_id")))
        tenants[t.get("tenant_id")] = t

    for i, u in enumerate(c.get("users", [])):
        where = "users[%d] (%s)" % (i, u.get("user_id"))
        for f in ("user_id", "tenant_id"):
            if f not in u:
                err(f"{where}: missing {f}")
        if not valid_id(u.get("user_id"), "user"):
            err(f"{where}.user_id: bad id")
        if u.get("user_id") in users:
            err(f"{where}: duplicate user_id")
        if u.get("tenant_id") not in tenants:
            err("{}.tenant_id: unknown tenant {!r}".format(where, u.get("tenant_id")))
        if len(u.get("display_name", "")) > 200:
            err(f"{where}.display_name: longer than 200")
        roles = u.get("roles", [])
        if not isinstance(roles, list) or any(r not in ROLES for r in roles):
            err(f"{where}.roles: only {sorted(ROLES)} allowed")
        grants = u.get("grants", [])
        if not isinstance(grants, list) or any(not grant_ok(g) for g in grants):
            err(f"{where}.grants: each grant must be customer:<id>")
        users[u.get("user_id")] = u

    for i, d in enumerate(c.get("documents", [])):
        label = "{}@{}".format(d.get("document_id"), d.get("version"))
        where = "documents[%d] (%s)" % (i, label)
        for f in (
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
            if f not in d:
                err(f"{where}: missing {f}")
        if not valid_id(d.get("document_id"), "document"):
            err(f"{where}.document_id: bad id")
        v = d.get("version")
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= MAX_INT:
            err("%s.version: integer 1..%d required" % (where, MAX_INT))
        key = (d.get("document_id"), v)
        if key in docs:
            err(f"{where}: duplicate (document_id, version)")
        if d.get("tenant_id") not in tenants:
            err(f"{where}.tenant_id: unknown tenant")
        if d.get("doc_type") not in DOC_TYPES:
            err("{}.doc_type: {!r} not in {}".format(where, d.get("doc_type"), sorted(DOC_TYPES)))
        if d.get("knowledge_class") not in KCLASSES:
            err(f"{where}.knowledge_class: bad value")
        if d.get("status") not in DOC_STATUS:
            err(f"{where}.status: bad value")
        vf = iso_date(d.get("valid_from"))
        if vf is None:
            err(f"{where}.valid_from: not an ISO date")
        vt_raw = d.get("valid_to")
        vt = None
        if vt_raw is not None:
            vt = iso_date(vt_raw)
            if vt is None:
                err(f"{where}.valid_to: not an ISO date")
            elif vf and vt <= vf:
                err(f"{where}.valid_to: must be after valid_from")
        acl = d.get("acl")
        if not isinstance(acl, list) or not acl:
            err(f"{where}.acl: non-empty list required")
        else:
            for e in acl:
                if not acl_entry_ok(e):
                    err(f"{where}.acl: unknown entry {e!r}")
                elif e.startswith("user:") and e[5:] not in users:
                    err(f"{where}.acl: user {e[5:]!r} does not exist")
        if not isinstance(d.get("title"), str) or not 1 <= len(d.get("title", "")) <= 500:
            err(f"{where}.title: 1..500 characters required")
        if not isinstance(d.get("body"), str) or not d.get("body"):
            err(f"{where}.body: non-empty text required")
        if len(d.get("language", "zh-Hant")) > 20:
            err(f"{where}.language: longer than 20")
        cust = d.get("customer_id")
        if cust is not None:
            if not valid_id(cust, "customer"):
                err(f"{where}.customer_id: bad id")
            elif isinstance(acl, list) and "tenant" in acl:
                err(f"{where}: customer-scoped document readable by the whole tenant")
        ab = d.get("approved_by")
        if d.get("status") in ("draft", "pending_approval", "rejected"):
            if ab is not None:
                err("{}.approved_by: must be null for status {}".format(where, d.get("status")))
        else:
            if ab is None:
                err("{}.approved_by: required for status {}".format(where, d.get("status")))
            elif ab not in users:
                err(f"{where}.approved_by: unknown user {ab!r}")
            elif users[ab]["tenant_id"] != d.get("tenant_id"):
                err(f"{where}.approved_by: approver {ab!r} belongs to another tenant")
            elif "knowledge_owner" not in users[ab].get("roles", []):
                err(f"{where}.approved_by: approver {ab!r} is not a knowledge_owner")
        if d.get("knowledge_class") == "inference" and d.get("status") == "approved":
            err(f"{where}: an inference must never be an approved version")
        docs[key] = dict(d, _vf=vf, _vt=vt)

    # lifecycle per document id
    by_id = {}
    for (did, ver), d in docs.items():
        by_id.setdefault(did, []).append(d)
    for did, versions in by_id.items():
        versions.sort(key=lambda d: d["version"])
        if len({d["tenant_id"] for d in versions}) != 1:
            err(f"document {did}: versions belong to different tenants")
        served = [d for d in versions if d["status"] in ("approved", "superseded")]
        for a in served:
            for b in served:
                if a is b or a["version"] >= b["version"]:
                    continue
                a_end = a["_vt"] or dt.date.max
                b_end = b["_vt"] or dt.date.max
                if a["_vf"] and b["_vf"] and a["_vf"] < b_end and b["_vf"] < a_end:
                    err(
                        "document %s: versions %d and %d are both in force on the same day"
                        % (did, a["version"], b["version"])
                    )
        for d in versions:
            if d["status"] == "superseded":
                later = [x for x in served if x["version"] > d["version"]]
                if not later:
                    err("%s@%d: superseded but no later served version" % (did, d["version"]))
                elif d["_vt"] != later[0]["_vf"]:
                    err(
                        "%s@%d: superseded valid_to should equal v%d valid_from"
                        % (did, d["version"], later[0]["version"])
                    )

    for i, t in enumerate(c.get("tasks", [])):
        where = "tasks[%d] (%s)" % (i, t.get("task_id"))
        extra = set(t) - TASK_KEYS
        if extra:
            err(f"{where}: keys not allowed in task-state@1: {sorted(extra)}")
        for f in ("tenant_id", "task_id", "revision", "status"):
            if f not in t:
                err(f"{where}: missing {f}")
        if t.get("schema_version", "task-state@1") != "task-state@1":
            err(f"{where}.schema_version must be task-state@1")
        if t.get("tenant_id") not in tenants:
            err(f"{where}.tenant_id: unknown tenant")
        if not valid_id(t.get("task_id"), "task"):
            err(f"{where}.task_id: bad id")
        r = t.get("revision")
        if not isinstance(r, int) or isinstance(r, bool) or not 1 <= r <= MAX_INT:
            err(f"{where}.revision: integer >= 1 required")
        if t.get("status") not in TASK_STATUS:
            err(f"{where}.status: bad value")
        conf = t.get("confirmed", {})
        if not isinstance(conf, dict):
            err(f"{where}.confirmed: object required")
        elif depth(conf) > 16:
            err(f"{where}.confirmed: nested deeper than 16 levels")
        else:
            if "due_date" in conf and iso_date(conf["due_date"]) is None:
                err(f"{where}.confirmed.due_date: not an ISO date")
            if "customer_id" in conf and not valid_id(conf["customer_id"], "customer"):
                err(f"{where}.confirmed.customer_id: bad id")
        if not isinstance(t.get("pending", []), list) or not all(
            isinstance(p, str) for p in t.get("pending", [])
        ):
            err(f"{where}.pending: list of strings required")
        for ev in t.get("evidence_ids", []):
            m = re.fullmatch(r"([^@:/#]+)(?:@(\d+)(?::(\d+)-(\d+))?)?", ev)
            if not m:
                err(f"{where}.evidence_ids: malformed {ev!r}")
                continue
            did, ver = m.group(1), m.group(2)
            cands = [
                d
                for (x, _), d in docs.items()
                if x == did and (ver is None or d["version"] == int(ver))
            ]
            if not cands:
                err(f"{where}.evidence_ids: {ev!r} does not resolve")
            elif any(d["tenant_id"] != t.get("tenant_id") for d in cands):
                err(f"{where}.evidence_ids: {ev!r} belongs to another tenant")
            elif m.group(3) is not None:
                s, e = int(m.group(3)), int(m.group(4))
                if not 0 <= s < e <= len(cands[0]["body"]):
                    err(f"{where}.evidence_ids: span of {ev!r} outside body")
        for f in ("created_at", "updated_at"):
            if t.get(f) is not None and not iso_datetime(t[f]):
                err(f"{where}.{f}: not an ISO date-time")
        key = (t.get("tenant_id"), t.get("task_id"))
        if key in tasks:
            err(f"{where}: duplicate task id in tenant")
        tasks[key] = t
    return {"tenants": tenants, "users": users, "docs": docs, "tasks": tasks}


# ----------------------------------------------------------------------------- access model
def readable(doc, user):
    if doc["tenant_id"] != user["tenant_id"]:
        return False
    for e in doc["acl"]:
        if e == "tenant":
            return True
        if e.startswith("role:") and e[5:] in user.get("roles", []):
            return True
        if e.startswith("user:") and e[5:] == user["user_id"]:
            return True
        if e.startswith("customer:") and e in user.get("grants", []):
            return True
    return False


def usable(doc, user, as_of):
    """approved, valid on as_of, not superseded, readable by the principal (product.md §3)."""
    return (
        doc["status"] == "approved"
        and doc["_vf"] <= as_of
        and (doc["_vt"] is None or as_of < doc["_vt"])
        and readable(doc, user)
    )


def resolve(ref, docs):
    m = re.fullmatch(r"([^@:/#]+)(?:@(\d+))?", ref)
    if not m:
        return None
    did, ver = m.group(1), m.group(2)
    found = [d for (x, v), d in docs.items() if x == did and (ver is None or v == int(ver))]
    return found or None


# ----------------------------------------------------------------------------- facts behind the statuses
# case_id -> list of (ref, text that must occur in that version's body, must the user be able to use it?)
FACTS = {
    "ok-inspect-fee-kowloon": [
        ("SOP-REPAIR-FEE@2", "九龍及新界（不包括離島）每次港幣 450 元", True)
    ],
    "ok-inspect-fee-hki-offset": [
        ("SOP-REPAIR-FEE@2", "香港島每次港幣 520 元", True),
        ("SOP-REPAIR-FEE@2", "已收取之檢查費可全數抵扣維修人工費", True),
    ],
    "ok-labour-rate": [("SOP-REPAIR-FEE@2", "首小時港幣 350 元，其後每半小時港幣 175 元", True)],
    "ok-anxinbao-price": [("SOP-WARRANTY@2", "收費為貨價 8%，最低收費港幣 280 元", True)],
    "ok-compressor-warranty": [("SOP-WARRANTY@2", "雪櫃壓縮機保養五年（只限零件", True)],
    "ok-split-install-pipe": [
        ("SOP-INSTALL@1", "包括 10 呎銅喉", True),
        ("SOP-INSTALL@1", "超出部分每呎港幣 120 元", True),
    ],
    "ok-gas-heater": [("SOP-INSTALL@1", "本公司不提供氣體（煤氣／石油氣）熱水爐安裝服務", True)],
    "ok-typhoon8": [
        ("SOP-WEATHER@1", "八號或以上熱帶氣旋警告信號", True),
        ("SOP-WEATHER@1", "信號除下後兩小時", True),
    ],
    "ok-free-delivery": [
        ("SOP-DELIVERY@2", "滿港幣 3,000 元免費送貨", True),
        ("SOP-DELIVERY@2", "收送貨費港幣 150 元", True),
    ],
    "ok-stairs-fridge": [
        ("SOP-DELIVERY@2", "雪櫃（300 公升以上）及洗衣機每層收港幣 80 元", True),
        ("MAN-KF520X-UG@1", "520 L gross", True),
    ],
    "ok-loan-unit": [
        ("SOP-LOAN@1", "按金港幣 1,000 元", True),
        ("SOP-WARRANTY@2", "超過 3 個工作天", True),
    ],
    "ok-special-order-deposit": [("SOP-ORDER@1", "訂金為貨價 50%，訂金不設退還", True)],
    "ok-installed-ac-return": [
        ("SOP-RETURN@1", "已安裝之冷氣機及熱水爐只提供維修，不設換機或退貨", True)
    ],
    "ok-en-split-clean-price": [
        ("PRICE-SVC@1", "分體機每套港幣 650 元", True),
        ("NOTICE-ACPROMO-2026@1", "分體機清洗每套港幣 528 元", False),
    ],
    "ok-kwh25e-circuit": [
        ("MAN-KWH25E@1", "dedicated 20 A circuit protected by a 30 mA", True),
        ("MAN-KWH25E@1", "Do not connect through a 13 A plug", True),
    ],
    "ok-kac18s-pipe": [
        ("MAN-KAC18S@1", "Maximum pipe length 20 m", True),
        ("MAN-KAC18S@1", "For every metre beyond 7.5 m add 20 g of R32", True),
    ],
    "ok-kf520x-f3": [("MAN-KF520X-SM@1", "F3 - Inverter compressor protection", True)],
    "ok-harbour-parts": [
        ("CON-HARBOUR@2", "85 折", True),
        ("CON-HARBOUR@2", "超過港幣 5,000 元", True),
        ("CON-HARBOUR@1", "9 折", False),
    ],
    "ok-harbour-cleaning": [
        ("CON-HARBOUR@2", "分別於 4 月及 10 月進行", True),
        ("CON-HARBOUR@1", "5 月及 11 月", False),
    ],
    "ok-bayview-loan": [("CON-BAYVIEW@1", "loan minibar refrigerator at no charge", True)],
    "ok-en-bayview-fee": [
        ("CON-BAYVIEW@1", "HK$9,800 per month", True),
        ("CON-BAYVIEW@1", "within 45 days", True),
        ("KSA-CON-BAYVIEW@1", "HK$7,200", False),
    ],
    "ok-ac-clean-test": [
        ("SOP-AC-CLEAN@1", "試機最少 15 分鐘", True),
        ("SOP-AC-CLEAN@1", "低於攝氏 16 度", True),
    ],
    "ok-en-wprs": [("SOP-INSTALL@1", "《產品環保責任（受管制電器）規例》", True)],
    "ok-ko-harbour-fee": [("CON-HARBOUR@2", "港幣 186,000 元，分四季繳付", True)],
    "ok-ksa-own-bulletin": [
        ("KSA-TB-2026-07@1", "TF-520-03", True),
        ("KSA-TB-2026-07@1", "30 June 2027", True),
    ],
    "ie-harbour-no-grant": [("CON-HARBOUR@2", "85 折", False)],
    "ie-fee-draft-october": [("SOP-REPAIR-FEE@3", "每次港幣 480 元", False)],
    "ie-tradein-rejected": [("NOTE-TRADEIN-PROPOSAL@1", "現金回贈港幣 500 元", False)],
    "ie-kf40m-gasket-chat": [
        ("CHAT-BAYVIEW-0815@1", "$380", True),
        ("KSA-RATES@1", "門封更換：每個港幣 260 元", False),
    ],
    "ie-heater-element-history": [
        ("NOTE-MEETING-0820@1", "1,150", True),
        ("KSA-RATES@1", "KWH-25E 發熱線更換：港幣 980 元", False),
    ],
    "ie-acpromo-expired": [("NOTICE-ACPROMO-2026@1", "528", False)],
    "ie-cny-2027": [("NOTICE-CNY-2026@1", "2026年2月16日至2月19日", False)],
    "ie-peng-chau-fee": [
        ("SOP-REPAIR-FEE@2", "（不包括離島）", True),
        ("KSA-RATES@1", "坪洲", False),
    ],
    "ie-ksa-bulletin": [("KSA-TB-2026-07@1", "2511A0001", False)],
    "ie-e2-sales-no-role": [("MAN-KF520X-SM@1", "E2 - Defrost heater circuit fault", False)],
    "ie-heater-reset-revoked": [("SOP-HEATER-RESET@1", "重設掣", False)],
    "ie-highrise-inference": [("INF-AC-HIGHRISE@1", "高空工作費港幣 200 元", False)],
    "ie-kdh20-model": [],
    "ie-skyline-hotel": [],
    "ie-ksa-reads-harbour": [("CON-HARBOUR@2", "186,000", False)],
    "sc-heater-install-fee": [
        ("SOP-INSTALL@1", "電熱水爐標準安裝：每部港幣 880 元", True),
        ("PRICE-SVC@1", "熱水爐標準安裝：每部港幣 980 元", True),
    ],
    "sc-anxinbao-deadline": [
        ("SOP-WARRANTY@2", "購買日起計 30 日內登記", True),
        ("FAQ-CS@1", "購買日起計 60 日內登記", True),
        ("SOP-WARRANTY@1", "14 日內登記", False),
    ],
    "sc-harbour-emergency": [
        ("CON-HARBOUR@2", "接報後 4 小時內到場", True),
        ("CON-HARBOUR-ANNEX@1", "緊急維修到場時間：接報後 6 小時內", True),
    ],
    "sc-kf520x-standing-time": [
        ("SOP-DELIVERY@2", "直立靜置最少 2 小時方可通電；卡特曼 KF-520X 型號亦同樣適用", True),
        ("MAN-KF520X-UG@1", "wait at least 4 hours before connecting", True),
    ],
    "sc-en-bayview-pm": [
        ("CON-BAYVIEW@1", "once every three (3) months", True),
        ("NOTE-BAYVIEW-PM@1", "每兩個月檢查及清潔一次", True),
    ],
    "sc-hotline-hours": [
        ("SOP-HOURS@1", "上午 9 時至下午 6 時", True),
        ("FAQ-CS@1", "上午 9 時至晚上 7 時", True),
    ],
    "task-heater-install-conflict": [
        ("SOP-INSTALL@1", "每部港幣 880 元", True),
        ("PRICE-SVC@1", "每部港幣 980 元", True),
        ("MAN-KWH25E@1", "dedicated 20 A circuit", True),
    ],
    "task-harbour-october-cleaning": [
        ("CON-HARBOUR@2", "4 月及 10 月", True),
        ("CON-HARBOUR@2", "85 折", True),
    ],
    "task-bayview-pm-conflict": [
        ("CON-BAYVIEW@1", "quarterly", True),
        ("NOTE-BAYVIEW-PM@1", "每兩個月", True),
    ],
    "task-kf380-compressor-warranty": [
        (
            "SOP-WARRANTY@2",
            "雪櫃壓縮機保養五年（只限零件，人工按《上門檢查及維修收費標準》收取）",
            True,
        ),
        ("SOP-REPAIR-FEE@2", "壓縮機之延長保養只包零件，檢查費及人工照收", True),
        ("SOP-REPAIR-FEE@2", "首小時港幣 350 元", True),
    ],
    "task-peng-chau-install": [
        ("SOP-INSTALL@1", "分體式冷氣機標準安裝：每套港幣 1,800 元", True),
        ("KSA-RATES@1", "坪洲", False),
    ],
    "task-kac12w-history-price": [("QUOTE-HARBOUR-2025@1", "每部連標準安裝港幣 3,280 元", True)],
}
# text that must NOT occur in any fact-class version the case user may use (keeps insufficient
# cases honest; history such as chats and minutes may mention the topic but never backs a claim)
ABSENT = {
    "ie-peng-chau-fee": ["坪洲"],
    "ie-kdh20-model": ["KDH-20", "E4"],
    "ie-skyline-hotel": ["天晴", "Skyline"],
    "ie-heater-reset-revoked": ["重設", "reset"],
    "ie-highrise-inference": ["高空費", "高空工作費"],
    "ie-tradein-rejected": ["以舊換新", "回贈"],
    "ie-ksa-bulletin": ["2511A", "TF-520-03", "field action"],
    "ie-e2-sales-no-role": ["E2"],
    "ie-cny-2027": ["農曆新年", "新年"],
    "ie-acpromo-expired": ["優惠"],
    "task-peng-chau-install": ["坪洲附加", "離島附加", "離島另加"],
}


# ----------------------------------------------------------------------------- golden
def check_golden(g, cx):
    if not isinstance(g, dict):
        err("golden: top level is not an object")
        return
    if g.get("schema_version") != "golden@1":
        err("golden.schema_version must be 'golden@1'")
    if not isinstance(g.get("dataset_id"), str) or not g.get("dataset_id"):
        err("golden.dataset_id required")
    as_of = iso_date(g.get("as_of"))
    if as_of is None:
        err("golden.as_of: ISO date required for this dataset")
        return
    if not isinstance(g.get("cases"), list):
        err("golden.cases: list required")
        return
    docs, users, tasks = cx["docs"], cx["users"], cx["tasks"]
    seen = set()
    for i, case in enumerate(g["cases"]):
        cid = case.get("case_id")
        where = "cases[%d] (%s)" % (i, cid)
        kind = case.get("kind")
        req = ["case_id", "user_id", "kind"] + (
            ["query"] if kind == "retrieval" else ["task_id", "expect_status"]
        )
        for f in req:
            if f not in case:
                err(f"{where}: missing {f}")
        if kind not in ("retrieval", "task"):
            err(f"{where}.kind: must be retrieval or task")
            continue
        if not isinstance(cid, str) or not cid:
            err(f"{where}.case_id: non-empty string required")
        if cid in seen:
            err(f"{where}: duplicate case_id")
        seen.add(cid)
        k = case.get("k", 5)
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 100:
            err(f"{where}.k: integer 1..100 required")
        status = case.get("expect_status", "ok" if kind == "retrieval" else None)
        allowed = RETRIEVAL_STATUS if kind == "retrieval" else TASK_CASE_STATUS
        if status not in allowed:
            err(f"{where}.expect_status: {status!r} not allowed for {kind}")
        user = users.get(case.get("user_id"))
        if user is None:
            err("{}.user_id: unknown user {!r}".format(where, case.get("user_id")))
            continue
        if kind == "retrieval" and (
            not isinstance(case.get("query"), str) or not case["query"].strip()
        ):
            err(f"{where}.query: non-empty text required")
        task = None
        if kind == "task":
            task = tasks.get((user["tenant_id"], case.get("task_id")))
            if task is None:
                err(
                    "{}.task_id: {!r} not found in the user's tenant".format(
                        where, case.get("task_id")
                    )
                )
            else:
                cust = task.get("confirmed", {}).get("customer_id")
                if (
                    cust
                    and "customer:" + cust not in user.get("grants", [])
                    and not ({"knowledge_owner", "admin"} & set(user.get("roles", [])))
                ):
                    err(
                        "{}: task {} belongs to {}, which the user may not see".format(
                            where, task["task_id"], cust
                        )
                    )
                conf = task.get("confirmed", {})
                for f in case.get("must_not_request", []):
                    if f not in conf:
                        err(
                            "{}.must_not_request: {!r} is not a confirmed field of {}".format(
                                where, f, task["task_id"]
                            )
                        )
            if case.get("supplement") is not None and not isinstance(case["supplement"], str):
                err(f"{where}.supplement: string or null")
        rel = case.get("relevant", [])
        forb = case.get("forbidden", [])
        for lst, name in ((rel, "relevant"), (forb, "forbidden")):
            if not isinstance(lst, list) or not all(isinstance(x, str) for x in lst):
                err(f"{where}.{name}: list of strings required")
        if set(rel) & set(forb):
            err(f"{where}: refs both relevant and forbidden: {sorted(set(rel) & set(forb))}")
        rel_docs = []
        for ref in rel:
            found = resolve(ref, docs)
            if not found:
                err(f"{where}.relevant: {ref!r} does not resolve")
                continue
            for d in found:
                if not usable(d, user, as_of):
                    err(
                        "%s.relevant: %s@%d is not usable by %s on %s"
                        % (where, d["document_id"], d["version"], user["user_id"], as_of)
                    )
                if d["knowledge_class"] != "fact":
                    err(
                        "%s.relevant: %s@%d is %s, not fact"
                        % (where, d["document_id"], d["version"], d["knowledge_class"])
                    )
                if task is not None:
                    cust = task.get("confirmed", {}).get("customer_id")
                    if d.get("customer_id") and d["customer_id"] != cust:
                        err(f"{where}.relevant: {ref} belongs to another customer than the task")
            rel_docs.extend(found)
        # relevant refs must overlap the forbidden doc-wide names? (a bare forbidden name covers all versions)
        for ref in forb:
            found = resolve(ref, docs)
            if not found:
                err(f"{where}.forbidden: {ref!r} does not resolve")
                continue
            for d in found:
                if usable(d, user, as_of):
                    err(
                        "%s.forbidden: %s@%d is usable by %s on %s, so it should not be forbidden"
                        % (where, d["document_id"], d["version"], user["user_id"], as_of)
                    )
                if any(r is d for r in rel_docs):
                    err(
                        "%s: %s@%d is both relevant and (via %r) forbidden"
                        % (where, d["document_id"], d["version"], ref)
                    )
        if status in ("ok", "ready_for_review") and not rel_docs:
            err(f"{where}: {status} case without relevant evidence")
        if status == "source_conflict" and len({d["document_id"] for d in rel_docs}) < 2:
            err(f"{where}: source_conflict needs at least two relevant documents")
        if cid not in FACTS:
            err(f"{where}: no FACTS entry in check.py")
        for ref, text, want_usable in FACTS.get(cid, []):
            found = resolve(ref, docs)
            if not found or len(found) != 1:
                err(f"{where} FACTS: {ref!r} must name exactly one version")
                continue
            d = found[0]
            if text not in d["body"]:
                err(f"{where} FACTS: {text!r} not found in {ref}")
            if usable(d, user, as_of) != want_usable:
                err(f"{where} FACTS: {ref} usable={usable(d, user, as_of)}, expected {want_usable}")
        for text in ABSENT.get(cid, []):
            for d in docs.values():
                if (
                    usable(d, user, as_of)
                    and d["knowledge_class"] == "fact"
                    and text.lower() in (d["body"] + d["title"]).lower()
                ):
                    err(
                        "%s ABSENT: %r occurs in usable %s@%d"
                        % (where, text, d["document_id"], d["version"])
                    )
    unused = set(FACTS) - seen
    if unused:
        err(f"check.py FACTS names unknown cases: {sorted(unused)}")


# ----------------------------------------------------------------------------- optional JSON Schema pass
def optional_schema_check(corpus, golden):
    try:
        import jsonschema  # type: ignore
    except ImportError:
        return "skipped (jsonschema not installed)"
    pairs = (("corpus-v1.schema.json", corpus), ("golden-v1.schema.json", golden))
    if not all(os.path.exists(os.path.join(SCHEMA_DIR, n)) for n, _ in pairs):
        return f"skipped (schemas not found in {SCHEMA_DIR})"
    for name, obj in pairs:
        with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as f:
            schema = json.load(f)
        cls = jsonschema.validators.validator_for(schema)
        validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
        for e in validator.iter_errors(obj):
            err("{}: {} at {}".format(name, e.message, "/".join(str(p) for p in e.absolute_path)))
    return f"done against {SCHEMA_DIR}"


def main():
    corpus = load(CORPUS)
    golden = load(GOLDEN)
    cx = check_corpus(corpus) if corpus is not None else None
    if cx is not None and golden is not None:
        check_golden(golden, cx)
    schema_note = (
        optional_schema_check(corpus, golden)
        if corpus is not None and golden is not None
        else "skipped"
    )
    if ERRORS:
        for e in ERRORS:
            print("ERROR:", e, file=sys.stderr)
        print("%d problem(s)" % len(ERRORS), file=sys.stderr)
        return 1
    cases = golden["cases"]
    counts = {}
    for c in cases:
        key = (c["kind"], c.get("expect_status", "ok"))
        counts[key] = counts.get(key, 0) + 1
    print(
        "clean: %d tenants, %d users, %d document versions, %d tasks, %d cases"
        % (len(cx["tenants"]), len(cx["users"]), len(cx["docs"]), len(cx["tasks"]), len(cases))
    )
    for (kind, st), n in sorted(counts.items()):
        print("  %-9s %-22s %d" % (kind, st, n))
    print("JSON Schema validation:", schema_note)
    return 0


if __name__ == "__main__":
    sys.exit(main())

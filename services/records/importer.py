"""corpus@1 import: validated, all-or-nothing per file, idempotent, errors naming the record."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from services.contracts import json_schema
from services.contracts.corpus import Corpus, CorpusDocument, CorpusTask, CorpusUser, DocStatus
from services.contracts.task_state import TaskState
from services.core.clock import Clock, today
from services.core.errors import InvalidInput
from services.core.policy import ROLES
from services.db.engine import Database
from services.db.models import AuditEntry, DocumentVersion, TaskRow, Tenant, User
from services.records import audit
from services.records.knowledge import DOC_TRANSITIONS, KnowledgeStore, NewVersion, content_hash
from services.records.tasks import TaskService

# Metadata that an import may change on an existing version; the body never changes.
_MUTABLE_DOC_FIELDS = (
    "status",
    "valid_from",
    "valid_to",
    "acl",
    "approved_by",
    "customer_id",
    "title",
    "language",
    "doc_type",
    "knowledge_class",
)


class ImportReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    created: dict[str, int]
    updated: dict[str, int]
    unchanged: dict[str, int]
    warnings: list[str]
    changed_documents: list[str]
    tenants: list[str]
    # True: this exact content had been imported before, so nothing was looked at or changed
    # (only `memdesk seed-demo` skips; `memdesk import` always re-applies the file).
    already_loaded: bool = False
    # The search index after the import: synced, deferred (unreachable: done by the next
    # import, `memdesk index sync` or worker start), nothing (no change owed) or None (no index).
    index_sync: str | None = None

    @property
    def changed(self) -> bool:
        return any(self.created.values()) or any(self.updated.values())


class CorpusImporter:
    def __init__(
        self,
        *,
        db: Database,
        clock: Clock,
        knowledge: KnowledgeStore,
        tasks: TaskService,
        max_body_chars: int,
        on_documents_changed: Callable[[list[str]], str] | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self._knowledge = knowledge
        self._tasks = tasks
        self._max_body = max_body_chars
        self._on_documents_changed = on_documents_changed

    def import_file(self, path: Path, *, actor: str = "system:import") -> ImportReport:
        corpus, data = read_corpus_file(path)
        return self.import_corpus(corpus, source=str(path), actor=actor, raw=data)

    def import_corpus(
        self, corpus: Corpus, *, source: str, actor: str, raw: dict[str, Any] | None = None
    ) -> ImportReport:
        warnings = _unknown_field_warnings(raw or {}) if raw else []
        problems = self._check_file(corpus, warnings)
        if problems:
            raise _refused(source, problems)
        fingerprint = corpus_fingerprint(corpus)
        created: Counter[str] = Counter()
        updated: Counter[str] = Counter()
        unchanged: Counter[str] = Counter()
        changed_docs: list[str] = []
        with self._db.write() as session:
            problems = self._check_against_store(session, corpus, warnings)
            if problems:
                raise _refused(source, problems)
            for tenant in corpus.tenants:
                outcome = self._upsert_tenant(session, tenant.tenant_id, tenant.name)
                _count(outcome, "tenants", created, updated, unchanged)
            for user in corpus.users:
                _count(self._upsert_user(session, user), "users", created, updated, unchanged)
            for doc in sorted(
                corpus.documents, key=lambda d: (d.tenant_id, d.document_id, d.version)
            ):
                outcome = self._upsert_document(session, doc, actor=actor)
                _count(outcome, "documents", created, updated, unchanged)
                if outcome != "unchanged":
                    changed_docs.append(f"{doc.tenant_id}/{doc.ref}")
            # The same hand-over as publishing: a newer approved version supersedes the older.
            for tenant_id, document_id in sorted(
                {(d.tenant_id, d.document_id) for d in corpus.documents}
            ):
                for version in self._knowledge.settle_approved(
                    session, tenant_id, document_id, actor=actor, today=today(self._clock)
                ):
                    ref = f"{tenant_id}/{document_id}@{version}"
                    if ref not in changed_docs:
                        changed_docs.append(ref)
                        _count("updated", "documents", created, updated, unchanged)
            for task in corpus.tasks:
                outcome = self._upsert_task(session, task, actor=actor)
                _count(outcome, "tasks", created, updated, unchanged)
            tenants = sorted(
                {t.tenant_id for t in corpus.tenants}
                | {d.tenant_id for d in corpus.documents}
                | {u.tenant_id for u in corpus.users}
                | {t.tenant_id for t in corpus.tasks}
            )
            # The fingerprint is recorded once even when nothing changed (a store imported
            # before fingerprints existed), so `already_imported` can answer from then on.
            if created or updated or not _recorded(session, fingerprint):
                for tenant_id in tenants:
                    audit.record(
                        session,
                        clock=self._clock,
                        tenant_id=tenant_id,
                        actor=actor,
                        action="corpus.imported",
                        subject_type="corpus",
                        subject_id=source[-300:],
                        detail={
                            "created": dict(created),
                            "updated": dict(updated),
                            "documents": [d for d in changed_docs if d.startswith(f"{tenant_id}/")],
                            "fingerprint": fingerprint,
                        },
                    )
        index_sync = None
        if self._on_documents_changed is not None:
            # Called on every import: a sync deferred earlier is owed even when nothing changed.
            index_sync = self._on_documents_changed(
                sorted({d.split("/", 1)[0] for d in changed_docs})
            )
        return ImportReport(
            source=source,
            created=dict(created),
            updated=dict(updated),
            unchanged=dict(unchanged),
            warnings=warnings,
            changed_documents=changed_docs,
            tenants=tenants,
            index_sync=index_sync,
        )

    def already_imported(self, corpus: Corpus) -> bool:
        """Whether a corpus with exactly this content was imported into this store before."""
        with self._db.read() as session:
            return _recorded(session, corpus_fingerprint(corpus))

    # ---- validation --------------------------------------------------------------------
    def _check_file(self, corpus: Corpus, warnings: list[str]) -> list[str]:
        problems: list[str] = []
        for section, keys in (
            ("tenants", [t.tenant_id for t in corpus.tenants]),
            ("users", [u.user_id for u in corpus.users]),
            ("documents", [f"{d.tenant_id}/{d.ref}" for d in corpus.documents]),
            ("tasks", [f"{t.tenant_id}/{t.task_id}" for t in corpus.tasks]),
        ):
            positions: dict[str, list[int]] = {}
            for i, key in enumerate(keys):
                positions.setdefault(key, []).append(i)
            for key, where in positions.items():
                if len(where) > 1:
                    places = ", ".join(f"{section}[{i}]" for i in where)
                    name = key.split("/")[-1]
                    problems.append(
                        f"{section}[{where[-1]}] ({name}): duplicate, {key} appears at {places}"
                    )
        for i, doc in enumerate(corpus.documents):
            if len(doc.body) > self._max_body:
                problems.append(
                    f"documents[{i}] ({doc.ref}).body: {len(doc.body):,} characters, "
                    f"more than the limit of {self._max_body:,}"
                )
        for i, user in enumerate(corpus.users):
            unknown = [role for role in user.roles if role not in ROLES]
            if unknown:
                warnings.append(f"users[{i}] ({user.user_id}): unknown roles {unknown}")
        return problems

    def _check_against_store(
        self, session: Session, corpus: Corpus, warnings: list[str]
    ) -> list[str]:
        known = {t.tenant_id for t in corpus.tenants}
        known |= set(session.scalars(select(Tenant.tenant_id)))
        problems = []
        sections: list[tuple[str, list[Any]]] = [
            ("users", corpus.users),
            ("documents", corpus.documents),
            ("tasks", corpus.tasks),
        ]
        for section, records in sections:
            for i, record in enumerate(records):
                if record.tenant_id not in known:
                    problems.append(
                        f"{section}[{i}] ({_label(record)}).tenant_id: '{record.tenant_id}' "
                        "is not a known tenant (add it to 'tenants')"
                    )
        for i, user in enumerate(corpus.users):
            existing = session.get(User, user.user_id)
            if existing is not None and existing.tenant_id != user.tenant_id:
                problems.append(
                    f"users[{i}] ({user.user_id}): already belongs to another tenant; a user "
                    "never moves between tenants"
                )
        highest = _highest_versions(session, corpus)
        for i, doc in enumerate(corpus.documents):
            row = session.get(DocumentVersion, (doc.tenant_id, doc.document_id, doc.version))
            if row is None:
                stored = highest.get((doc.tenant_id, doc.document_id))
                if stored is not None and doc.version < stored:
                    problems.append(
                        f"documents[{i}] ({doc.ref}).version: {doc.document_id} is already at "
                        f"version {stored}; a new version must be numbered above it"
                    )
                continue
            if row.content_hash != content_hash(doc.body):
                problems.append(
                    f"documents[{i}] ({doc.ref}).body: version {doc.version} already exists with "
                    "a different body; versions are immutable, import it as a new version"
                )
            change = _status_change(row.status, doc.status.value)
            if change == "conflict":
                problems.append(
                    f"documents[{i}] ({doc.ref}).status: the store has it as {row.status}, "
                    f"which cannot become {doc.status.value}"
                )
            elif change == "keep":
                warnings.append(
                    f"documents[{i}] ({doc.ref}).status: kept {row.status} from the store "
                    f"(the file says {doc.status.value}; a lifecycle never goes back)"
                )
        for i, task in enumerate(corpus.tasks):
            task_row = session.get(TaskRow, (task.tenant_id, task.task_id))
            if task_row is not None and _task_fields(task_row) != _task_fields(task):
                problems.append(
                    f"tasks[{i}] ({task.task_id}): already exists at revision "
                    f"{task_row.revision} with different content; task state only changes "
                    "through the task service"
                )
        return problems

    # ---- upserts -----------------------------------------------------------------------
    def _upsert_tenant(self, session: Session, tenant_id: str, name: str) -> str:
        row = session.get(Tenant, tenant_id)
        if row is None:
            session.add(Tenant(tenant_id=tenant_id, name=name, created_at=self._clock.now()))
            session.flush()
            return "created"
        if row.name == name:
            return "unchanged"
        row.name = name
        return "updated"

    def _upsert_user(self, session: Session, user: CorpusUser) -> str:
        row = session.get(User, user.user_id)
        if row is None:
            session.add(
                User(
                    user_id=user.user_id,
                    tenant_id=user.tenant_id,
                    display_name=user.display_name,
                    roles=list(user.roles),
                    grants=list(user.grants),
                    created_at=self._clock.now(),
                )
            )
            return "created"
        wanted = (user.display_name, list(user.roles), list(user.grants))
        if (row.display_name, list(row.roles), list(row.grants)) == wanted:
            return "unchanged"
        row.display_name, row.roles, row.grants = (
            user.display_name,
            list(user.roles),
            list(user.grants),
        )
        return "updated"

    def _upsert_document(self, session: Session, doc: CorpusDocument, *, actor: str) -> str:
        row = session.get(DocumentVersion, (doc.tenant_id, doc.document_id, doc.version))
        if row is None:
            self._knowledge.add_version(
                session,
                NewVersion(
                    tenant_id=doc.tenant_id,
                    document_id=doc.document_id,
                    version=doc.version,
                    doc_type=doc.doc_type.value,
                    knowledge_class=doc.knowledge_class.value,
                    status=doc.status.value,
                    valid_from=doc.valid_from,
                    valid_to=doc.valid_to,
                    acl=list(doc.acl),
                    language=doc.language,
                    title=doc.title,
                    body=doc.body,
                    customer_id=doc.customer_id,
                    approved_by=doc.approved_by,
                ),
                actor=actor,
            )
            return "created"
        wanted = {f: _plain(getattr(doc, f)) for f in _MUTABLE_DOC_FIELDS}
        have = {f: _plain(getattr(row, f)) for f in _MUTABLE_DOC_FIELDS}
        if _status_change(row.status, doc.status.value) != "advance":
            wanted["status"] = have["status"]  # the store's lifecycle is ahead (or the same)
        if wanted == have:
            return "unchanged"
        if wanted["status"] != have["status"]:
            self._knowledge.transition(
                session, row, target=doc.status, actor=actor, reason="corpus import"
            )
        for field, value in wanted.items():
            if field == "status" or value == have[field]:
                continue
            if field == "acl":
                self._knowledge.set_acl(session, row, value)
            else:
                setattr(row, field, value)
        audit.record(
            session,
            clock=self._clock,
            tenant_id=doc.tenant_id,
            actor=actor,
            action="document.reimported",
            subject_type="document",
            subject_id=doc.ref,
            detail={"changed": sorted(f for f in wanted if wanted[f] != have[f])},
        )
        return "updated"

    def _upsert_task(self, session: Session, task: CorpusTask, *, actor: str) -> str:
        if session.get(TaskRow, (task.tenant_id, task.task_id)) is not None:
            return "unchanged"  # identical content was checked in _check_against_store
        state = TaskState.model_validate(task.model_dump())
        self._tasks.insert_row(session, tenant_id=task.tenant_id, actor=actor, state=state)
        return "created"


# ---- parsing helpers (shared with `memdesk eval`) ----------------------------------------
def read_corpus_file(path: Path) -> tuple[Corpus, dict[str, Any]]:
    """A corpus@1 file validated (but not imported) and its raw data, for unknown-field warnings."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read file ({exc.strerror})") from exc
    data = parse_json_bytes(raw, source=str(path))
    return validate_corpus(data, source=str(path)), data


def corpus_fingerprint(corpus: Corpus) -> str:
    """The corpus's content, independent of the file's formatting and key order."""
    canonical = json.dumps(
        corpus.model_dump(mode="json"), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _highest_versions(session: Session, corpus: Corpus) -> dict[tuple[str, str], int]:
    keys = {(d.tenant_id, d.document_id) for d in corpus.documents}
    found: dict[tuple[str, str], int] = {}
    for tenant_id in sorted({tenant for tenant, _ in keys}):
        documents = sorted(document for tenant, document in keys if tenant == tenant_id)
        for batch_start in range(0, len(documents), 500):
            rows = session.execute(
                select(DocumentVersion.document_id, func.max(DocumentVersion.version))
                .where(
                    DocumentVersion.tenant_id == tenant_id,
                    DocumentVersion.document_id.in_(documents[batch_start : batch_start + 500]),
                )
                .group_by(DocumentVersion.document_id)
            )
            found.update({(tenant_id, document): int(top) for document, top in rows})
    return found


def _recorded(session: Session, fingerprint: str) -> bool:
    # Few rows: one per tenant per import that changed something.
    details = session.scalars(
        select(AuditEntry.detail).where(AuditEntry.action == "corpus.imported")
    )
    return any(detail.get("fingerprint") == fingerprint for detail in details)


def parse_json_bytes(raw: bytes, *, source: str) -> dict[str, Any]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InvalidInput(
            f"{source}: not valid UTF-8 at line {line}, column {column} (byte offset "
            f"{exc.start}: {raw[exc.start : exc.start + 4]!r})"
        ) from exc
    try:
        data = json.loads(text, object_pairs_hook=_KeyedObject.from_pairs)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except RecursionError as exc:
        raise InvalidInput(f"{source}: JSON nested too deeply to read") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: the top level must be a JSON object")
    duplicate = _first_duplicate(data, [])
    if duplicate is not None:
        loc, key = duplicate
        raise InvalidInput(
            f"{source}: {_path_label(data, [*loc, key])}: the key {key!r} appears more than once "
            "in one object (which value counts would be a guess)"
        )
    return data


class _KeyedObject(dict[str, Any]):
    """A JSON object that remembers keys it was given more than once."""

    duplicates: tuple[str, ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> _KeyedObject:
        made = cls(pairs)
        if len(made) != len(pairs):
            seen: set[str] = set()
            repeated = []
            for key, _value in pairs:
                if key in seen:
                    repeated.append(key)
                seen.add(key)
            made.duplicates = tuple(repeated)
        return made


def _first_duplicate(value: Any, loc: list[Any]) -> tuple[list[Any], str] | None:
    stack: list[tuple[Any, list[Any]]] = [(value, loc)]
    while stack:
        item, where = stack.pop(0)
        if isinstance(item, _KeyedObject) and item.duplicates:
            return where, item.duplicates[0]
        if isinstance(item, dict):
            stack += [(v, [*where, k]) for k, v in item.items()]
        elif isinstance(item, list):
            stack += [(v, [*where, i]) for i, v in enumerate(item)]
    return None


def validate_corpus(data: dict[str, Any], *, source: str) -> Corpus:
    """Validate against the pydantic model and the exported JSON Schema; one problem per field.

    Both checks see the same contract, so most mistakes trip both: the pydantic message (which
    carries our own wording) is kept, and a JSON Schema error is added only for a field nothing
    else complained about (e.g. "2" where an integer is required, which pydantic would coerce).
    """
    version = data.get("schema_version")
    if version != "corpus@1":
        raise InvalidInput(f"{source}: schema_version must be 'corpus@1', got {version!r}")
    found: dict[tuple[Any, ...], str] = {}
    corpus: Corpus | None = None
    try:
        corpus = Corpus.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            found.setdefault(tuple(err["loc"]), _pydantic_message(err))
    for error in jsonschema.Draft202012Validator(json_schema("corpus@1")).iter_errors(data):
        loc = tuple(error.absolute_path)
        missing = _REQUIRED.match(error.message) if error.validator == "required" else None
        if missing:
            loc += (missing.group(1),)
        if not any(_overlaps(loc, known) for known in found):
            found[loc] = "required field is missing" if missing else error.message
    if found or corpus is None:
        problems = [f"{_path_label(data, list(loc))}: {msg}" for loc, msg in found.items()]
        raise _refused(source, problems)
    return corpus


def _refused(source: str, problems: list[str]) -> InvalidInput:
    summary = problems[0] if len(problems) == 1 else f"{len(problems)} problems"
    return InvalidInput(f"{source}: {summary}", problems=problems)


_REQUIRED = re.compile(r"^'(.+)' is a required property$")


def _pydantic_message(err: Any) -> str:
    if err["type"] == "missing":
        return "required field is missing"
    message = str(err["msg"])
    return message.removeprefix("Value error, ")


def _overlaps(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """The same field, or one inside the other (one record gets one message per field)."""
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def _path_label(data: dict[str, Any], loc: list[Any]) -> str:
    """`documents[3] (SOP-X@2).acl` — the section, index, the record's own id and the field."""
    if len(loc) >= 2 and isinstance(loc[0], str) and isinstance(loc[1], int):
        section, index = loc[0], loc[1]
        records = data.get(section)
        record = records[index] if isinstance(records, list) and index < len(records) else None
        label = f"{section}[{index}]"
        if isinstance(record, dict):
            label += f" ({_label(record)})"
        rest = ".".join(str(part) for part in loc[2:])
        return f"{label}.{rest}" if rest else label
    return ".".join(str(part) for part in loc) or "(top level)"


def _label(record: Any) -> str:
    fields: dict[str, Any] = record if isinstance(record, dict) else record.__dict__
    if fields.get("document_id") is not None:
        return f"{fields['document_id']}@{fields.get('version')}"
    for key in ("task_id", "user_id", "tenant_id"):
        if fields.get(key) is not None:
            return str(fields[key])
    return "?"


def _unknown_field_warnings(data: dict[str, Any]) -> list[str]:
    known = {
        "tenants": set(json_schema_fields("CorpusTenant")),
        "users": set(json_schema_fields("CorpusUser")),
        "documents": set(json_schema_fields("CorpusDocument")),
        "tasks": set(json_schema_fields("CorpusTask")),
    }
    warnings = []
    for section, fields in known.items():
        for i, record in enumerate(data.get(section) or []):
            if isinstance(record, dict):
                extra = sorted(set(record) - fields)
                if extra:
                    warnings.append(f"{section}[{i}] ({_label(record)}): ignored fields {extra}")
    return warnings


def json_schema_fields(model_name: str) -> list[str]:
    from services.contracts import corpus as corpus_module

    model: type[BaseModel] = getattr(corpus_module, model_name)
    return list(model.model_fields)


def _plain(value: Any) -> Any:
    if hasattr(value, "value"):
        return value.value
    if isinstance(value, list):
        return list(value)
    return value


def _status_change(stored: str, wanted: str) -> str:
    """same | advance (a legal transition) | keep (the store is already further along) |
    conflict. A re-import never undoes a revocation or a supersession made in the console."""
    if stored == wanted:
        return "same"
    if DocStatus(wanted) in DOC_TRANSITIONS[DocStatus(stored)]:
        return "advance"
    reachable, frontier = set(), [DocStatus(wanted)]
    while frontier:
        for nxt in DOC_TRANSITIONS[frontier.pop()]:
            if nxt not in reachable:
                reachable.add(nxt)
                frontier.append(nxt)
    return "keep" if DocStatus(stored) in reachable else "conflict"


def _task_fields(task: Any) -> tuple[Any, ...]:
    status = task.status.value if hasattr(task.status, "value") else task.status
    return (
        task.revision,
        status,
        dict(task.confirmed),
        list(task.pending),
        task.next_step,
        list(task.evidence_ids),
    )


def _count(
    outcome: str, kind: str, created: Counter[str], updated: Counter[str], unchanged: Counter[str]
) -> None:
    {"created": created, "updated": updated, "unchanged": unchanged}[outcome][kind] += 1

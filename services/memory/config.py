"""A tenant's Memory Bank configuration: customization configs per scope-key set, and policy.

A customization config (docs/memory-bank.md §7) holds topics, few-shot examples, perspective and
consolidation settings, keyed by an exact set of scope keys: the `user_id` config applies only
to requests whose scope is exactly {user_id}. The default config (no keys) applies to every
other request. Only admins change configs, and every change is audited.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from services.core.clock import Clock
from services.core.errors import InvalidInput, NotFound
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models_memory import (
    MemoryCustomizationRow,
    MemoryExampleRow,
    MemoryPolicyRow,
    MemoryTopicRow,
)
from services.memory.topics import MANAGED_LABELS, MANAGED_TOPICS
from services.memory.types import (
    ConversationEvent,
    CustomizationConfig,
    ExampleMemory,
    FewShotExample,
    MemoryPolicy,
    Topic,
    config_key,
)
from services.records import audit


class ConfigDefaults(BaseModel):
    """What a config nobody saved uses (settings: MEMDESK_MEMORY_THIRD_PERSON and
    MEMDESK_MEMORY_REVISIONS_PER_CANDIDATE_COUNT)."""

    model_config = ConfigDict(frozen=True)

    policy: MemoryPolicy = MemoryPolicy()
    enable_third_person_memories: bool = False
    revisions_per_candidate_count: int = 1


def _require_admin(principal: Principal) -> None:
    require(
        principal,
        Permission.CONFIGURE_MEMORY,
        "only an admin may change the tenant's memory configs and policy",
    )


class MemoryConfig:
    def __init__(self, *, db: Database, clock: Clock, defaults: ConfigDefaults) -> None:
        self._db = db
        self._clock = clock
        self._defaults = defaults

    # ---- customization configs ------------------------------------------------------------
    def configs(self, principal: Principal) -> list[CustomizationConfig]:
        """The default config first, then every keyed config of the tenant."""
        with self._db.read() as session:
            keys = session.scalars(
                select(MemoryCustomizationRow.scope_keys)
                .where(
                    MemoryCustomizationRow.tenant_id == principal.tenant_id,
                    MemoryCustomizationRow.scope_keys != "",
                )
                .order_by(MemoryCustomizationRow.scope_keys)
            ).all()
            return [
                load_config(session, principal.tenant_id, key, self._defaults)
                for key in ["", *keys]
            ]

    def customization(
        self, principal: Principal, scope_keys: tuple[str, ...] = ()
    ) -> CustomizationConfig:
        key = config_key(scope_keys)
        with self._db.read() as session:
            _require_config(session, principal.tenant_id, key)
            return load_config(session, principal.tenant_id, key, self._defaults)

    def for_scope(self, principal: Principal, scope: Mapping[str, str]) -> CustomizationConfig:
        """The config a generation request in `scope` uses (exact key-set match, else default)."""
        with self._db.read() as session:
            return config_for_scope(session, principal.tenant_id, scope, self._defaults)

    def save_customization(
        self,
        principal: Principal,
        *,
        scope_keys: tuple[str, ...] = (),
        enable_third_person_memories: bool,
        revisions_per_candidate_count: int,
        disable_memory_revisions: bool,
    ) -> CustomizationConfig:
        """Create a keyed config (its topics start as the managed ones, all on) or change the
        settings of an existing config (the default one included)."""
        _require_admin(principal)
        key = config_key(scope_keys)
        if not 1 <= revisions_per_candidate_count <= 50:
            raise InvalidInput("revisions_per_candidate_count must be between 1 and 50")
        with self._db.write() as session:
            row = session.get(MemoryCustomizationRow, (principal.tenant_id, key))
            before = None if row is None else _settings(row)
            if row is None:
                row = MemoryCustomizationRow(tenant_id=principal.tenant_id, scope_keys=key)
                session.add(row)
            row.enable_third_person_memories = enable_third_person_memories
            row.revisions_per_candidate_count = revisions_per_candidate_count
            row.disable_memory_revisions = disable_memory_revisions
            row.updated_by = principal.user_id
            row.updated_at = self._clock.now()
            self._audit(
                session,
                principal,
                "memory_config.created" if before is None and key else "memory_config.set",
                key or "default",
                {"before": before, "after": _settings(row)},
            )
            session.flush()
            return load_config(session, principal.tenant_id, key, self._defaults)

    def remove_customization(self, principal: Principal, scope_keys: tuple[str, ...]) -> None:
        """Remove a keyed config with its topics and examples; its requests fall back to the
        default config. The default config itself cannot be removed."""
        _require_admin(principal)
        key = config_key(scope_keys)
        if not key:
            raise InvalidInput("the default config cannot be removed")
        tenant = principal.tenant_id
        with self._db.write() as session:
            row = session.get(MemoryCustomizationRow, (tenant, key))
            if row is None:
                raise NotFound("memory config", key)
            session.execute(
                delete(MemoryTopicRow).where(
                    MemoryTopicRow.tenant_id == tenant, MemoryTopicRow.scope_keys == key
                )
            )
            session.execute(
                delete(MemoryExampleRow).where(
                    MemoryExampleRow.tenant_id == tenant, MemoryExampleRow.scope_keys == key
                )
            )
            self._audit(session, principal, "memory_config.removed", key, _settings(row))
            session.delete(row)

    # ---- topics ---------------------------------------------------------------------------
    def topics(self, principal: Principal, scope_keys: tuple[str, ...] = ()) -> list[Topic]:
        return list(self.customization(principal, scope_keys).topics)

    def set_topic(
        self,
        principal: Principal,
        *,
        label: str,
        description: str | None = None,
        keywords: list[str] | None = None,
        enabled: bool = True,
        scope_keys: tuple[str, ...] = (),
    ) -> Topic:
        """Add or change a custom topic, or switch a managed one on or off, in one config."""
        _require_admin(principal)
        key = config_key(scope_keys)
        topic = _topic(label, description, keywords, enabled)
        with self._db.write() as session:
            _require_config(session, principal.tenant_id, key)
            row = session.get(MemoryTopicRow, (principal.tenant_id, key, label))
            if row is None:
                row = MemoryTopicRow(tenant_id=principal.tenant_id, scope_keys=key, label=label)
                session.add(row)
            row.managed = topic.managed
            row.description = topic.description
            row.keywords = list(topic.keywords)
            row.enabled = enabled
            row.updated_by = principal.user_id
            row.updated_at = self._clock.now()
            self._audit(
                session,
                principal,
                "memory_topic.set",
                f"{key or 'default'}:{label}",
                topic.model_dump(),
            )
        return next(t for t in self.topics(principal, scope_keys) if t.label == label)

    def remove_topic(
        self, principal: Principal, label: str, scope_keys: tuple[str, ...] = ()
    ) -> None:
        _require_admin(principal)
        if label in MANAGED_LABELS:
            raise InvalidInput(f"{label!r} is a managed topic: disable it instead")
        key = config_key(scope_keys)
        with self._db.write() as session:
            row = session.get(MemoryTopicRow, (principal.tenant_id, key, label))
            if row is None:
                raise NotFound("memory topic", label)
            session.delete(row)
            self._audit(
                session, principal, "memory_topic.removed", f"{key or 'default'}:{label}", {}
            )

    # ---- few-shot examples ----------------------------------------------------------------
    def examples(
        self, principal: Principal, scope_keys: tuple[str, ...] = ()
    ) -> list[FewShotExample]:
        return list(self.customization(principal, scope_keys).examples)

    def add_example(
        self,
        principal: Principal,
        *,
        events: list[ConversationEvent],
        memories: list[ExampleMemory],
        scope_keys: tuple[str, ...] = (),
    ) -> FewShotExample:
        _require_admin(principal)
        key = config_key(scope_keys)
        labels = {t.label for t in self.topics(principal, scope_keys)}
        unknown = sorted({m.topic for m in memories} - labels)
        if unknown:
            raise InvalidInput(f"example names unknown topic(s): {', '.join(unknown)}")
        example = FewShotExample(events=tuple(events), memories=tuple(memories))
        with self._db.write() as session:
            row = MemoryExampleRow(
                tenant_id=principal.tenant_id,
                scope_keys=key,
                events=[e.model_dump() for e in example.events],
                memories=[m.model_dump() for m in example.memories],
                created_by=principal.user_id,
                created_at=self._clock.now(),
            )
            session.add(row)
            session.flush()
            self._audit(
                session,
                principal,
                "memory_example.added",
                str(row.id),
                {"config": key or "default", "memories": len(example.memories)},
            )
            return example.model_copy(update={"id": row.id})

    # ---- policy ---------------------------------------------------------------------------
    def policy(self, principal: Principal) -> MemoryPolicy:
        with self._db.read() as session:
            return load_policy(session, principal.tenant_id, self._defaults.policy)

    def set_policy(self, principal: Principal, policy: MemoryPolicy) -> MemoryPolicy:
        _require_admin(principal)
        with self._db.write() as session:
            row = session.get(MemoryPolicyRow, principal.tenant_id)
            if row is None:
                row = MemoryPolicyRow(tenant_id=principal.tenant_id)
                session.add(row)
            for name, value in policy.model_dump().items():
                setattr(row, name, value)
            row.updated_by = principal.user_id
            row.updated_at = self._clock.now()
            self._audit(
                session, principal, "memory_policy.set", principal.tenant_id, policy.model_dump()
            )
        return policy

    def _audit(
        self,
        session: Session,
        principal: Principal,
        action: str,
        subject: str,
        detail: dict[str, object],
    ) -> None:
        audit.record(
            session,
            clock=self._clock,
            tenant_id=principal.tenant_id,
            actor=principal.user_id,
            action=action,
            subject_type="memory_config",
            subject_id=subject,
            detail=detail,
        )


def _topic(label: str, description: str | None, keywords: list[str] | None, enabled: bool) -> Topic:
    managed = label in MANAGED_LABELS
    if not managed and not (description or "").strip():
        raise InvalidInput(f"custom topic {label!r} needs a description")
    if managed and (description or keywords):
        raise InvalidInput(f"{label!r} is a managed topic: only enabled can be changed")
    try:
        return Topic(
            label=label,
            description=(description or "").strip(),
            managed=managed,
            enabled=enabled,
            keywords=tuple(k.strip() for k in keywords or [] if k.strip()),
        )
    except ValidationError as exc:
        raise InvalidInput(
            f"topic {label!r}: a label is 2-80 lowercase letters, digits or '_' "
            f"starting with a letter ({exc.errors()[0]['msg']})"
        ) from exc


def _settings(row: MemoryCustomizationRow) -> dict[str, object]:
    return {
        "enable_third_person_memories": row.enable_third_person_memories,
        "revisions_per_candidate_count": row.revisions_per_candidate_count,
        "disable_memory_revisions": row.disable_memory_revisions,
    }


def _require_config(session: Session, tenant_id: str, key: str) -> None:
    """The default config always exists; a keyed one only once an admin created it."""
    if key and session.get(MemoryCustomizationRow, (tenant_id, key)) is None:
        raise NotFound("memory config", key)


def config_for_scope(
    session: Session,
    tenant_id: str,
    scope: Mapping[str, str],
    defaults: ConfigDefaults,
    *,
    loaded: dict[str, CustomizationConfig] | None = None,
) -> CustomizationConfig:
    """The keyed config whose scope keys equal the scope's exactly, else the default.
    `loaded` keeps the configs read in this session by key (several scopes of one run
    usually share the default one)."""
    key = config_key(list(scope))
    unknown = key and (loaded is None or key not in loaded)
    if unknown and session.get(MemoryCustomizationRow, (tenant_id, key)) is None:
        key = ""  # no keyed config for exactly these keys: the default
    if loaded is None:
        return load_config(session, tenant_id, key, defaults)
    if key not in loaded:
        loaded[key] = load_config(session, tenant_id, key, defaults)
    return loaded[key]


def load_config(
    session: Session, tenant_id: str, key: str, defaults: ConfigDefaults
) -> CustomizationConfig:
    row = session.get(MemoryCustomizationRow, (tenant_id, key))
    return CustomizationConfig(
        scope_keys=tuple(key.split(",")) if key else (),
        topics=tuple(load_topics(session, tenant_id, key)),
        examples=tuple(load_examples(session, tenant_id, key)),
        enable_third_person_memories=(
            row.enable_third_person_memories
            if row is not None
            else defaults.enable_third_person_memories
        ),
        revisions_per_candidate_count=(
            row.revisions_per_candidate_count
            if row is not None
            else defaults.revisions_per_candidate_count
        ),
        disable_memory_revisions=row.disable_memory_revisions if row is not None else False,
        stored=row is not None,
    )


def load_topics(session: Session, tenant_id: str, key: str = "") -> list[Topic]:
    rows = {
        row.label: row
        for row in session.scalars(
            select(MemoryTopicRow).where(
                MemoryTopicRow.tenant_id == tenant_id, MemoryTopicRow.scope_keys == key
            )
        )
    }
    topics = []
    for topic in MANAGED_TOPICS:
        row = rows.pop(topic.label, None)
        topics.append(topic if row is None else topic.model_copy(update={"enabled": row.enabled}))
    for label in sorted(rows):
        row = rows[label]
        topics.append(
            Topic(
                label=label,
                description=row.description,
                managed=False,
                enabled=row.enabled,
                keywords=tuple(row.keywords),
            )
        )
    return topics


def load_examples(session: Session, tenant_id: str, key: str = "") -> list[FewShotExample]:
    rows = session.scalars(
        select(MemoryExampleRow)
        .where(MemoryExampleRow.tenant_id == tenant_id, MemoryExampleRow.scope_keys == key)
        .order_by(MemoryExampleRow.id)
    )
    return [
        FewShotExample(
            id=row.id,
            events=tuple(ConversationEvent.model_validate(e) for e in row.events),
            memories=tuple(ExampleMemory.model_validate(m) for m in row.memories),
        )
        for row in rows
    ]


def load_policy(session: Session, tenant_id: str, defaults: MemoryPolicy) -> MemoryPolicy:
    row = session.get(MemoryPolicyRow, tenant_id)
    if row is None:
        return defaults
    return MemoryPolicy.model_validate(
        {name: getattr(row, name) for name in MemoryPolicy.model_fields}
    )

"""A tenant's Memory Bank configuration: topics, few-shot examples and policy (admins change it)."""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from services.core.clock import Clock
from services.core.errors import InvalidInput, NotFound
from services.core.policy import Permission, require
from services.core.principals import Principal
from services.db.engine import Database
from services.db.models_memory import MemoryExampleRow, MemoryPolicyRow, MemoryTopicRow
from services.memory.topics import MANAGED_LABELS, MANAGED_TOPICS
from services.memory.types import (
    ConversationEvent,
    ExampleMemory,
    FewShotExample,
    MemoryPolicy,
    Topic,
)
from services.records import audit


def _require_admin(principal: Principal) -> None:
    require(
        principal,
        Permission.CONFIGURE_MEMORY,
        "only an admin may change the tenant's memory topics and policy",
    )


class MemoryConfig:
    def __init__(self, *, db: Database, clock: Clock, defaults: MemoryPolicy) -> None:
        self._db = db
        self._clock = clock
        self._defaults = defaults

    # ---- topics ---------------------------------------------------------------------------
    def topics(self, principal: Principal) -> list[Topic]:
        with self._db.read() as session:
            return load_topics(session, principal.tenant_id)

    def set_topic(
        self,
        principal: Principal,
        *,
        label: str,
        description: str | None = None,
        keywords: list[str] | None = None,
        enabled: bool = True,
    ) -> Topic:
        """Add or change a custom topic, or switch a managed one on or off."""
        _require_admin(principal)
        managed = label in MANAGED_LABELS
        if not managed and not (description or "").strip():
            raise InvalidInput(f"custom topic {label!r} needs a description")
        if managed and (description or keywords):
            raise InvalidInput(f"{label!r} is a managed topic: only enabled can be changed")
        try:
            topic = Topic(
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
        with self._db.write() as session:
            row = session.get(MemoryTopicRow, (principal.tenant_id, label))
            if row is None:
                row = MemoryTopicRow(tenant_id=principal.tenant_id, label=label)
                session.add(row)
            row.managed = managed
            row.description = topic.description
            row.keywords = list(topic.keywords)
            row.enabled = enabled
            row.updated_by = principal.user_id
            row.updated_at = self._clock.now()
            self._audit(session, principal, "memory_topic.set", label, topic.model_dump())
        return next(t for t in self.topics(principal) if t.label == label)

    def remove_topic(self, principal: Principal, label: str) -> None:
        _require_admin(principal)
        if label in MANAGED_LABELS:
            raise InvalidInput(f"{label!r} is a managed topic: disable it instead")
        with self._db.write() as session:
            row = session.get(MemoryTopicRow, (principal.tenant_id, label))
            if row is None:
                raise NotFound("memory topic", label)
            session.delete(row)
            self._audit(session, principal, "memory_topic.removed", label, {})

    # ---- few-shot examples ----------------------------------------------------------------
    def examples(self, principal: Principal) -> list[FewShotExample]:
        with self._db.read() as session:
            return load_examples(session, principal.tenant_id)

    def add_example(
        self,
        principal: Principal,
        *,
        events: list[ConversationEvent],
        memories: list[ExampleMemory],
    ) -> FewShotExample:
        _require_admin(principal)
        labels = {t.label for t in self.topics(principal)}
        unknown = sorted({m.topic for m in memories} - labels)
        if unknown:
            raise InvalidInput(f"example names unknown topic(s): {', '.join(unknown)}")
        example = FewShotExample(events=tuple(events), memories=tuple(memories))
        with self._db.write() as session:
            row = MemoryExampleRow(
                tenant_id=principal.tenant_id,
                events=[e.model_dump() for e in example.events],
                memories=[m.model_dump() for m in example.memories],
                created_by=principal.user_id,
                created_at=self._clock.now(),
            )
            session.add(row)
            session.flush()
            self._audit(session, principal, "memory_example.added", str(row.id), {})
            return example.model_copy(update={"id": row.id})

    # ---- policy ---------------------------------------------------------------------------
    def policy(self, principal: Principal) -> MemoryPolicy:
        with self._db.read() as session:
            return load_policy(session, principal.tenant_id, self._defaults)

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


def load_topics(session: Session, tenant_id: str) -> list[Topic]:
    rows = {
        row.label: row
        for row in session.scalars(
            select(MemoryTopicRow).where(MemoryTopicRow.tenant_id == tenant_id)
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


def load_examples(session: Session, tenant_id: str) -> list[FewShotExample]:
    rows = session.scalars(
        select(MemoryExampleRow)
        .where(MemoryExampleRow.tenant_id == tenant_id)
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

"""CLI for the Memory Bank: `memdesk memories generate|list|search|show|revisions|rollback|...`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from services.cli.common import AsUser, JsonFlag, emit, open_services, principal_for, run_command
from services.core.errors import InvalidInput
from services.memory.types import ConversationEvent, Memory, MemoryPolicy, parse_scope

memories_app = typer.Typer(
    no_args_is_help=True, help="Memory Bank: memories from conversations, by exact scope."
)
topics_app = typer.Typer(no_args_is_help=True, help="The topics of a customization config.")
memories_app.add_typer(topics_app, name="topics")
configs_app = typer.Typer(
    no_args_is_help=True, help="Customization configs, keyed by an exact set of scope keys."
)
memories_app.add_typer(configs_app, name="configs")
ConfigOpt = Annotated[
    str,
    typer.Option(
        "--config", help="Scope keys of the config, comma-separated (default: the default one)."
    ),
]


def _keys(config: str) -> tuple[str, ...]:
    return tuple(k.strip() for k in config.split(",") if k.strip())


ScopeOpt = Annotated[
    list[str],
    typer.Option("--scope", help="key=value, repeatable: customer_id, task_id, user_id."),
]
EventKindOpt = Annotated[str, typer.Option("--kind", help="mail, chat or supplement.")]
AuthorOpt = Annotated[str, typer.Option("--author", help="customer, sales, engineer, user.")]


def register(app: typer.Typer) -> None:
    app.add_typer(memories_app, name="memories")


def _events(
    text: str | None, file: Path | None, *, kind: str, author: str, event_id: str | None
) -> list[ConversationEvent]:
    """One message from --text (or '-' for stdin), or a JSON list of events from --events."""
    try:
        if file is not None:
            data = json.loads(file.read_text(encoding="utf-8"))
            if not isinstance(data, list):
                raise InvalidInput(f"{file}: expected a JSON list of events")
            return [ConversationEvent.model_validate(item) for item in data]
        if text is None:
            raise InvalidInput("give the message with --text (or --text - for stdin) or --events")
        body = sys.stdin.read() if text == "-" else text
        return [ConversationEvent(kind=kind, author=author, text=body, event_id=event_id)]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"bad event {where}: {first['msg']}") from exc
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read events: {exc}") from exc


@memories_app.command("generate")
def generate(
    as_user: AsUser,
    scope: ScopeOpt,
    text: Annotated[str | None, typer.Option("--text", help="The message ('-' = stdin).")] = None,
    events: Annotated[Path | None, typer.Option("--events", help="JSON list of events.")] = None,
    kind: EventKindOpt = "chat",
    author: AuthorOpt = "customer",
    event_id: Annotated[str | None, typer.Option("--event-id")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Preview, write nothing.")] = False,
    third_person: Annotated[bool | None, typer.Option("--third-person/--first-person")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Extract memories from a conversation and consolidate them into SCOPE."""
    with open_services() as services:

        def go() -> Any:
            principal = principal_for(services, as_user)
            return services.memories.generate(
                principal,
                scope=parse_scope(scope),
                events=_events(text, events, kind=kind, author=author, event_id=event_id),
                dry_run=dry_run,
                third_person=third_person,
            )

        result = run_command(go)

        def render() -> str:
            head = f"{'preview' if result.dry_run else 'generated'} {result.generation_id} "
            lines = [head + f"({result.extractor})"]
            lines += [
                f"  {c.action:9} {c.memory_id or '-':14} [{c.topic}] {c.fact}"
                + (f"  (was: {c.previous_fact})" if c.previous_fact else "")
                for c in result.changes
            ]
            return "\n".join(lines if result.changes else [*lines, "  nothing worth remembering"])

        emit(result, as_json=as_json, text=render)


@memories_app.command("list")
def list_memories(
    as_user: AsUser,
    scope: ScopeOpt,
    topic: Annotated[str | None, typer.Option("--topic")] = None,
    include_deleted: Annotated[bool, typer.Option("--include-deleted")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Memories filed under exactly SCOPE."""
    with open_services() as services:
        found = run_command(
            lambda: services.memories.list_memories(
                principal_for(services, as_user),
                scope=parse_scope(scope),
                topic=topic,
                include_deleted=include_deleted,
            )
        )
        emit(
            [m.model_dump(mode="json") for m in found],
            as_json=as_json,
            text=lambda: "\n".join(_line(m) for m in found) or "-",
        )


@memories_app.command("search")
def search(
    query: Annotated[str, typer.Argument()],
    as_user: AsUser,
    scope: ScopeOpt,
    k: Annotated[int, typer.Option("--k")] = 5,
    as_json: JsonFlag = False,
) -> None:
    """Similarity search inside exactly SCOPE (the score ranks, it is not a confidence)."""
    with open_services() as services:
        hits = run_command(
            lambda: services.memories.search(
                principal_for(services, as_user), scope=parse_scope(scope), query=query, k=k
            )
        )
        emit(
            [h.model_dump(mode="json") for h in hits],
            as_json=as_json,
            text=lambda: "\n".join(f"{h.score:.3f}  {_line(h.memory)}" for h in hits) or "-",
        )


@memories_app.command("show")
def show(
    memory_id: Annotated[str, typer.Argument()], as_user: AsUser, as_json: JsonFlag = False
) -> None:
    """One memory."""
    with open_services() as services:
        memory = run_command(
            lambda: services.memories.get(principal_for(services, as_user), memory_id)
        )
        emit(memory, as_json=as_json, text=lambda: _detail(memory))


@memories_app.command("revisions")
def revisions(
    memory_id: Annotated[str, typer.Argument()], as_user: AsUser, as_json: JsonFlag = False
) -> None:
    """The memory's immutable revisions, newest first, with the event each came from."""
    with open_services() as services:
        found = run_command(
            lambda: services.memories.revisions(principal_for(services, as_user), memory_id)
        )
        emit(
            [r.model_dump(mode="json") for r in found],
            as_json=as_json,
            text=lambda: "\n".join(
                f"r{r.revision} {r.action:11} {r.at:%Y-%m-%d %H:%M} {r.actor}: {r.fact}"
                f"  ← {r.source.kind}{' ' + r.source.event_id if r.source.event_id else ''}"
                for r in found
            ),
        )


@memories_app.command("rollback")
def rollback(
    memory_id: Annotated[str, typer.Argument()],
    as_user: AsUser,
    revision: Annotated[int, typer.Option("--revision", help="The revision to restore.")],
    as_json: JsonFlag = False,
) -> None:
    """Make an earlier revision current again (the rollback is itself a new revision)."""
    with open_services() as services:
        memory = run_command(
            lambda: services.memories.rollback(
                principal_for(services, as_user), memory_id, revision=revision
            )
        )
        emit(memory, as_json=as_json, text=lambda: _detail(memory))


@memories_app.command("delete")
def delete(
    memory_id: Annotated[str, typer.Argument()],
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")],
    as_json: JsonFlag = False,
) -> None:
    """Delete a memory (its revisions stay until their TTL; a legal hold refuses it)."""
    with open_services() as services:
        memory = run_command(
            lambda: services.memories.delete(
                principal_for(services, as_user), memory_id, reason=reason
            )
        )
        emit(memory, as_json=as_json, text=lambda: _detail(memory))


@memories_app.command("hold")
def hold(
    memory_id: Annotated[str, typer.Argument()],
    as_user: AsUser,
    reason: Annotated[str, typer.Option("--reason")],
    lift: Annotated[bool, typer.Option("--lift", help="Lift the hold instead.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Set (or --lift) a legal hold on a memory (admins)."""
    with open_services() as services:
        memory = run_command(
            lambda: services.memories.set_legal_hold(
                principal_for(services, as_user), memory_id, hold=not lift, reason=reason
            )
        )
        emit(memory, as_json=as_json, text=lambda: _detail(memory))


@memories_app.command("purge-expired")
def purge_expired(
    dry_run: Annotated[bool, typer.Option("--dry-run")] = False,
    tenant: Annotated[str | None, typer.Option("--tenant")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Remove expired memories and revisions; anything under legal hold stays."""
    with open_services() as services:
        report = run_command(
            lambda: services.memories.purge_expired(
                actor="system:retention", dry_run=dry_run, tenant_id=tenant
            )
        )
        emit(
            report,
            as_json=as_json,
            text=lambda: (
                f"{'would remove' if dry_run else 'removed'} {len(report.removed)} memory(ies) "
                f"and {report.revisions_removed} revision(s); "
                f"{len(report.kept_on_hold)} kept under legal hold"
            ),
        )


@memories_app.command("policy")
def policy(
    as_user: AsUser,
    set_json: Annotated[
        str | None, typer.Option("--set", help="A JSON object of policy fields to change.")
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Show (or, as an admin, --set) the tenant's TTL and consolidation policy."""
    with open_services() as services:

        def go() -> MemoryPolicy:
            principal = principal_for(services, as_user)
            current = services.memories.config.policy(principal)
            if set_json is None:
                return current
            try:
                changes = json.loads(set_json)
                updated = MemoryPolicy.model_validate({**current.model_dump(), **changes})
            except (json.JSONDecodeError, TypeError, ValidationError) as exc:
                raise InvalidInput(f"--set: {exc}") from exc
            return services.memories.config.set_policy(principal, updated)

        result = run_command(go)
        emit(result, as_json=as_json, text=lambda: json.dumps(result.model_dump(), indent=2))


@topics_app.command("list")
def topics_list(as_user: AsUser, config: ConfigOpt = "", as_json: JsonFlag = False) -> None:
    """Managed and custom topics of one config of USER's tenant."""
    with open_services() as services:
        found = run_command(
            lambda: services.memories.config.topics(principal_for(services, as_user), _keys(config))
        )
        emit(
            [t.model_dump(mode="json") for t in found],
            as_json=as_json,
            text=lambda: "\n".join(
                f"{'on ' if t.enabled else 'off'} {'managed' if t.managed else 'custom ':7} "
                f"{t.label}: {t.description}"
                for t in found
            ),
        )


@topics_app.command("set")
def topics_set(
    label: Annotated[str, typer.Argument()],
    as_user: AsUser,
    description: Annotated[str | None, typer.Option("--description")] = None,
    keyword: Annotated[list[str] | None, typer.Option("--keyword")] = None,
    disable: Annotated[bool, typer.Option("--disable")] = False,
    config: ConfigOpt = "",
    as_json: JsonFlag = False,
) -> None:
    """Add or change a custom topic, or switch a managed one on/off (--disable), in a config."""
    with open_services() as services:

        def go() -> Any:
            try:
                return services.memories.config.set_topic(
                    principal_for(services, as_user),
                    label=label,
                    description=description,
                    keywords=keyword,
                    enabled=not disable,
                    scope_keys=_keys(config),
                )
            except ValidationError as exc:
                raise InvalidInput(f"topic {label!r}: {exc.errors()[0]['msg']}") from exc

        topic = run_command(go)
        emit(topic, as_json=as_json, text=lambda: f"{topic.label}: enabled={topic.enabled}")


@topics_app.command("remove")
def topics_remove(
    label: Annotated[str, typer.Argument()], as_user: AsUser, config: ConfigOpt = ""
) -> None:
    """Remove a custom topic from a config."""
    with open_services() as services:
        run_command(
            lambda: services.memories.config.remove_topic(
                principal_for(services, as_user), label, _keys(config)
            )
        )
        typer.echo(f"removed {label}")


def _line(memory: Memory) -> str:
    state = "" if memory.state == "active" else f" ({memory.state})"
    return f"{memory.memory_id} r{memory.revision} [{memory.topic}] {memory.fact}{state}"


def _detail(memory: Memory) -> str:
    scope = "&".join(f"{k}={v}" for k, v in sorted(memory.scope.items()))
    lines = [
        _line(memory),
        f"  scope {scope}; kind {memory.kind}; {memory.knowledge_class} (not evidence)",
        f"  expires {memory.expire_at.isoformat() if memory.expire_at else 'never'}",
    ]
    if memory.legal_hold:
        lines.append(f"  legal hold: {memory.legal_hold_reason}")
    return "\n".join(lines)


@configs_app.command("list")
def configs_list(as_user: AsUser, as_json: JsonFlag = False) -> None:
    """The default config and every keyed config, with their settings and topics."""
    with open_services() as services:
        found = run_command(
            lambda: services.memories.config.configs(principal_for(services, as_user))
        )
        emit(
            [c.model_dump(mode="json") for c in found],
            as_json=as_json,
            text=lambda: "\n".join(
                f"{c.key or 'default'}: third_person={c.enable_third_person_memories} "
                f"revisions_per_candidate_count={c.revisions_per_candidate_count} "
                f"disable_memory_revisions={c.disable_memory_revisions} topics="
                + ",".join(t.label for t in c.topics if t.enabled)
                for c in found
            ),
        )


@configs_app.command("set")
def configs_set(
    as_user: AsUser,
    config: ConfigOpt = "",
    third_person: Annotated[bool, typer.Option("--third-person/--first-person")] = False,
    revisions_per_candidate: Annotated[int, typer.Option("--revisions-per-candidate")] = 1,
    disable_revisions: Annotated[
        bool, typer.Option("--disable-revisions/--keep-revisions")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Create a keyed config (--config user_id) or change a config's settings (admins)."""
    with open_services() as services:
        saved = run_command(
            lambda: services.memories.config.save_customization(
                principal_for(services, as_user),
                scope_keys=_keys(config),
                enable_third_person_memories=third_person,
                revisions_per_candidate_count=revisions_per_candidate,
                disable_memory_revisions=disable_revisions,
            )
        )
        emit(saved, as_json=as_json, text=lambda: f"saved config {saved.key or 'default'}")


@configs_app.command("remove")
def configs_remove(as_user: AsUser, config: Annotated[str, typer.Option("--config")]) -> None:
    """Remove a keyed config; its scopes fall back to the default config (admins)."""
    with open_services() as services:
        run_command(
            lambda: services.memories.config.remove_customization(
                principal_for(services, as_user), _keys(config)
            )
        )
        typer.echo(f"removed config {config}")


@memories_app.command("models")
def models(as_json: JsonFlag = False) -> None:
    """The bank's embedding and generation models."""
    with open_services() as services:
        found = services.memories.models()
        emit(
            found,
            as_json=as_json,
            text=lambda: (
                f"embedding {found.embedding_model}; extraction {found.extraction}; "
                f"consolidation {found.consolidation}"
            ),
        )

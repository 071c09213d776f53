"""Alembic environment: runs against the connection handed in by services.db.migrate."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from services.db import (  # noqa: F401 - registers their tables
    models_knowledge,
    models_memory,
    models_retrieval,
)
from services.db.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.connect() as conn:
        _run(conn)


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite needs batch mode for ALTERs
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    raise SystemExit("memdesk migrations run online only")
run_migrations_online()

"""A digest of every table (row count + row hash), to prove that a failed write changed nothing."""

from __future__ import annotations

import hashlib

from sqlalchemy import Engine, select

from services.db.models import Base


def database_digest(engine: Engine) -> dict[str, tuple[int, str]]:
    """{table: (row count, sha256 of all rows in primary-key order)} for every mapped table."""
    digest: dict[str, tuple[int, str]] = {}
    with engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            order = list(table.primary_key.columns) or list(table.columns)
            rows = connection.execute(select(table).order_by(*order)).all()
            text = "\n".join(repr(tuple(row)) for row in rows)
            digest[table.name] = (len(rows), hashlib.sha256(text.encode()).hexdigest())
    return digest

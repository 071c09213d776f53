"""PostgreSQL for tests: make sure the local server runs, give each test its own database."""

from __future__ import annotations

import glob
import os
import subprocess
import time
import uuid

import psycopg

ADMIN_DSN = os.environ.get("MEMDESK_TEST_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres")


def ensure_server() -> None:
    """Start the machine's PostgreSQL cluster if it is down; fail loudly if it cannot start."""
    if _reachable():
        return
    versions = [os.path.basename(p) for p in glob.glob("/etc/postgresql/*")]
    for version in versions:
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"],
            check=False,
            capture_output=True,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if _reachable():
            return
        time.sleep(0.2)
    raise RuntimeError(f"PostgreSQL is not reachable at {ADMIN_DSN} and could not be started")


def _reachable() -> bool:
    try:
        with psycopg.connect(ADMIN_DSN, connect_timeout=2):
            return True
    except psycopg.OperationalError:
        return False


def create_database(*, template: str | None = None) -> str:
    name = f"memdesk_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        suffix = f" TEMPLATE {template}" if template else ""
        conn.execute(f'CREATE DATABASE "{name}"{suffix}')  # type: ignore[arg-type]
    return name


def drop_database(name: str) -> None:
    with psycopg.connect(ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')  # type: ignore[arg-type]


def url_for(name: str) -> str:
    base = ADMIN_DSN.rsplit("/", 1)[0]
    return f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{name}"

"""A SQLite store this process cannot write: opened read-only, so reads work and writes are
refused up front with the reason, instead of failing on the first statement.

SQLite in WAL mode needs its `-shm` file even to read. When the data directory cannot be written
and no `-shm` is there, the only way to read is to open the file `immutable` (no locks, no WAL):
the store is then read as it stands, which is right for what a read-only directory usually is —
a backup, a snapshot, a replica nobody writes at the same time (README "Deployment"). A `-wal`
left next to the file holds committed data an immutable reader would miss, so the file is then
opened read-only with its WAL instead (which needs the `-shm` as well).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote


def unwritable(database: Path) -> str | None:
    """Why this process cannot write the SQLite file (or the directory its journal files go
    in), or None when it can. A file that does not exist yet is the migrations' to create."""
    if not database.exists():
        return None
    directory = database.parent
    if not _may_write(database):
        return f"{database} cannot be written by this process"
    if not _journal_writable(database, directory):
        return f"{directory} cannot be written by this process (SQLite keeps its journal there)"
    return None


def _journal_writable(database: Path, directory: Path) -> bool:
    if _may_write(directory):
        return True
    # Journal files that already exist and can be written are enough for SQLite.
    journals = [Path(f"{database}-wal"), Path(f"{database}-shm")]
    return all(path.exists() and _may_write(path) for path in journals)


def _may_write(path: Path) -> bool:
    """As open() would decide for this process (its effective ids and capabilities)."""
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)


def read_only_uri(database: Path) -> str:
    """The SQLite URI that opens the file without ever writing it (see the module note)."""
    uri = f"file:{quote(str(database.resolve()))}?mode=ro"
    if _may_write(database.parent):
        return uri  # SQLite creates the -shm it needs to read, and sees other writers
    wal, shm = Path(f"{database}-wal"), Path(f"{database}-shm")
    has_wal = wal.exists() and wal.stat().st_size > 0
    if not has_wal and not shm.exists():
        uri += "&immutable=1"
    return uri

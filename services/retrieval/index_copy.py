"""An embedded index directory this process cannot write, read through a private copy.

Embedded Chroma writes to its directory even to answer a query (its own SQLite journal and
bookkeeping), and it has no read-only mode. A store whose data directory is read-only — a backup,
a snapshot, a replica nobody writes (README "Deployment") — is still searchable: the index is
copied into a private temporary directory once per process and searched there. The copy takes as
much space as the index, is never written back, and is removed when the store is closed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def writable(directory: Path) -> bool:
    """Whether this process may change the directory and every file Chroma keeps in it."""
    if not directory.exists():
        return True  # created on first use, where it will be writable
    for root, _dirs, files in os.walk(directory):
        if not _may_write(Path(root)):
            return False
        if not all(_may_write(Path(root) / name) for name in files):
            return False
    return True


def private_copy(directory: Path) -> Path:
    """A writable copy of the directory in a new temporary directory (modes are not copied:
    the originals' read-only bits would make the copy just as unusable)."""
    copy = Path(tempfile.mkdtemp(prefix="memdesk-index-"))
    for root, dirs, files in os.walk(directory):
        target = copy / Path(root).relative_to(directory)
        for name in dirs:
            (target / name).mkdir(exist_ok=True)
        for name in files:
            shutil.copyfile(Path(root) / name, target / name)
    return copy


def remove(copy: Path) -> None:
    shutil.rmtree(copy, ignore_errors=True)


def _may_write(path: Path) -> bool:
    return os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids)

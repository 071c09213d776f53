"""A predictable id generator for tests (the product's IdGenerator is random UUIDs)."""

from __future__ import annotations

import itertools


class SequentialIds:
    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def new(self, prefix: str) -> str:
        return f"{prefix}-{next(self._counter):06d}"

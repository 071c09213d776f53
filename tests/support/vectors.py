"""A hand-written in-memory VectorStore for unit tests, with switches to make it misbehave."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from services.retrieval.embedders import Vectors
from services.retrieval.index_retries import TransientIndexError
from services.retrieval.vectorstore import Metadata, MissingCollection, VectorRecord, Where


class InMemoryVectorStore:
    """Exact cosine search over dicts. `down`/`fail_next` simulate an unreachable index;
    `deletes_are_ignored` simulates a store that answers delete without deleting."""

    def __init__(self) -> None:
        self.data: dict[str, dict[str, tuple[Vectors, Metadata]]] = {}
        self.down = False
        self.fail_next = 0
        self.deletes_are_ignored = False
        self.calls: list[str] = []
        self.successes_left: dict[str, int] = {}

    def break_after(self, operation: str, successes: int) -> None:
        """`operation` works `successes` more times, then fails for good."""
        self.successes_left[operation] = successes

    def _gate(self, operation: str) -> None:
        self.calls.append(operation)
        if operation in self.successes_left:
            if self.successes_left[operation] <= 0:
                raise TransientIndexError(f"{operation}: connection reset")
            self.successes_left[operation] -= 1
        if self.down:
            raise TransientIndexError(f"{operation}: connection refused")
        if self.fail_next:
            self.fail_next -= 1
            raise TransientIndexError(f"{operation}: timed out")

    def _collection(self, name: str) -> dict[str, tuple[Vectors, Metadata]]:
        if name not in self.data:
            raise MissingCollection(f"collection {name} does not exist")
        return self.data[name]

    def create_collection(self, name: str, *, metadata: Metadata) -> None:
        self._gate("create_collection")
        self.data.setdefault(name, {})

    def drop_collection(self, name: str) -> None:
        self._gate("drop_collection")
        self.data.pop(name, None)

    def collections(self) -> list[str]:
        self._gate("collections")
        return sorted(self.data)

    def upsert(
        self,
        collection: str,
        *,
        ids: Sequence[str],
        embeddings: Vectors,
        metadatas: Sequence[Metadata],
    ) -> None:
        self._gate("upsert")
        target = self._collection(collection)
        for i, record_id in enumerate(ids):
            meta = {k: v for k, v in metadatas[i].items() if v is not None}
            target[record_id] = (np.asarray(embeddings[i], dtype=np.float32), meta)

    def update_metadata(
        self, collection: str, *, ids: Sequence[str], metadatas: Sequence[Metadata]
    ) -> None:
        self._gate("update_metadata")
        target = self._collection(collection)
        for record_id, meta in zip(ids, metadatas, strict=True):
            if record_id in target:
                target[record_id] = (target[record_id][0], {**target[record_id][1], **meta})

    def get(
        self,
        collection: str,
        *,
        ids: Sequence[str] | None = None,
        where: Where | None = None,
        embeddings: bool = False,
    ) -> list[VectorRecord]:
        self._gate("get")
        target = self._collection(collection)
        keys = list(ids) if ids is not None else list(target)
        return [
            VectorRecord(
                id=key,
                metadata=dict(target[key][1]),
                embedding=target[key][0].copy() if embeddings else None,
            )
            for key in keys
            if key in target and (where is None or _matches(target[key][1], where))
        ]

    def query(
        self, collection: str, *, embedding: Vectors, n_results: int, where: Where | None = None
    ) -> list[tuple[str, float]]:
        self._gate("query")
        target = self._collection(collection)
        scored = [
            (key, 1.0 - float(np.dot(vector, embedding)))
            for key, (vector, meta) in target.items()
            if where is None or _matches(meta, where)
        ]
        return sorted(scored, key=lambda item: item[1])[:n_results]

    def delete(self, collection: str, *, ids: Sequence[str]) -> None:
        self._gate("delete")
        if self.deletes_are_ignored:
            return
        target = self._collection(collection)
        for key in ids:
            target.pop(key, None)

    def count(self, collection: str) -> int:
        self._gate("count")
        return len(self._collection(collection))

    def close(self) -> None:
        pass

    def snapshot(self) -> dict[str, set[str]]:
        return {name: set(records) for name, records in self.data.items()}


def _matches(meta: Metadata, where: Where) -> bool:
    for key, condition in where.items():
        if key == "$and":
            if not all(_matches(meta, clause) for clause in condition):
                return False
        elif key == "$or":
            if not any(_matches(meta, clause) for clause in condition):
                return False
        elif not _condition(meta.get(key), condition):
            return False
    return True


def _condition(value: Any, condition: Any) -> bool:
    if not isinstance(condition, dict):
        return bool(value == condition)
    for op, operand in condition.items():
        if op == "$eq" and value != operand:
            return False
        if op == "$in" and value not in operand:
            return False
        if op == "$contains" and (not isinstance(value, list) or operand not in value):
            return False
        if op in ("$gt", "$gte", "$lt", "$lte"):
            if value is None:
                return False
            ok = {
                "$gt": value > operand,
                "$gte": value >= operand,
                "$lt": value < operand,
                "$lte": value <= operand,
            }[op]
            if not ok:
                return False
    return True

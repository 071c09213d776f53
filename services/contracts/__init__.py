"""Interchange contracts (pydantic models with a schema version) and their JSON Schema export."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from services.contracts.corpus import Corpus
from services.contracts.decision import MemoryDecision
from services.contracts.golden import Golden
from services.contracts.memory_golden import MemoryGolden
from services.contracts.memory_input import MemoryInput
from services.contracts.packets import HandoffPacket
from services.contracts.span_reading import SpanReading
from services.contracts.task_state import TaskState

CONTRACTS: dict[str, type[BaseModel]] = {
    "corpus@1": Corpus,
    "golden@1": Golden,
    "task-state@1": TaskState,
    "memory-decision@1": MemoryDecision,
    "memory-input@1": MemoryInput,
    "handoff-packet@1": HandoffPacket,
    "memory-golden@1": MemoryGolden,
    "span-reading@1": SpanReading,
}


def json_schema(schema_id: str) -> dict[str, object]:
    schema = CONTRACTS[schema_id].model_json_schema(mode="validation")
    schema["$id"] = f"https://memdesk.local/schemas/{schema_id}.json"
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def export_schemas(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for schema_id in CONTRACTS:
        path = directory / f"{schema_id.replace('@', '-v')}.schema.json"
        path.write_text(
            json.dumps(json_schema(schema_id), ensure_ascii=False, indent=2) + "\n",
            encoding="utf-8",
        )
        written.append(path)
    return written

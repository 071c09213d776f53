"""Strict parsing of a model's JSON answer: bad JSON and schema violations named, never repaired."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

from services.llm.ports import AnalysisRejected, ModelUsage


def parse_strict(text: str, model: type[BaseModel], usage: ModelUsage) -> Any:
    """Our own validation of the model's JSON: invalid JSON and schema violations are named."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise AnalysisRejected(
            "invalid_json",
            f"the model's answer is not JSON ({exc.msg} at {exc.pos})",
            usage=usage,
            raw=text[:4000],
        ) from exc
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5]
        )
        raise AnalysisRejected(
            "schema_violation",
            f"the model's answer breaks {model.__name__}: {problems}",
            usage=usage,
            raw=text[:4000],
        ) from exc

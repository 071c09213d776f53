"""Gemini through the real SDK with recorded responses, served by an injected httpx transport.

Recorded bodies live in tests/fixtures/gemini/. Evidence ids depend on how the corpus was
chunked, so a recording names the evidence it cites as `{{evidence:DOC@V|text}}` (the first
evidence of that version whose quote contains `text`, taken from the request's own
memory-input data); `{{task_id}}` and `{{revision}}` come from the request too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
from google import genai
from google.genai import types

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "gemini"
_PLACEHOLDER = re.compile(r"\{\{evidence:([^|}]+)\|([^}]+)\}\}")


def recording(name: str) -> tuple[int, str]:
    body = (FIXTURES / f"{name}.json").read_text(encoding="utf-8")
    status = json.loads(body).get("error", {}).get("code", 200)
    return int(status), body


def request_input(request: httpx.Request) -> dict[str, Any]:
    """The memory-input@1 object the analyzer sent, read back from the prompt."""
    body = json.loads(request.content)
    text = body["contents"][0]["parts"][0]["text"]
    data = text.split("<untrusted_data>\n", 1)[1].split("\n</untrusted_data>", 1)[0]
    return dict(json.loads(data))


def bind(body: str, data: dict[str, Any]) -> str:
    def evidence(match: re.Match[str]) -> str:
        ref, needle = match.group(1), match.group(2)
        document_id, _, version = ref.partition("@")
        for item in data["evidence"]:
            if (
                item["document_id"] == document_id
                and str(item["version"]) == version
                and needle in item["quote"]
            ):
                return str(item["evidence_id"])
        raise AssertionError(f"the request holds no evidence {ref} quoting {needle!r}")

    body = _PLACEHOLDER.sub(evidence, body)
    return body.replace("{{task_id}}", data["task"]["task_id"]).replace(
        "{{revision}}", str(data["task"]["revision"])
    )


class RecordedGemini:
    """Answers each generate_content call with the next recording, in order."""

    def __init__(self, *names: str) -> None:
        self.script = list(names)
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        if not self.script:
            raise AssertionError("the model was called more often than recorded")
        status, body = recording(self.script.pop(0))
        self.requests.append(json.loads(request.content))
        if status == 200 and "{{" in body:
            body = bind(body, request_input(request))
        return httpx.Response(
            status, content=body.encode("utf-8"), headers={"content-type": "application/json"}
        )

    @property
    def client(self) -> genai.Client:
        return genai.Client(
            api_key="test-key",
            http_options=types.HttpOptions(
                httpx_client=httpx.Client(transport=httpx.MockTransport(self.handler))
            ),
        )

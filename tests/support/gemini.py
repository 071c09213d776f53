"""Gemini through the real SDK with recorded responses, served by an injected httpx transport.

Recorded bodies live in tests/fixtures/gemini/. Evidence ids depend on how the corpus was
chunked, so a recording names the evidence it cites as `{{evidence:DOC@V|text}}` (the first
evidence of that version whose quote contains `text`, taken from the request's own
memory-input data); `{{task_id}}` and `{{revision}}` come from the request too. A span reading
(prompt `span-reader`) writes its list of verdicts as `{{verdicts:DEFAULT;DOC@V=VERDICT;...}}`:
one verdict per span of the request, in its order — VERDICT for the spans of DOC@V, DEFAULT for
the rest.
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
_VERDICTS = re.compile(r"\{\{verdicts:([^}]+)\}\}")
READER_MARK = "Span Reader"  # in the span-reader prompt's system text, never in analysis's


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


def bind_reading(body: str, data: dict[str, Any]) -> str:
    def verdicts(match: re.Match[str]) -> str:
        default, *rules = match.group(1).split(";")
        by_ref = dict(rule.split("=", 1) for rule in rules)
        answer = [
            {
                "evidence_id": span["evidence_id"],
                "verdict": by_ref.get(span["evidence_id"].split(":", 1)[0], default),
                "missing": [],
            }
            for span in data["spans"]
        ]
        # The placeholder sits inside the JSON string that carries the model's text.
        return json.dumps(json.dumps(answer, ensure_ascii=False), ensure_ascii=False)[1:-1]

    return _VERDICTS.sub(verdicts, body)


def bind(body: str, data: dict[str, Any]) -> str:
    if "spans" in data:
        return bind_reading(body, data)

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
    """Answers each generate_content call with the next recording, in order. With `reading`,
    every span-reading call is answered with that one recording (bound to its own spans) and
    the script serves the other calls."""

    def __init__(self, *names: str, reading: str | None = None) -> None:
        self.script = list(names)
        self.reading = reading
        self.requests: list[dict[str, Any]] = []
        self.reading_requests: list[dict[str, Any]] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        sent = json.loads(request.content)
        if self.reading is not None and READER_MARK in _system_text(sent):
            self.reading_requests.append(sent)
            return self._answer(self.reading, request)
        if not self.script:
            raise AssertionError("the model was called more often than recorded")
        self.requests.append(sent)
        return self._answer(self.script.pop(0), request)

    def _answer(self, name: str, request: httpx.Request) -> httpx.Response:
        status, body = recording(name)
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


def _system_text(body: dict[str, Any]) -> str:
    parts = (body.get("systemInstruction") or {}).get("parts") or []
    return "".join(str(part.get("text", "")) for part in parts)

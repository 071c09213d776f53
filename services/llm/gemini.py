"""The Gemini client (google-genai) and one bounded generate_content call with our error taxonomy.

Used by the Analysis agent, the Memory Bank's extractor and consolidator alike. Rate limits,
server errors and timeouts are transient (the caller's queue retries them with backoff); the
SDK's own retries stay off so one place counts attempts.
"""

from __future__ import annotations

from typing import Any

import httpx
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from pydantic import BaseModel, ConfigDict

from services.core.errors import InvalidInput
from services.llm.ports import AnalysisRejected, ModelUsage, TransientFailure
from services.settings import Settings

TRANSIENT_CODES = frozenset({408, 429, 500, 502, 503, 504})


class GeminiBinding(BaseModel):
    """Which model, with what limits and prices (from settings)."""

    model_config = ConfigDict(frozen=True)

    model: str
    max_output_tokens: int
    thinking_budget: int | None
    usd_per_million_input: float
    usd_per_million_output: float


def build_client(*, api_key: str, timeout_seconds: float) -> genai.Client:
    return genai.Client(
        api_key=api_key, http_options=types.HttpOptions(timeout=int(timeout_seconds * 1000))
    )


class GeminiCaller:
    """One bounded generate_content call with our error taxonomy and usage accounting."""

    def __init__(self, *, client: genai.Client, binding: GeminiBinding) -> None:
        self._client = client
        self.binding = binding

    def generate(
        self, *, system: str, contents: str, schema: type[BaseModel]
    ) -> tuple[str, ModelUsage]:
        config = types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_schema=schema,
            max_output_tokens=self.binding.max_output_tokens,
            temperature=0.0,
            candidate_count=1,
            thinking_config=(
                types.ThinkingConfig(thinking_budget=self.binding.thinking_budget)
                if self.binding.thinking_budget is not None
                else None
            ),
        )
        try:
            response = self._client.models.generate_content(
                model=self.binding.model, contents=contents, config=config
            )
        except genai_errors.APIError as exc:
            usage = ModelUsage(model_calls=1)
            if exc.code in TRANSIENT_CODES:
                raise TransientFailure(
                    f"model_http_{exc.code}",
                    f"Gemini answered {exc.code} {exc.status}",
                    usage=usage,
                ) from exc
            raise AnalysisRejected(
                f"model_http_{exc.code}",
                f"Gemini refused the request: {exc.code} {exc.status}",
                usage=usage,
            ) from exc
        except httpx.TimeoutException as exc:
            raise TransientFailure(
                "model_timeout", "Gemini did not answer in time", usage=ModelUsage(model_calls=1)
            ) from exc
        except httpx.TransportError as exc:
            raise TransientFailure(
                "model_unreachable",
                f"Gemini could not be reached: {exc}",
                usage=ModelUsage(model_calls=1),
            ) from exc
        usage = self._usage(response)
        candidate = response.candidates[0] if response.candidates else None
        if candidate is None:
            blocked = response.prompt_feedback.block_reason if response.prompt_feedback else None
            raise AnalysisRejected(
                "no_candidate", f"Gemini returned no answer (block reason: {blocked})", usage=usage
            )
        finish = candidate.finish_reason
        text = "".join(
            part.text
            for part in (candidate.content.parts or [] if candidate.content else [])
            if part.text and not part.thought
        )
        if finish != types.FinishReason.STOP:
            name = finish.name if finish is not None else "UNSPECIFIED"
            reason = "truncated" if finish == types.FinishReason.MAX_TOKENS else "finish_reason"
            raise AnalysisRejected(
                reason, f"Gemini stopped with finish_reason {name}", usage=usage, raw=text[:4000]
            )
        return text, usage

    def _usage(self, response: types.GenerateContentResponse) -> ModelUsage:
        meta = response.usage_metadata
        tokens_in = (meta.prompt_token_count or 0) if meta else 0
        tokens_out = (
            ((meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0)) if meta else 0
        )
        cost = (
            tokens_in * self.binding.usd_per_million_input
            + tokens_out * self.binding.usd_per_million_output
        ) / 1_000_000
        return ModelUsage(model_calls=1, tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)


def gemini_caller(
    settings: Settings,
    client: Any | None,
    *,
    timeout_seconds: float | None = None,
    needed_by: str = "MEMDESK_ANALYZER=gemini",
) -> GeminiCaller:
    """The Gemini caller for the configured model, shared by analysis, the span reader and the
    Memory Bank. `timeout_seconds` (default: the model timeout) bounds a client built here."""
    if client is None:
        if settings.gemini_api_key is None:
            raise InvalidInput(f"{needed_by} needs MEMDESK_GEMINI_API_KEY")
        client = build_client(
            api_key=settings.gemini_api_key.get_secret_value(),
            timeout_seconds=timeout_seconds or settings.model_timeout_seconds,
        )
    return GeminiCaller(
        client=client,
        binding=GeminiBinding(
            model=settings.gemini_model,
            max_output_tokens=settings.gemini_max_output_tokens,
            thinking_budget=settings.gemini_thinking_budget,
            usd_per_million_input=settings.gemini_usd_per_million_input,
            usd_per_million_output=settings.gemini_usd_per_million_output,
        ),
    )

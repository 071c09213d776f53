"""Builds the Memory Bank from settings (called by the composition root, services.bootstrap)."""

from __future__ import annotations

from typing import Any

from services.core.clock import Clock, IdGenerator
from services.db.engine import Database
from services.memory.bank import Extractor, MemoryBank
from services.memory.config import ConfigDefaults, MemoryConfig
from services.memory.consolidate import Consolidator
from services.memory.extract_offline import OfflineExtractor
from services.memory.types import MemoryPolicy
from services.memory.vectors import RememberingEmbedder
from services.retrieval.embedders import Embedder
from services.settings import Settings


def config_defaults(settings: Settings) -> ConfigDefaults:
    return ConfigDefaults(
        policy=MemoryPolicy(
            default_ttl_seconds=settings.memory_default_ttl_seconds,
            revision_ttl_seconds=settings.memory_revision_ttl_seconds,
            similarity_threshold=settings.memory_similarity_threshold,
        ),
        enable_third_person_memories=settings.memory_third_person,
        revisions_per_candidate_count=settings.memory_revisions_per_candidate_count,
    )


def build_memory_bank(
    settings: Settings,
    *,
    db: Database,
    clock: Clock,
    ids: IdGenerator,
    embedder: Embedder,
    genai_client: Any | None = None,
    extractor: Extractor | None = None,
) -> MemoryBank:
    defaults = config_defaults(settings)
    embedder = RememberingEmbedder(embedder)  # the same memories are compared run after run
    if extractor is None:
        extractor = _extractor(settings, genai_client, embedder)
    consolidator: Consolidator | None = None
    if settings.memory_consolidator == "gemini":
        from services.llm.gemini import gemini_caller
        from services.memory.consolidate_gemini import GeminiConsolidator

        consolidator = GeminiConsolidator(caller=gemini_caller(settings, genai_client))
    return MemoryBank(
        db=db,
        clock=clock,
        ids=ids,
        embedder=embedder,
        extractor=extractor,
        config=MemoryConfig(db=db, clock=clock, defaults=defaults),
        defaults=defaults,
        consolidator=consolidator,
    )


def _extractor(settings: Settings, genai_client: Any | None, embedder: Embedder) -> Extractor:
    wants_gemini = settings.memory_extractor == "gemini" or (
        settings.memory_extractor == "auto"
        and (settings.gemini_api_key is not None or genai_client is not None)
    )
    if not wants_gemini:
        return OfflineExtractor(embedder=embedder)
    # Imported here: google.genai is heavy and only needed when Gemini is configured.
    from services.llm.gemini import gemini_caller
    from services.memory.extract_gemini import GeminiExtractor

    return GeminiExtractor(caller=gemini_caller(settings, genai_client))

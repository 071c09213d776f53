"""Settings from MEMDESK_* environment variables (pydantic-settings); nothing is built here."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMDESK_", extra="ignore", frozen=True)

    home: Path = Field(default=Path("var"), description="Data directory: SQLite file, Chroma dir.")
    env: Literal["development", "production"] = Field(
        default="development",
        description="production: no demo password, no seed-demo, no placeholder cookie secret.",
    )
    database_url: str | None = Field(
        default=None, description="SQLAlchemy URL; default is a SQLite file under MEMDESK_HOME."
    )
    chroma_url: str | None = Field(
        default=None, description="http://host:port of a Chroma server; default is embedded."
    )
    embedding_backend: Literal["use", "gemini", "hashing"] = "use"
    analyzer: Literal["auto", "offline", "gemini"] = Field(
        default="auto", description="auto = Gemini when an API key is set, else offline."
    )
    span_reader: Literal["auto", "offline", "gemini"] = Field(
        default="auto",
        description="Who judges whether retrieved spans answer: auto = Gemini when an API key "
        "is set, else the offline rule.",
    )
    gemini_api_key: SecretStr | None = None
    gemini_model: str = "gemini-2.5-flash"
    gemini_embedding_model: str = "gemini-embedding-001"
    gemini_embedding_dimension: int = Field(
        default=768, description="output_dimensionality asked of the Gemini embedding model."
    )
    gemini_max_output_tokens: int = 2048
    auth_mode: Literal["local", "oidc"] = "local"
    # Console sessions of local accounts (services/records/sessions.py).
    session_secret: SecretStr | None = Field(
        default=None,
        description="Signs session cookies; default: a random key in MEMDESK_HOME/session.key. "
        "Consoles sharing one database must share it.",
    )
    audit_key: SecretStr | None = Field(
        default=None,
        description="Keys the audit log's hash chain (HMAC-SHA256); default: a random key in "
        "MEMDESK_HOME/audit.key. Every process sharing one database must share it, and it "
        "must not be kept in the database.",
    )
    session_idle_minutes: int = Field(
        default=120, ge=1, description="A session unused this long must log in again."
    )
    session_lifetime_hours: int = Field(
        default=12, ge=1, description="A session ends this long after login, used or not."
    )
    sqlite_busy_timeout_ms: int = 15_000
    max_body_chars: int = Field(default=1_000_000, description="Largest document body accepted.")
    completed_task_retention_days: int = Field(
        default=90, description="Default when the tenant has no policy of its own."
    )
    retrieval_k: int = 5
    embedding_cache_mb: int = Field(
        default=256,
        ge=0,
        description="Ceiling of the file under MEMDESK_HOME where the model's vectors of "
        "queries, spans and remembered sentences are kept for every process of this host "
        "(0: none); the rows written first are dropped past it.",
    )
    retrieval_cache_mb: int = Field(
        default=1024,
        ge=1,
        description="Ceiling of every retrieval cache together (tenant blocks, views, rankings, "
        "chunk lists, query vectors); least recently used tenant blocks are dropped past it.",
    )
    demo_corpus: Path = REPO_ROOT / "data" / "demo-corpus.json"
    # Runs and agents (services/agents): bounded work, per-tenant limits.
    run_max_attempts: int = Field(default=3, ge=1, le=3, description="Attempts per run in total.")
    run_backoff_seconds: float = Field(default=2.0, description="First retry wait; doubles.")
    run_timeout_seconds: float = Field(
        default=300.0, description="A running run without a heartbeat this long is reclaimed."
    )
    tool_timeout_seconds: float = 30.0
    model_timeout_seconds: float = 60.0
    gemini_thinking_budget: int | None = 0
    gemini_usd_per_million_input: float = 0.30
    gemini_usd_per_million_output: float = 2.50
    gemini_model_review: bool = Field(
        default=False, description="Also ask Gemini to review a decision the checks passed."
    )
    tenant_runs_per_minute: int = Field(default=30, ge=1)
    tenant_daily_token_budget: int = Field(default=500_000, ge=0)

    # Memory Bank (services/memory): tenant policies override these defaults.
    memory_extractor: Literal["auto", "offline", "gemini"] = Field(
        default="auto", description="auto = Gemini when an API key is set, else offline."
    )
    memory_consolidator: Literal["similarity", "gemini"] = Field(
        default="similarity", description="gemini = the model decides against candidates."
    )
    memory_default_ttl_seconds: int | None = Field(default=None, ge=1)
    memory_revision_ttl_seconds: int | None = Field(default=365 * 24 * 3600, ge=1)
    memory_revisions_per_candidate_count: int = Field(default=1, ge=1, le=50)
    memory_third_person: bool = False
    memory_similarity_threshold: float = Field(default=0.75, gt=0.0, le=1.0)

    @property
    def resolved_home(self) -> Path:
        return self.home.expanduser().resolve()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_home / 'memdesk.db'}"

    @property
    def session_secret_path(self) -> Path:
        return self.resolved_home / "session.key"

    @property
    def audit_key_path(self) -> Path:
        return self.resolved_home / "audit.key"

    @property
    def chroma_path(self) -> Path:
        return self.resolved_home / "chroma"

    @property
    def use_gemini_span_reader(self) -> bool:
        if self.span_reader == "auto":
            return self.gemini_api_key is not None
        return self.span_reader == "gemini"

    @property
    def use_gemini_analyzer(self) -> bool:
        if self.analyzer == "auto":
            return self.gemini_api_key is not None
        return self.analyzer == "gemini"

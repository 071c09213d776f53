"""Settings come from MEMDESK_* variables; MEMDESK_HOME decides where embedded data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.settings import Settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("MEMDESK_"):
            monkeypatch.delenv(name)


def test_home_holds_the_sqlite_file_and_the_chroma_directory(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("MEMDESK_HOME", str(tmp_path / "desk"))
    settings = Settings()
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'desk' / 'memdesk.db'}"
    assert settings.chroma_path == tmp_path / "desk" / "chroma"


def test_default_home_is_var():
    assert Settings().home == Path("var")


@pytest.mark.parametrize(
    ("variable", "value", "attribute", "expected"),
    [
        ("MEMDESK_DATABASE_URL", "postgresql://db/x", "resolved_database_url", "postgresql://db/x"),
        ("MEMDESK_CHROMA_URL", "http://127.0.0.1:8000", "chroma_url", "http://127.0.0.1:8000"),
        ("MEMDESK_EMBEDDING_BACKEND", "hashing", "embedding_backend", "hashing"),
        ("MEMDESK_AUTH_MODE", "oidc", "auth_mode", "oidc"),
        ("MEMDESK_GEMINI_MODEL", "gemini-x", "gemini_model", "gemini-x"),
        ("MEMDESK_COMPLETED_TASK_RETENTION_DAYS", "30", "completed_task_retention_days", 30),
        ("MEMDESK_MAX_BODY_CHARS", "1000", "max_body_chars", 1000),
    ],
)
def test_every_setting_comes_from_its_environment_variable(
    monkeypatch, variable, value, attribute, expected
):
    monkeypatch.setenv(variable, value)
    assert getattr(Settings(), attribute) == expected


def test_the_gemini_key_is_secret_and_switches_the_analyzer(monkeypatch):
    assert not Settings().use_gemini_analyzer
    monkeypatch.setenv("MEMDESK_GEMINI_API_KEY", "k-123")
    settings = Settings()
    assert settings.use_gemini_analyzer
    assert "k-123" not in repr(settings)


def test_an_invalid_value_is_refused(monkeypatch):
    monkeypatch.setenv("MEMDESK_EMBEDDING_BACKEND", "word2vec")
    with pytest.raises(ValueError):
        Settings()

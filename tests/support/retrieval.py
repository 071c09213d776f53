"""Fixtures and helpers for retrieval tests (import the fixtures into a test module to use them)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from services import bootstrap
from services.bootstrap import Services
from services.core.clock import FakeClock
from services.core.principals import Principal
from services.db.models import DocumentVersion
from services.records.knowledge import content_hash
from services.retrieval.embedders import HashingEmbedder
from services.retrieval.types import Evidence
from services.settings import Settings
from tests.support.corpus import corpus_dict, write_corpus
from tests.support.ids import SequentialIds
from tests.support.vectors import InMemoryVectorStore

AS_OF = date(2026, 11, 29)


@pytest.fixture
def fake_store() -> InMemoryVectorStore:
    return InMemoryVectorStore()


@pytest.fixture
def fake_services(
    tmp_path: Path, sqlite_url: str, fake_store: InMemoryVectorStore
) -> Iterator[Services]:
    """Real SQLite, hand-written in-memory vector store, hashing embedder, fake clock."""
    settings = Settings(home=tmp_path / "home", database_url=sqlite_url)
    built = bootstrap.build(
        settings,
        clock=FakeClock(),
        ids=SequentialIds(),
        vector_store=fake_store,
        embedder=HashingEmbedder(),
    )
    yield built
    built.close()


def load(services: Services, tmp_path: Path, corpus: dict[str, Any] | None = None) -> Services:
    services.importer.import_file(write_corpus(tmp_path / "corpus.json", corpus or corpus_dict()))
    return services


def who(services: Services, user_id: str) -> Principal:
    return services.directory.principal(user_id)


def assert_citations_hold(
    services: Services, principal: Principal, evidence: list[Evidence]
) -> None:
    """Every citation re-slices the authoritative body to its quote, with a matching hash."""
    with services.db.read() as session:
        for item in evidence:
            row = session.scalar(
                select(DocumentVersion).where(
                    DocumentVersion.tenant_id == principal.tenant_id,
                    DocumentVersion.document_id == item.document_id,
                    DocumentVersion.version == item.version,
                )
            )
            assert row is not None, item.evidence_id
            assert row.body[item.start : item.end] == item.quote, item.evidence_id
            assert content_hash(row.body) == row.content_hash == item.content_hash


# ---- Chroma in server mode ---------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _chroma_executable() -> str:
    candidate = Path(sys.executable).with_name("chroma")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("chroma")
    if found is None:
        raise RuntimeError("the `chroma` command (from the chromadb package) is not installed")
    return found


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`chroma run` on a loopback port for the whole session; stopped afterwards."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    path = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log = (path / "server.log").open("w")
    process = subprocess.Popen(
        [
            _chroma_executable(),
            "run",
            "--path",
            str(path / "data"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # poll readiness; the test must not start before the server answers
            if process.poll() is not None:
                raise RuntimeError(f"chroma run exited: {(path / 'server.log').read_text()}")
            try:
                chromadb.HttpClient(
                    host="127.0.0.1", port=port, settings=ChromaSettings(anonymized_telemetry=False)
                ).heartbeat()
                break
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()

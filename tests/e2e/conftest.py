"""A real console for browser tests: a freshly seeded store, `streamlit run app.py` on a free
loopback port, and Debian Chromium driven by Playwright. Missing Chromium fails, never skips."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright
from sqlalchemy import delete

from services import bootstrap
from services.db.models import LocalCredential
from services.settings import Settings
from tests.e2e import xss

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "test-artifacts"
# Every run saves its screenshots; `make screenshots` points this at docs/screenshots (the README's)
# so an ordinary test run never rewrites tracked files.
SCREENSHOTS = Path(os.environ.get("MEMDESK_SCREENSHOTS_DIR") or ARTIFACTS / "screenshots")
# Waits are on elements and conditions; this is only how long a condition may take at most.
TIMEOUT_MS = 60_000
SERVER_START_S = 90.0
# Assertions wait as long as actions do: a loaded 2-core CI machine renders slowly.
expect.set_options(timeout=TIMEOUT_MS)
LOOPBACK = {"127.0.0.1", "localhost"}
# The XSS corpus makes this more than the demo store, where the published demo password is
# refused (README, Production): the fixture gives every demo user this one instead.
PASSWORD = "e2e-browser-password"
ENV_CLEARED = (
    "MEMDESK_DATABASE_URL",
    "MEMDESK_CHROMA_URL",
    "MEMDESK_GEMINI_API_KEY",
    "MEMDESK_AUTH_MODE",
    "MEMDESK_EMBEDDING_BACKEND",
)


@dataclass(frozen=True)
class Console:
    url: str
    home: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ENV_CLEARED}
    env.update(MEMDESK_HOME=str(home), MEMDESK_ANALYZER="offline", PYTHONUNBUFFERED="1")
    return env


@pytest.fixture(scope="session")
def seeded_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`memdesk seed-demo` plus the XSS document, imported with the corpus@1 importer."""
    home = tmp_path_factory.mktemp("e2e") / "home"
    # The same embedded store the server will open, whatever MEMDESK_* the caller exported.
    settings = Settings(
        home=home,
        analyzer="offline",
        database_url=None,
        chroma_url=None,
        embedding_backend="use",
        gemini_api_key=None,
        auth_mode="local",
    )
    services = bootstrap.build(settings)
    try:
        bootstrap.seed_demo(services)
        corpus = home.parent / "xss-corpus.json"
        corpus.write_text(json.dumps(xss.corpus(), ensure_ascii=False), encoding="utf-8")
        services.importer.import_file(corpus, actor="system:e2e")
        services.index.sync()
        # Seeded passwords are replaced the way seed-demo gives them (unaudited), so the audit
        # log and its screenshot show only what the browser tests do.
        with services.db.write() as session:
            session.execute(delete(LocalCredential))
        users = [account.user_id for account in services.accounts.all_accounts()]
        services.accounts.ensure_password(users, PASSWORD, actor="system:e2e")
    finally:
        services.close()  # the server opens the Chroma directory next; one client at a time
    return home


class _ServerLog:
    """Drains the server's output into a file on a thread and signals when it is listening."""

    READY = b"You can now view your Streamlit app"

    def __init__(self, server: subprocess.Popen[bytes], path: Path) -> None:
        self.path = path
        self.ready = threading.Event()
        self.ended = threading.Event()
        self._thread = threading.Thread(target=self._drain, args=(server,), daemon=True)
        self._thread.start()

    def _drain(self, server: subprocess.Popen[bytes]) -> None:
        assert server.stdout is not None
        with self.path.open("wb") as log:
            for line in server.stdout:
                log.write(line)
                log.flush()
                if self.READY in line:
                    self.ready.set()
        self.ended.set()
        self.ready.set()  # wake the waiter: the server died before it was ready

    def text(self) -> str:
        return self.path.read_text(errors="replace")


@pytest.fixture(scope="session")
def console(seeded_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Console]:
    port = _free_port()
    command = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.headless", "true",
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    server = subprocess.Popen(
        command,
        cwd=ROOT,
        env=_environment(seeded_store),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    log = _ServerLog(server, tmp_path_factory.mktemp("e2e-log") / "streamlit.log")
    url = f"http://127.0.0.1:{port}"
    try:
        if not log.ready.wait(timeout=SERVER_START_S) or log.ended.is_set():
            pytest.fail(f"streamlit did not start (exit {server.poll()}):\n{log.text()}")
        health = httpx.get(f"{url}/_stcore/health", timeout=10.0)
        assert health.status_code == 200, health.text
        yield Console(url=url, home=seeded_store)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.ended.wait(timeout=10)
        # Kept for a failed run's post-mortem (test-artifacts/ is git-ignored).
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "e2e-streamlit.log").write_text(log.text(), encoding="utf-8")


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        # Never a skip: a browser test that cannot run is a failed test (CI installs chromium).
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (CI={os.getenv('CI')})")
    launched = playwright.chromium.launch(
        executable_path=str(CHROMIUM),
        args=[
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ],
    )
    yield launched
    launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh browser context per test: its own cookies, so its own Streamlit session."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="zh-TW")
    context.set_default_timeout(TIMEOUT_MS)
    # The tests stay offline: anything not served by the console on loopback is aborted (the
    # `request` event still fires first, so a test can see that it was attempted).
    context.route(lambda url: urlsplit(url).hostname not in LOOPBACK, lambda route: route.abort())
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture(scope="session")
def screenshots() -> Path:
    directory = SCREENSHOTS if SCREENSHOTS.is_absolute() else ROOT / SCREENSHOTS
    directory.mkdir(parents=True, exist_ok=True)
    return directory

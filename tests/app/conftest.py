"""AppTest fixtures: one demo store seeded per session, copied for each test that writes."""

from __future__ import annotations

import functools
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qsl

import pytest
from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from app_pages import _session

APP = str(Path(__file__).resolve().parents[2] / "app.py")
# Generous: the first run in a process loads the embedder; later runs take about a second.
TIMEOUT = 120
ENV_CLEARED = (
    "MEMDESK_DATABASE_URL",
    "MEMDESK_CHROMA_URL",
    "MEMDESK_GEMINI_API_KEY",
    "MEMDESK_AUTH_MODE",
    "MEMDESK_EMBEDDING_BACKEND",
)


# Every AppTest's first run scans the metadata of every installed distribution for Streamlit
# components (about a second each, most of a page test). The installed packages cannot change
# during a test session, so the scan runs once per process and each AppTest gets its result.
_scan_once = functools.cache(manifest_scanner.scan_component_manifests)


@pytest.fixture(autouse=True)
def _component_scan_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # AppTest runs with .streamlit/config.toml's enforceSerializableSessionState on, as the real
    # server does: pages pass plain options or module-level format functions, never lambdas.
    monkeypatch.setattr(manifest_scanner, "scan_component_manifests", _scan_once)


def _use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for name in ENV_CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MEMDESK_HOME", str(home))
    monkeypatch.setenv("MEMDESK_ANALYZER", "offline")


def _release() -> None:
    """Close the services the console cached for this store, then forget them."""
    _session.services().close()
    _session._services.clear()


@pytest.fixture
def home(seeded_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private copy of the seeded store, selected through MEMDESK_HOME (tests that write)."""
    copy = tmp_path / "home"
    shutil.copytree(seeded_home, copy)
    _use_home(monkeypatch, copy)
    yield copy
    _release()


@pytest.fixture(scope="module")
def shared_home(seeded_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One copy for a module of tests that only read."""
    copy = tmp_path_factory.mktemp("shared") / "home"
    shutil.copytree(seeded_home, copy)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _use_home(monkeypatch, copy)
        yield copy
        _release()


def app() -> AppTest:
    return AppTest.from_file(APP, default_timeout=TIMEOUT)


def session_token(user_id: str) -> str:
    """A console session opened for `user_id`, as the login form opens one."""
    services = _session.services()
    return services.sessions.open(services.directory.principal(user_id)).token


def as_user(at: AppTest, user_id: str) -> AppTest:
    """`at` with `user_id` logged in (the token in session state, as after the login form)."""
    at.session_state[_session.Keys.SESSION] = session_token(user_id)
    return at


def logged_in(user_id: str) -> AppTest:
    """The app for a session in which `user_id` has logged in (the form is tested apart)."""
    return as_user(app(), user_id).run()


def visit(at: AppTest, page: str, **params: str) -> AppTest:
    """Open `/<page>?<params>` in this session, as a link or a typed URL would."""
    at.switch_page(f"app_pages/{page}.py")
    at.query_params = dict(params)
    return at.run()


def links(at: AppTest) -> list[tuple[str, str, dict[str, str]]]:
    """Every page link drawn: (label, page, query parameters)."""
    found = []
    for element in at.get("page_link"):
        proto = element.proto  # type: ignore[attr-defined]
        query = dict(parse_qsl(proto.query_string))
        found.append((proto.label, proto.page, query))
    return found


def follow(at: AppTest, label: str) -> AppTest:
    """Follow the first link whose label contains `label` (its page and query string)."""
    for text, page, query in links(at):
        if label in text:
            name = Path(page).stem if page.endswith(".py") else page.strip("/")  # a url path
            return visit(at, name, **query)
    raise AssertionError(f"no link {label!r} in {[text for text, _, _ in links(at)]}")


def texts(at: AppTest) -> str:
    """Everything the page wrote as Markdown/text, for assertions on what a person sees."""
    parts = [m.value for m in at.markdown] + [t.value for t in at.title]
    parts += [str(e.value) for e in at.error] + [str(i.value) for i in at.info]
    parts += [str(w.value) for w in at.warning] + [str(c.value) for c in at.caption]
    return "\n".join(parts)


def plain(at: AppTest) -> str:
    """`texts` with Markdown escapes removed: the words as a person reads them."""
    return re.sub(r"\\(.)", r"\1", texts(at))

"""The console's .streamlit/config.toml is production-safe and names only real Streamlit options."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from streamlit import config as st_config

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


@pytest.fixture(scope="module")
def options() -> dict[str, Any]:
    parsed = tomllib.loads(CONFIG.read_text(encoding="utf-8"))
    return {
        f"{section}.{name}": value
        for section, values in parsed.items()
        for name, value in values.items()
    }


def test_every_option_is_known_to_the_installed_streamlit(options):
    st_config.get_config_options()
    unknown = sorted(set(options) - set(st_config._config_options))
    assert options and unknown == []


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("server.enableXsrfProtection", True),
        ("server.enableCORS", True),
        ("server.headless", True),
        ("client.showErrorDetails", "type"),
        ("runner.enforceSerializableSessionState", True),
        ("browser.gatherUsageStats", False),
        ("client.toolbarMode", "viewer"),
    ],
)
def test_security_relevant_options_are_set(options, option, expected):
    assert options[option] == expected


def test_uploads_are_small(options):
    assert 1 <= options["server.maxUploadSize"] <= 10


def test_show_error_details_value_is_one_streamlit_accepts(options):
    # "type": exception type and a generic message in the browser, details only in the log.
    st_config.get_config_options()
    description = st_config._config_options["client.showErrorDetails"].description or ""
    assert f'"{options["client.showErrorDetails"]}"' in description

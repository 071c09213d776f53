"""One supplement limit for every path that asks for a run: the console's desk, `memdesk resume`
and the runs queue itself refuse a longer one before anything is queued (exit 2 naming it)."""

from __future__ import annotations

import pytest

from services.agents.supplements import MAX_SUPPLEMENT_CHARS, checked_supplement
from services.core.errors import InvalidInput
from tests.conftest import principal
from tests.integration.test_resume_q42_cli import memdesk

TOO_LONG = "客" * (MAX_SUPPLEMENT_CHARS + 1)


def test_resume_from_the_cli_refuses_a_supplement_over_the_limit(loaded, settings):
    sales = principal(loaded, "a.sales")
    before = loaded.tasks.get(sales, "Q42").state.revision
    done = memdesk(settings, "resume", "--as", "a.sales", "Q42", "--supplement", TOO_LONG)
    assert done.exit_code == 2, done.output
    assert f"supplement: {MAX_SUPPLEMENT_CHARS + 1} characters, at most" in done.stderr
    assert loaded.runs.search(sales, task_id="Q42") == []  # nothing was queued
    assert loaded.tasks.get(sales, "Q42").state.revision == before


def test_the_runs_queue_refuses_it_whoever_asks(loaded):
    with pytest.raises(InvalidInput, match="supplement: "):
        loaded.runs.enqueue(principal(loaded, "a.sales"), "Q42", supplement=TOO_LONG)


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (None, None),
        ("   ", None),
        ("  請接著處理。 ", "請接著處理。"),
        ("x" * MAX_SUPPLEMENT_CHARS, "x" * MAX_SUPPLEMENT_CHARS),
        (" " * 10 + "x" * MAX_SUPPLEMENT_CHARS + "\n", "x" * MAX_SUPPLEMENT_CHARS),
    ],
)
def test_the_limit_counts_the_trimmed_text(given, stored):
    assert checked_supplement(given) == stored

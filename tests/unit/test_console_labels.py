"""The console's one label table: every status, run step and event type the services produce
has a label in both languages, and an unlisted value is humanised, never shown raw."""

from __future__ import annotations

import re

import pytest

from app_pages import _labels
from services.approvals.store import APPROVED, PENDING, REJECTED, WITHDRAWN
from services.contracts.corpus import DocStatus
from services.contracts.decision import DecisionStatus, NextAction
from services.contracts.task_state import TaskStatus
from services.desk.progress import Standing
from services.publishing.candidates import REVISED

CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")
RUN_STATUSES = ("queued", "running", "succeeded", "failed", "dead_letter", "cancelled")
STANDINGS = Standing.__args__  # type: ignore[attr-defined]


def bilingual(text: str) -> bool:
    return bool(CJK.search(text) and LATIN.search(text))


@pytest.mark.parametrize(
    "value",
    sorted(
        {
            *(s.value for s in TaskStatus),
            *(s.value for s in DocStatus),
            *(s.value for s in DecisionStatus),
            *(a.value for a in NextAction),
            *RUN_STATUSES,
            PENDING,
            APPROVED,
            REJECTED,
            WITHDRAWN,
            REVISED,
            "published",
            *(s for s in STANDINGS if s != "none"),
        }
    ),
)
def test_every_status_has_a_bilingual_label(value):
    assert value in _labels.STATUS
    assert bilingual(_labels.status(value)), _labels.status(value)


@pytest.mark.parametrize("step", sorted(_labels.RUN_STEP))
def test_run_steps_and_events_read_in_both_languages(step):
    assert bilingual(_labels.run_step(step))


@pytest.mark.parametrize(
    "kind",
    [
        "created",
        "transition",
        "updated",
        "conflict",
        "conflict_resolved",
        "source_conflict_settled",
        "source_conflict_escalated",
        "run_queued",
        "run_finished",
        "decision",
    ],
)
def test_every_timeline_event_has_a_bilingual_label(kind):
    assert bilingual(_labels.event(kind))


def test_unlisted_values_are_humanised_not_shown_raw():
    assert _labels.status("on_hold_for_customer") == "on hold for customer"
    assert _labels.run_step("index_rebuilt") == "index rebuilt"
    assert _labels.status(None) == "—"


def test_field_keys_read_as_words_from_the_glossary():
    assert _labels.field("material") == "材質 material"
    assert _labels.field("special_inspection").startswith("特殊檢驗")
    assert _labels.field("calibration_interval") == "校正週期 calibration interval"
    assert _labels.field("fixture_lead_time_note") == "fixture lead time note"  # unlisted
    assert _labels.fields([]) == "—"

"""The task lifecycle (docs/product.md §2): main path, exceptional exits, what is refused."""

import itertools

import pytest

from services.contracts.task_state import TERMINAL, TRANSITIONS, TaskStatus, can_transition

S = TaskStatus
MAIN = [S.created, S.restoring, S.retrieving, S.analyzing, S.reviewing, S.awaiting_approval]
MAIN_PATH = [*MAIN, S.completed]


@pytest.mark.parametrize(("source", "target"), list(itertools.pairwise(MAIN_PATH)))
def test_the_main_path_moves_forward_one_step_at_a_time(source, target):
    assert can_transition(source, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (S.created, S.completed),
        (S.created, S.analyzing),
        (S.retrieving, S.awaiting_approval),
        (S.analyzing, S.completed),
        (S.reviewing, S.completed),  # a person approves first
        (S.waiting_input, S.completed),
        (S.failed, S.completed),
        (S.blocked, S.awaiting_approval),
        (S.completed, S.restoring),
        (S.cancelled, S.restoring),
    ],
)
def test_skipping_ahead_or_reopening_is_refused(source, target):
    assert not can_transition(source, target)


@pytest.mark.parametrize("terminal", sorted(TERMINAL))
def test_completed_and_cancelled_are_final(terminal):
    assert TRANSITIONS[terminal] == frozenset()


@pytest.mark.parametrize("stage", MAIN[1:5])
def test_working_stages_can_wait_for_input_retry_block_fail_or_cancel(stage):
    for target in (S.waiting_input, S.retrying, S.blocked, S.failed, S.cancelled):
        assert can_transition(stage, target)


def test_only_awaiting_approval_leads_to_completed():
    assert [s for s in TaskStatus if S.completed in TRANSITIONS[s]] == [S.awaiting_approval]


def test_every_status_is_reachable_from_created():
    reached, frontier = {S.created}, [S.created]
    while frontier:
        for target in TRANSITIONS[frontier.pop()] - reached:
            reached.add(target)
            frontier.append(target)
    assert reached == set(TaskStatus)

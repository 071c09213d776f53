"""Named domain errors; pages turn them into st.error, the CLI into exit codes."""

from __future__ import annotations

from datetime import datetime
from typing import Any


class MemdeskError(Exception):
    """Base of every domain error. `bad_input` errors exit the CLI with code 2."""

    bad_input = False


class NotFound(MemdeskError):
    """The record does not exist *for this principal* (other tenants look exactly the same)."""

    bad_input = True

    def __init__(self, kind: str, key: str) -> None:
        super().__init__(f"{kind} not found: {key}")
        self.kind = kind
        self.key = key


class NotAuthorized(MemdeskError):
    """The principal exists and may see the record but may not perform this action."""

    bad_input = True


class AccountLocked(NotAuthorized):
    """Too many wrong passwords: the account refuses logins until `until` (UTC)."""

    def __init__(self, until: datetime) -> None:
        super().__init__(f"account locked until {until:%Y-%m-%d %H:%M} UTC")
        self.until = until


class InvalidInput(MemdeskError):
    """Input failed validation; the message names the record and field."""

    bad_input = True

    def __init__(self, message: str, *, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems or [message]


class StaleRevision(MemdeskError):
    """A write carried an expected_revision that is no longer current."""

    def __init__(self, *, task_id: str, expected: int, current: int) -> None:
        super().__init__(
            f"task {task_id}: expected revision {expected} but it is now {current}; "
            "reload and retry"
        )
        self.task_id = task_id
        self.expected = expected
        self.current = current


class IllegalTransition(MemdeskError):
    bad_input = True

    def __init__(self, *, subject: str, source: str, target: str) -> None:
        super().__init__(f"{subject}: illegal transition {source} → {target}")
        self.source = source
        self.target = target


class ConfirmedFieldConflict(MemdeskError):
    """A write tried to change a confirmed field; a person must settle it."""

    def __init__(self, *, task_id: str, field: str, confirmed: Any, proposed: Any) -> None:
        super().__init__(
            f"task {task_id}: field '{field}' is confirmed as {confirmed!r}; "
            f"the new value {proposed!r} is recorded as a conflict, not applied"
        )
        self.task_id = task_id
        self.field = field
        self.confirmed = confirmed
        self.proposed = proposed


class IdempotencyConflict(MemdeskError):
    """The same idempotency key arrived with a different payload."""

    bad_input = True


class IndexUnavailable(MemdeskError):
    """The vector index could not be reached within the bounded retries."""


class LegalHold(MemdeskError):
    """The record is under legal hold and cannot be removed or expired."""

    bad_input = True


class RetriesExhausted(MemdeskError):
    """Every allowed attempt failed; the work goes to a dead letter and a person takes over."""

    def __init__(self, *, what: str, attempts: int, last_error: BaseException) -> None:
        super().__init__(f"{what} failed after {attempts} attempt(s): {last_error}")
        self.what = what
        self.attempts = attempts
        self.last_error = last_error


class BudgetExceeded(MemdeskError):
    """A tenant's rate limit or token budget refuses more work for now."""


class DatabaseUnavailable(MemdeskError):
    """The database connection was lost mid-transaction; the transaction was rolled back and
    the work may be tried again on a fresh connection."""


class StorageRefused(MemdeskError):
    """The database refused to write (read-only file, disk full); nothing was changed."""


class ReadOnlyStore(StorageRefused):
    """The store cannot be written by this process (a read-only file, directory or database):
    nothing was changed, reads still work; the operator fixes it, so the CLI exits 2."""

    bad_input = True

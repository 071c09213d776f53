"""The inbox pages in SQL: 10,000 extra tasks render one page of rows, searchable and filterable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import insert

from app_pages import _session
from services.db.models import TaskRow
from tests.app.conftest import links, logged_in, texts, visit

EXTRA = 10_000


def add_tasks(count: int) -> None:
    start = datetime(2030, 1, 1, tzinfo=UTC)  # later than the seeded demo tasks
    rows = [
        {
            "tenant_id": "A",
            "task_id": f"T-{n:05d}",
            "revision": 1,
            "status": "completed" if n % 10 == 0 else "waiting_input",
            "confirmed": {"material": "SUS304"},
            "pending": [] if n % 10 == 0 else ["drawing"],
            "next_step": None if n % 10 == 0 else f"request drawing rev {n}",
            "evidence_ids": [],
            "conflicts": [],
            "created_by": "a.sales",
            "created_at": start,
            "updated_at": start + timedelta(minutes=n),
            "legal_hold": False,
        }
        for n in range(count)
    ]
    with _session.services().db.write() as session:
        session.execute(insert(TaskRow), rows)


def open_buttons(at) -> list[str]:
    """The inbox's row links, as `inbox.open.<task id>` (each opens /task?id=<task id>)."""
    return [
        f"inbox.open.{query['id']}"
        for label, page, query in links(at)
        if label == "開啟 Open" and page == "task"
    ]


def tenant_a_tasks() -> int:
    sales = _session.services().directory.principal("a.sales")
    return sum(_session.services().tasks.status_counts(sales).values())


def test_ten_thousand_tasks_render_one_page_and_page_on(home):
    demo = tenant_a_tasks()
    add_tasks(EXTRA)
    at = logged_in("a.sales")
    assert not at.exception
    first = open_buttons(at)
    assert len(first) == 25
    assert first[0] == "inbox.open.T-09999"  # newest activity first
    assert f"{EXTRA + demo} 件任務 tasks · 第 1 頁 page" in texts(at)
    at.button(key="inbox.next").click().run()
    second = open_buttons(at)
    assert len(second) == 25 and not set(first) & set(second)
    assert second[0] == "inbox.open.T-09974"


def test_search_and_status_filter_narrow_the_inbox_in_sql(home):
    add_tasks(EXTRA)
    at = logged_in("a.sales")
    at.text_input(key="inbox.search").input("T-0999").run()
    assert open_buttons(at)[:3] == [
        "inbox.open.T-09999",
        "inbox.open.T-09998",
        "inbox.open.T-09997",
    ]
    assert "10 件任務 tasks" in texts(at)
    at.text_input(key="inbox.search").input("drawing rev 4242").run()
    assert open_buttons(at) == ["inbox.open.T-04242"]
    at.text_input(key="inbox.search").input("").run()
    at.multiselect(key="inbox.status").select("completed").run()
    assert f"{EXTRA // 10} 件任務 tasks" in texts(at)
    assert all(int(key[-5:]) % 10 == 0 for key in open_buttons(at))


def test_a_filter_change_starts_again_from_the_first_page(home):
    add_tasks(100)
    at = logged_in("a.sales")
    at.button(key="inbox.next").click().run()
    assert "第 2 頁 page" in texts(at)
    at.multiselect(key="inbox.status").select("waiting_input").run()
    assert "第 1 頁 page" in texts(at)


def test_rows_name_customer_and_part_and_the_counts_follow_the_search(shared_home):
    at = logged_in("a.sales")
    row = next(
        i for i, m in enumerate(at.markdown) if m.value == "Q43"
    )  # the task id cell, then customer and part
    assert [m.value for m in at.markdown[row + 1 : row + 3]] == ["C\\-ACME", "PN\\-7731\\-B"]
    everything = texts(at)
    at.text_input(key="inbox.search").input("C-ORION").run()
    narrowed = texts(at)
    assert "2 件任務 tasks" in narrowed  # Q46 and Q48 name that customer
    assert set(open_buttons(at)) == {"inbox.open.Q46", "inbox.open.Q48"}
    counts = next(line for line in narrowed.splitlines() if "件任務 tasks" in line)
    assert sum(int(part.rsplit(" ", 1)[1]) for part in counts.split(" · ")[2:]) == 2
    assert counts != next(line for line in everything.splitlines() if "件任務 tasks" in line)


def add_dated(task_id: str, due: object, *, status: str = "waiting_input") -> None:
    confirmed: dict[str, object] = {"customer_id": "C-ACME", "part_number": f"PN-{task_id}"}
    if due is not None:
        confirmed["due_date"] = due
    at = datetime(2031, 1, 1, tzinfo=UTC)  # newest, so on the first page
    with _session.services().db.write() as session:
        session.execute(
            insert(TaskRow),
            [
                {
                    "tenant_id": "A",
                    "task_id": task_id,
                    "revision": 1,
                    "status": status,
                    "confirmed": confirmed,
                    "pending": [],
                    "next_step": None,
                    "evidence_ids": [],
                    "conflicts": [],
                    "created_by": "a.sales",
                    "created_at": at,
                    "updated_at": at,
                    "legal_hold": False,
                    "customer_id": "C-ACME",
                }
            ],
        )


def when_cell(at, task_id: str) -> str:
    """The row's due / last-activity cell (the seventh, after task id and five more)."""
    row = next(i for i, m in enumerate(at.markdown) if m.value == _escaped(task_id))
    return at.markdown[row + 6].value


def _escaped(task_id: str) -> str:
    return task_id.replace("-", "\\-")


def test_a_confirmed_due_date_shows_as_due_and_overdue_otherwise_last_activity(home):
    add_dated("D-LATE", "2020-03-01")
    add_dated("D-SOON", "2999-03-01")
    add_dated("D-DONE", "2020-03-01", status="completed")
    add_dated("D-WORDS", "月底前 end of month")
    add_dated("D-NONE", None)
    at = logged_in("a.sales")
    assert "到期／活動 Due / activity" in texts(at)
    assert when_cell(at, "D-LATE") == "到期 Due **2020-03-01** :red-badge[逾期 Overdue]"
    assert when_cell(at, "D-SOON") == "到期 Due **2999-03-01**"
    assert when_cell(at, "D-DONE") == "到期 Due **2020-03-01**"  # done: nothing is overdue
    assert when_cell(at, "D-WORDS").startswith("到期 Due **月底前 end of month")
    assert when_cell(at, "D-NONE") == "2031-01-01 00:00"  # no due date: its last activity
    # On the task page the field reads in both languages.
    visit(at, "task", id="D-LATE")
    assert "**到期日 due date** = 2020\\-03\\-01" in texts(at)

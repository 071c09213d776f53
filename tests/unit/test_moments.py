"""Dates and times of day as values (services.retrieval.moments), on text from several corpora."""

from __future__ import annotations

import pytest

from services.language import tokens
from services.retrieval import facts
from services.retrieval.moments import moments


def _values(text: str) -> list[tuple[str, str]]:
    return [(m.measure, m.canonical) for m in moments(text)]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # itdesk (Simplified): a freeze period every year, and the same one in one year's calendar
        ("- 年末封网：每年 12 月 24 日 00:00 至次年 1 月 3 日 24:00。", [("date", "12-24~01-03")]),
        (
            "- 年末封网：2026 年 12 月 20 日 00:00 至 2027 年 1 月 3 日 24:00。",
            [("date", "12-20~01-03")],
        ),
        # itdesk: a window that ends on the next day, and trading hours with an en dash
        (
            "生产变更原则上在工作日 22:00 至次日 06:00 之间执行；"
            "须避开交易时段（工作日 9:00–15:30）。",
            [("clock", "22:00~06:00"), ("clock", "09:00~15:30")],
        ),
        # chatlog (English): a contract's receiving hours and a site visit's
        (
            "deliveries and pickups at the Ogden terminal are accepted Monday through Friday, "
            "7:00 to 15:00, at the scale house.",
            [("clock", "07:00~15:00")],
        ),
        ("Receiving hours per Jolene: Monday-Friday 6:00-13:00.", [("clock", "06:00~13:00")]),
        ("Push all three units four weeks - Monday, December 7th.", [("date", "12-07")]),
        # CMRC 2018 (Simplified): a range whose end leaves out the year
        ("决赛周于2008年5月28日至6月8日于越南胡志明市举行", [("date", "05-28~06-08")]),
        # hrlegal (Traditional): Republic of China era years
        ("防水工程：112年10月15日至117年10月14日", [("date", "10-15~10-14")]),
        # English forms: am/pm, day before month, ISO
        (
            "Open 7am-3pm; the office closes on 20 Dec 2026.",
            [("clock", "07:00~15:00"), ("date", "12-20")],
        ),
        (
            "Call log, Tuesday 2026-11-03, 8:40-9:02 AM.",
            [("date", "11-03"), ("clock", "08:40~09:02")],
        ),
    ],
)
def test_dates_and_times_of_day_are_read_with_ranges_as_one_value(text, values):
    assert _values(text) == values


@pytest.mark.parametrize(
    "text",
    [
        "13:50 Jolene: Receiving hours changed this fall.",  # chatlog: a log's timestamp
        "09:12 SSO 签名证书过期，客户端登录全部失败；",  # itdesk: a post-mortem's timeline stamp
        "瀾河鐵橋 1:100 鋼桁架橋模型",  # museum: a scale, not a time
        "Boom lifts and telehandlers: PM every 250 engine hours.",  # a bare number is no time
        "2026 年度服务订购单",  # a year alone is no date
    ],
)
def test_what_is_not_a_date_or_a_time_of_day(text):
    assert _values(text) == []


def test_a_range_that_opens_a_text_is_a_value_not_a_timestamp():
    assert _values("7:00 to 15:00, at the scale house") == [("clock", "07:00~15:00")]


@pytest.mark.parametrize(
    "text",
    [
        "③ 值班交接清單增加到期證書一項，每 ② 週檢查",  # circled numbers are digits once normalised
        "Frozen storage at −18 °C for ²⁄₃ of the run",
        "１２月２４日起封網",  # full-width digits
    ],
)
def test_digits_written_otherwise_are_digits(text):
    # A text is skipped by the quantity, date and time patterns only when it has no digit
    # even after NFKC; these have one, and what they state is read as before.
    assert tokens.has_digit(text)


def test_a_text_without_digits_states_no_quantity_date_or_time():
    for text in (
        "計劃性停水或停電，管理處須以書面通告通知全體受影響住戶。",
        "Stop the line and quarantine all exposed product.",
        "二〇二六年十二月二十四日",  # dates in Chinese numerals are not read as dates anywhere
    ):
        assert not tokens.has_digit(text)
        assert moments(text) == []
        assert facts.extract_facts(text) == []
        assert facts.quantities(text) == []
        assert facts.quantity_units(text) == frozenset()


def test_a_circled_number_is_still_read_as_a_quantity():
    assert facts.quantities("每 ② 週檢查一次") == [("2", "week")]

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


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # hkrepair (Traditional, Hong Kong): a hotline's hours in two documents that disagree
        (
            "一、維修熱線 2388 6600 服務時間：星期一至六 上午 9 時至下午 6 時；"
            "星期日及公眾假期休息。",
            [("clock", "09:00~18:00")],
        ),
        (
            "答：維修熱線 2388 6600，星期一至六 上午 9 時至晚上 7 時，星期日及公眾假期休息。",
            [("clock", "09:00~19:00")],
        ),
        # the end of a range takes the part of the day its start names (propmgmt: an estate's
        # house rules; hkrepair: a delivery slot)
        (
            "1. 住戶須將家居垃圾以膠袋包好綁緊，於每晚8時至9時放置於所屬樓層垃圾房。",
            [("clock", "20:00~21:00")],
        ),
        (
            "二、送貨時段：上午 10 時至下午 1 時，或下午 2 時至 6 時；",
            [("clock", "10:00~13:00"), ("clock", "14:00~18:00")],
        ),
        ("1. 每日晚上11時至翌日早上7時為靜音時段", [("clock", "23:00~07:00")]),
        # minutes written with 分 (propmgmt; hrlegal, a site's working hours), 晚間 to the next
        # morning (hrlegal's night-work allowance)
        ("1. 會所開放時間為每日早上6時30分至晚上10時30分。", [("clock", "06:30~22:30")]),
        ("工地作業時間原則為上午7時30分至下午4時30分，中午休息1小時。", [("clock", "07:30~16:30")]),
        ("（一）晚間10時至翌日上午6時施工者，每小時另發夜間施工津貼。", [("clock", "22:00~06:00")]),
        # museum: a time that a date names is part of the date
        (
            "1935 年（昭和 10 年）2 月 11 日凌晨 3 時許，榮町三丁目何記餅舖灶間失火",
            [("date", "02-11")],
        ),
        ("會議於下午 3 時 15 分開始，約7點半結束", [("clock", "15:15"), ("clock", "07:30")]),
        (
            "夜班由晚上 8 時至晚上 12 時，中午 12 時交更",
            [("clock", "20:00~24:00"), ("clock", "12:00")],
        ),
    ],
)
def test_chinese_times_of_day_are_read_with_their_part_of_the_day(text, values):
    assert _values(text) == values


@pytest.mark.parametrize(
    "text",
    [
        "三、Cpk 低於 1.0 時，該特性須 100% 全檢並開立矯正措施。",  # fastener: 時 is "when"
        "企業協議客戶：依協議書之取消條款；協議書未載明者適用第 1 點。",  # hotel: a clause number
        "膜厚量測以渦電流膜厚計每批抽測 5 件、每件 3 點，取平均值判定。",  # demo: points measured
    ],
)
def test_an_hour_without_its_part_of_the_day_or_minutes_is_a_number(text):
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

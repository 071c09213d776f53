"""Calendar dates and times of day a text states, as values two answers can be compared by.

facts.py reads quantities with a unit (25 µm, 48 hours) and leaves dates out: a date is no amount.
Yet two documents disagree on a date as surely as on a lead time — a year-end change freeze from
「12 月 24 日」 in one and from 「2026 年 12 月 20 日」 in the other, deliveries accepted "7:00 to
15:00" in a contract and "6:00-13:00" in a later site visit. Here each stated date or time of
day is one value of its measure:

* **date** — a month and day, written the Chinese way (「12 月 24 日」「2026年12月20日」
  「5月28号」), ISO (2026-12-20) or in English ("December 20", "20 Dec 2026"). The
  year is left out of the value: a rule that recurs every year (「每年 12 月 24 日」)
  and a calendar for one year state the same day when their months and days agree;
* **clock** — a time of day, "7:00", 「22:00」, "3 pm", "7:30 a.m.";
* a **range** of either ("7:00 to 15:00", 「12 月 20 日 00:00 至 2027 年 1 月 3 日 24:00」) is one
  value, from its start to its end: two freezes ending on the same day but starting on different
  days are different freezes.

A time of day that opens a text and is not a range is a log's timestamp ("13:50 Jolene: …"):
when something was said, not what it says. Nothing here depends on a dataset's wording: the
forms are those of the calendar and the clock in Chinese and English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.language import answer_types
from services.language import tokens as text_analysis

_MONTHS = {
    "jan": 1,
    "feb": 2,
    "mar": 3,
    "apr": 4,
    "may": 5,
    "jun": 6,
    "jul": 7,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
# A month written in English, in full or abbreviated (also read by relevance's years).
MONTH_NAME = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])"
_DATE = (
    # 「(2026 年) 12 月 24 日」「5月28号」
    rf"(?:\d{{2,4}}\s*年\s*)?(?P<cm>1[0-2]|0?[1-9])\s*月\s*(?P<cd>{_DAY})\s*[日号]"
    # 2026-12-20
    rf"|\d{{4}}-(?P<im>1[0-2]|0?[1-9])-(?P<id>{_DAY})(?!\d)"
    # December 20(th)(, 2026) / Dec. 20
    rf"|\b(?P<em>{MONTH_NAME})\.?\s+(?P<ed>{_DAY})(?:st|nd|rd|th)?\b(?:,?\s*\d{{4}}\b)?"
    # 20(th) December (2026)
    rf"|\b(?P<fd>{_DAY})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<fm>{MONTH_NAME})\b\.?(?:\s*\d{{4}}\b)?"
)
_MERIDIEM = r"(?:\s*(?P<{0}>a\.?m\.?|p\.?m\.?)(?![a-z]))"
# Chinese writes the part of the day before the hour and 时／点 after it (「上午 9 時」「晚上7點半」
# 「下午 3 时 15 分」; text is folded to Simplified first). An hour so written is a time of day
# only with its part of the day, its minutes, or as the end of a range that opens with one
# (「每晚8時至9時」): 「第 1 點」「每件 3 點」「低於 1.0 時」 are numbers.
_CJK_MORNING = answer_types.CJK_MORNING
_CJK_NOON = answer_types.CJK_NOON
_CJK_DAY_PARTS = "|".join(answer_types.CJK_DAY_PARTS)
_CLOCK = (
    r"(?:(?<![\d:.])(?P<{0}h>[01]?\d|2[0-4])[:：](?P<{0}m>[0-5]\d)(?![\d:])"
    + _MERIDIEM.format("{0}p")
    + r"?|(?<![\d:.])(?P<{0}h2>1[0-2]|0?[1-9])"
    + _MERIDIEM.format("{0}p2")
    + rf"|(?:(?P<{{0}}cp>{_CJK_DAY_PARTS})\s*)?(?<![\d.])(?P<{{0}}h3>[01]?\d|2[0-4])\s*[时点]"
    + r"(?:\s*(?P<{0}m3>[0-5]?\d)\s*分|(?P<{0}half>半))?"
    + ")"
)
# What joins the two ends of a range: "to", a dash, 至／到／~, "until", "through"; a Chinese
# range may name the day the end falls on (「至次日 06:00」「至次年 1 月 3 日」).
_JOIN = (
    rf"\s*(?:to|until|till|through|thru|-|–|—|~|～|至|到)\s*"
    rf"(?:(?!{_CJK_DAY_PARTS})[{text_analysis.CJK}]{{1,2}}\s*)?"
)
_DATE_AT = rf"(?:{_DATE})(?:\s*(?:{_CLOCK.format('x')}))?"
# The characters a date or a time of day can begin with (a digit, a month's initial, a Chinese
# part of the day's first character), tested first: the patterns are tried at every position
# of a text, and at almost every one they fail at once (the same matches, found faster).
_DATE_START = rf"(?=[\d{''.join(sorted({m[0] for m in _MONTHS}))}])"
_CLOCK_START = rf"(?=[\d{''.join(sorted({part[0] for part in answer_types.CJK_DAY_PARTS}))}])"
_DATE_RE = re.compile(_DATE_START + _DATE_AT.replace("(?P<", "(?P<a_"))
_DATE_RANGE = re.compile(
    _DATE_START + _DATE_AT.replace("(?P<", "(?P<a_") + _JOIN + _DATE_AT.replace("(?P<", "(?P<b_"),
)
_CLOCK_RE = re.compile(_CLOCK_START + _CLOCK.format("a"))
_CLOCK_RANGE = re.compile(_CLOCK_START + _CLOCK.format("a") + _JOIN + _CLOCK.format("b"))
_LEADING_SPACE = re.compile(r"\s*")

DATE = "date"
CLOCK = "clock"
MOMENTS = frozenset({DATE, CLOCK})


@dataclass(frozen=True)
class Moment:
    measure: str  # DATE or CLOCK
    value: tuple[int, ...]  # (start,) or (start, end): month*100+day, or minutes of the day
    start: int  # offsets in the normalised text
    end: int
    shown: str  # as written

    @property
    def canonical(self) -> str:
        """The value as one comparable string: 12-24, 12-20~01-03, 07:00~15:00."""
        return "~".join(_written(self.measure, part) for part in self.value)


def moments(text: str, *, normalized: bool = False) -> list[Moment]:
    """Every date and time of day `text` states (ranges as one value), in order; offsets are
    in `text` itself when it is `normalized` already, else in its normalised form."""
    if not text_analysis.has_digit(text):
        return []  # every date and time of day is written with digits
    norm = text if normalized else text_analysis.normalize(text)
    found: list[Moment] = []
    taken = [False] * len(norm)

    def keep(measure: str, value: tuple[int, ...], match: re.Match[str]) -> None:
        if any(taken[match.start() : match.end()]):
            return
        for i in range(match.start(), match.end()):
            taken[i] = True
        shown = norm[match.start() : match.end()].strip()
        found.append(Moment(measure, value, match.start(), match.end(), shown))

    for match in _DATE_RANGE.finditer(norm):
        first, last = _day(match, "a_"), _day(match, "b_")
        if first is not None and last is not None:
            keep(DATE, (first, last), match)
    for match in _DATE_RE.finditer(norm):
        day = _day(match, "a_")
        if day is not None:
            # the time a date names is part of that date's value, not a time of day of its own
            keep(DATE, (day,), match)
    for match in _CLOCK_RANGE.finditer(norm):
        first = _minutes(match, "a")
        last = _minutes(match, "b", opened=first is not None and match.group("ah3") is not None)
        if first is not None and last is not None:
            keep(CLOCK, (first, last), match)
    opening = _LEADING_SPACE.match(norm)
    opens_at = opening.end() if opening else 0
    for match in _CLOCK_RE.finditer(norm):
        minutes = _minutes(match, "a")
        if minutes is None or match.start() == opens_at:
            continue  # an hour with no minutes nor am/pm is a number; an opening time, a stamp
        keep(CLOCK, (minutes,), match)
    return sorted(found, key=lambda m: m.start)


def _day(match: re.Match[str], side: str) -> int | None:
    for month_group, day_group in (("cm", "cd"), ("im", "id"), ("em", "ed"), ("fm", "fd")):
        month, day = match.group(side + month_group), match.group(side + day_group)
        if month and day:
            number = int(month) if month.isdigit() else _MONTHS[month[:3]]
            return number * 100 + int(day)
    return None


def _minutes(match: re.Match[str], side: str, *, opened: bool = False) -> int | None:
    """Minutes after midnight; None for a bare hour ("7" alone is no time of day). `opened`: the
    end of a range whose start is a Chinese time of day, which lends it its part of the day."""
    if match.group(side + "h3") is not None:
        return _cjk_minutes(match, side, opened=opened)
    hour, minute, meridiem = match.group(side + "h"), match.group(side + "m"), None
    if hour is not None:
        meridiem = match.group(side + "p")
    else:
        hour, meridiem = match.group(side + "h2"), match.group(side + "p2")
        if hour is None or meridiem is None:
            return None
    number = int(hour)
    if meridiem:
        if number > 12:
            return None
        pm = meridiem.startswith("p")
        number = number % 12 + (12 if pm else 0)
    return number * 60 + int(minute or 0)


def _cjk_minutes(match: re.Match[str], side: str, *, opened: bool) -> int | None:
    part, minute = match.group(side + "cp"), match.group(side + "m3")
    half = match.group(side + "half")
    if part is None and minute is None and half is None and not opened:
        return None
    hour = int(match.group(side + "h3"))
    if part is not None and part not in _CJK_MORNING:
        if hour > 12:
            return None
        if hour < 12 and (part not in _CJK_NOON or hour < 11):
            hour += 12  # 下午 3 时, 晚上 7 点, 中午 1 点; 中午 12 点 is noon
        elif hour == 12 and part not in (*_CJK_NOON, "下午"):
            hour = 24  # 晚上 12 时 is midnight
    elif part is not None and hour > 12:
        return None  # 上午 15 时 is no time
    if opened and part is None and hour < 12 and match.group("acp") not in (None, *_CJK_MORNING):
        first = int(match.group("ah3"))
        hour += 12 if first <= hour or first == 12 else 0  # 每晚 8 时至 9 时: both in the evening
    return hour * 60 + (30 if half else int(minute or 0))


def _written(measure: str, part: int) -> str:
    if measure == DATE:
        return f"{part // 100:02d}-{part % 100:02d}"
    return f"{part // 60:02d}:{part % 60:02d}"

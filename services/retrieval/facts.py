"""Facts stated in evidence, and the rule that decides when two documents conflict.

A fact is a quantity that ends its clause, and the attribute phrase immediately before it:
「A6061-T6 硬陽極膜厚為 25 µm」 → (「a6061-t6 硬阳极膜厚」, µm) = 25;
"The calibration interval for handheld gauges is 6 months" → ("calibration interval handheld
gauge", month) = 6; a label such as 「交期：12 日」 makes the label the attribute.

Two facts conflict when they come from different documents, both `fact` class, in the same
customer scope, with the same unit and the same attribute but a different value. Attributes are
the same when their normalised phrases are equal, or, for Chinese/Japanese phrases (head-final),
when one ends with the other and the shared ending has at least four characters
(「耐蝕性驗證之中性鹽霧試驗時數」 and 「中性鹽霧試驗時數」). Dates and the digits inside part
numbers (SUS304, A6061-T6) are never quantities; a number written in words before a unit
(「每兩個月」, "two business days", "three (3) months") is one, read as its digits
(sentences.with_digits); an attribute needs at least four CJK characters or two words (「溫度」
alone names nothing specific).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from services.language import sentences, units
from services.language import tokens as text_analysis
from services.retrieval import moments

MIN_SHARED_CJK_SUFFIX = 4

# Canonical unit for each surface form (services.language.units); longer forms are tried first.
_UNITS = units.UNITS
_CURRENCIES = {
    "nt$": "TWD",
    "twd": "TWD",
    "us$": "USD",
    "usd": "USD",
    "eur": "EUR",
    "€": "EUR",
    "rmb": "CNY",
    "¥": "CNY",
    "$": "USD",
    "gbp": "GBP",
    "£": "GBP",
    "jpy": "JPY",
    "hk$": "HKD",
    "hkd": "HKD",
    "s$": "SGD",
    "sgd": "SGD",
    "a$": "AUD",
    "aud": "AUD",
    "cad": "CAD",
    "chf": "CHF",
    "cny": "CNY",
    # Chinese names a currency before its amount too (「港幣3,500元」, 「人民币 85,000 元」,
    # 「新臺幣3,000元」): the name, not the 元 after the amount, says which (as normalised).
    "港币": "HKD",
    "港元": "HKD",
    "人民币": "CNY",
    "新台币": "TWD",
    "台币": "TWD",
    "美元": "USD",
    "美金": "USD",
    "欧元": "EUR",
    "英镑": "GBP",
    "日元": "JPY",
    "日圆": "JPY",
}

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_CUR_ALT = "|".join(re.escape(c) for c in sorted(_CURRENCIES, key=len, reverse=True))
# What a quantity can begin with (a currency's first character, a bound, a space, a digit),
# tested first: the pattern is tried at every position of a text and fails at most of them.
_FACT_START = rf"(?=[{re.escape(''.join(sorted({c[0] for c in _CURRENCIES})))}±≤≥<>\s\d])"
_FACT = re.compile(
    rf"{_FACT_START}(?:(?P<cur>{_CUR_ALT})\s*)?(?P<qual>±|≤|≥|<|>)?\s*(?P<a>{_NUM})"
    rf"(?:\s*(?:至|到|~|～|-|–|—|to)\s*(?P<b>{_NUM}))?"
    rf"(?:\s*(?:{units.COUNTED_HOURS})?(?P<unit>{_UNIT_ALT})(?![a-z]))?"
)
_CJK_CHAR = re.compile(f"[{text_analysis.CJK}]")
_DATE = re.compile(  # every form begins with a digit, tested first
    r"(?=\d)(?:\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*日)?|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}"
    # a year of the Republic of China era with its month and day (「112年10月15日」), or a month
    # and day alone (「5月28日至6月8日」), is a date
    r"|(?:\d{2,3}\s*年\s*)?\d{1,2}\s*月\s*\d{1,2}\s*[日号])"
)
_CLAUSE_END = re.compile(r"[，。．;；:：、\n（）()「」【】\[\]]|,(?!\d{3}(?!\d))|\.(?=\s|$)")
_STATEMENT_END = re.compile(r"\s*(?:[/／]\S{1,3})?\s*(?:$|[，,。．.;；:：、!！?？)）\]」\n])")
MIN_CJK_CHARS = 4
MIN_WORDS = 2
# What links an attribute to its value or bounds it — copulas, modals and comparatives (不得超過,
# 最長, "no more than") — is not part of the attribute: 「放置時間不得超過 24 小時」 and
# 「放置時間為 48 小時」 state the same attribute.
_COPULA_TAIL = re.compile(
    r"(?:\s|為|为|是|約|约|達|达|需|須|须|應|应|得|不|超過|超过|高於|高于|低於|低于|大於|大于|小於|小于|"
    r"多於|多于|少於|少于|至少|至多|最多|最少|最長|最长|最短|最高|最低|以|=|"
    r"\bis\b|\bare\b|\bof\b|\bbe\b|\bmust not exceed\b|\bmust\b|\bexceed\b|\bnot\b|\babout\b|"
    r"\bapproximately\b|\bat least\b|\bat most\b|\bup to\b|\bfor\b|\bwithin\b|\bno\b|"
    r"\b(?:more|less|fewer|later|earlier|older|longer|shorter|greater) than\b|\bshall\b|\bmay\b)+$"
)
# 「承攬人應於接獲通知後 48 小時內派員到場」: a time limit followed by what must happen within it.
# The attribute is the event the limit counts from (after the preposition that introduces it,
# 於／在) and the action (「接獲通知後…派員到場」, not 「…處理」): who must act is left out, as two
# documents stating one duty name the party differently (承攬人, 供應商).
_WITHIN = re.compile(
    rf"\s*(?:以內|以内|之內|之内|內|内)(?P<action>[{text_analysis.CJK}]{{2,12}})"
    r"(?=\s*(?:$|[，,。．.;；:：、!！?？)）\]」\n]))"
)
_FRAME = re.compile("[於于在]")
_TIME_UNITS = frozenset({"working_day", "day", "hour", "minute", "week", "month", "year"})


@dataclass(frozen=True)
class Fact:
    attribute: str  # normalised attribute phrase
    unit: str
    value: str  # canonical value, e.g. "25", "8-12", "±0.01"
    start: int  # offsets of the quantity in the text it was read from
    end: int
    cjk: bool = False  # the attribute is written in CJK (compared by shared ending)

    @property
    def bucket(self) -> tuple[str, str]:
        """Facts that can be the same attribute share a bucket (same unit, same ending)."""
        tail = self.attribute[-MIN_SHARED_CJK_SUFFIX:] if self.cjk else self.attribute
        return self.unit, tail


def extract_facts(text: str) -> list[Fact]:
    if not _may_state(text):
        return []  # a fact's value is a number (a date's or a time's too)
    norm = _read(text)
    dated = _DATE.sub(lambda m: "#" * len(m.group()), norm)
    masked = _mask(norm)
    facts = []
    for match in _FACT.finditer(masked):
        unit = _unit(match, text)
        if unit is None:
            continue
        action = ""
        if not _STATEMENT_END.match(masked, match.end()):
            within = _WITHIN.match(masked, match.end()) if unit in _TIME_UNITS else None
            if within is None:
                continue  # 「每 20 件抽測一次」: the quantity is inside a longer predicate
            action = _clean(within.group("action"))
        # The attribute keeps its identifiers (「A6061-T6 硬陽極膜厚」); only the quantity search
        # needs them masked.
        attribute = _attribute(dated, match.start(), frame_only=bool(action)) + action
        if not _specific(attribute):
            continue
        facts.append(
            Fact(
                attribute=attribute,
                unit=unit,
                value=_value(match),
                start=match.start(),
                end=match.end(),
                cjk=bool(_CJK_CHAR.search(attribute)),
            )
        )
    return facts + _dated_facts(norm, dated)


def _dated_facts(norm: str, dated: str) -> list[Fact]:
    """Periods between two dates, and times of day, that end their clause, said of the phrase
    before them or, when that names nothing specific (「每年」, "Monday-Friday"), of the label
    their line gives them: 「年末封网：每年 12 月 24 日 00:00 至次年 1 月 3 日 24:00」 →
    (年末封网, date) = 12-24~01-03. A single date is left out: a label before one is mostly
    the document's own date (「報價日期」「生效日期」, "Issued"), which each document has its own
    of."""
    found = []
    stated = moments.moments(norm, normalized=True)
    blanked = list(dated)
    for moment in stated:  # no other time is part of what one is said of
        blanked[moment.start : moment.end] = "#" * (moment.end - moment.start)
    dated = "".join(blanked)
    for moment in stated:
        if moment.measure == moments.DATE and len(moment.value) == 1:
            continue  # a lone date is mostly the document's own (「報價日期」, "Issued")
        if not _STATEMENT_END.match(norm, moment.end):
            continue
        attribute = _attribute(dated, moment.start)
        if not _specific(attribute):
            attribute = _label_of(dated, moment.start)
        if not _specific(attribute):
            continue
        found.append(
            Fact(
                attribute=attribute,
                unit=moment.measure,
                value=moment.canonical,
                start=moment.start,
                end=moment.end,
                cjk=bool(_CJK_CHAR.search(attribute)),
            )
        )
    return found


def _label_of(masked: str, position: int) -> str:
    """The label before the colon that opens the clause holding `position`, if one does."""
    clause_start = 0
    for match in _CLAUSE_END.finditer(masked, 0, position):
        clause_start = match.end()
    if clause_start == 0 or masked[clause_start - 1] not in ":：":
        return ""
    label_start = 0
    for match in _CLAUSE_END.finditer(masked, 0, clause_start - 1):
        label_start = match.end()
    return _clean(_BULLET.sub("", masked[label_start : clause_start - 1]))


_BULLET = re.compile(r"^\s*[-–—•·*]+\s*")


def same_attribute(a: Fact, b: Fact) -> bool:
    if a.attribute == b.attribute:
        return True
    if not (a.cjk and b.cjk):
        return False
    shorter, longer = sorted((a.attribute, b.attribute), key=len)
    return len(shorter) >= MIN_SHARED_CJK_SUFFIX and longer.endswith(shorter)


def conflicting(a: Fact, b: Fact) -> bool:
    return a.unit == b.unit and a.value != b.value and same_attribute(a, b)


def aligned_normalize(text: str) -> tuple[str, list[int]]:
    """`normalize` character by character, with each output char's offset in the input."""
    joined = unicodedata.normalize("NFKC", text).casefold()
    if len(joined) == len(text):  # the common case: one output character per input character
        index = list(range(len(text)))
    else:
        pieces = [unicodedata.normalize("NFKC", ch).casefold() for ch in text]
        joined = "".join(pieces)
        index = [i for i, piece in enumerate(pieces) for _ in piece]
    converted = text_analysis.normalize_script(joined)
    return (converted if len(converted) == len(joined) else joined), index


def _may_state(text: str) -> bool:
    return text_analysis.has_digit(text) or sentences.spells_a_number(text)


def _read(text: str) -> str:
    """The normalised text, numbers written in words before a unit as digits (「兩個月」,
    "three (3) months"): offsets as `aligned_normalize`'s."""
    return sentences.with_digits(aligned_normalize(text)[0])


def _mask(norm: str) -> str:
    """Blank out dates and identifiers so their digits are not read as quantities."""
    masked = _DATE.sub(lambda m: "#" * len(m.group()), norm)
    for ident in text_analysis.identifiers_in(norm):
        for start, end in list(text_analysis.whole_tokens(masked, ident)):
            masked = f"{masked[:start]}{'@' * (end - start)}{masked[end:]}"
    return masked


def _specific(attribute: str) -> bool:
    """「溫度」 or "temperature" alone could be anything; a fact needs a specific attribute."""
    cjk = len(re.findall(f"[{text_analysis.CJK}]", attribute))
    return cjk >= MIN_CJK_CHARS or (cjk == 0 and len(attribute.split()) >= MIN_WORDS)


def _attribute(masked: str, position: int, *, frame_only: bool = False) -> str:
    """The phrase before the quantity in its clause (or the label before a colon); with
    `frame_only`, only what follows the clause's last 於／在 (the time frame, not who acts)."""
    clause_start = 0
    for match in _CLAUSE_END.finditer(masked, 0, position):
        clause_start = match.end()
    framed = clause_start
    if frame_only:
        for match in _FRAME.finditer(masked, clause_start, position):
            framed = match.end()
    phrase = _clean(masked[framed:position])
    if not phrase and framed == clause_start:
        phrase = _label_of(masked, position)  # "交期：12 日" — the label is the attribute
    return phrase


def _clean(phrase: str) -> str:
    phrase = phrase.replace("#", " ")
    phrase = _COPULA_TAIL.sub("", phrase.strip()).strip()
    if re.search(f"[{text_analysis.CJK}]", phrase):
        phrase = re.sub(r"\s+", "", phrase)
        return "".join(ch for ch in phrase if not text_analysis.is_function_char(ch))
    words = [
        text_analysis.stem(w)
        for w in re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", phrase)
        if w not in text_analysis.EN_STOPWORDS
    ]
    return " ".join(words)


def _value(match: re.Match[str]) -> str:
    a = _number(match.group("a"))
    b = match.group("b")
    value = f"{a}-{_number(b)}" if b else a
    return f"{match.group('qual') or ''}{value}"


def _number(raw: str) -> str:
    number = float(raw.replace(",", ""))
    return str(int(number)) if number.is_integer() else repr(number)


def is_unit_word(word: str) -> bool:
    """Whether a (normalised) word is itself a unit of measure or a currency: 公分, hour, %."""
    return word in _UNITS or word in _CURRENCIES or f"{word}s" in _UNITS


CURRENCY_UNITS = frozenset(_CURRENCIES.values()) | {"TWD", "USD", "EUR", "CNY"}
# Names of a currency a heading or a column header writes without an amount (「單位：新臺幣」).
_NAMED_CURRENCIES = {"新台币": "TWD", "台币": "TWD", "ntd": "TWD"}


def currency_code(word: str, written: str = "") -> str | None:
    """The canonical currency of a (normalised) currency word: gbp → GBP, 新台币 → TWD, 元 the
    yuan of the script `written` (the text it stands in) is in (`yuan`); None for any other
    word."""
    if word == "元":
        return yuan(written)
    unit = _CURRENCIES.get(word) or _UNITS.get(word) or _NAMED_CURRENCIES.get(word)
    return unit if unit in CURRENCY_UNITS else None


def yuan(written: str) -> str:
    """The currency an amount in 元 alone is in, by the script of the (raw) text it is written
    in: the renminbi in Simplified Chinese (mainland China's script), else the New Taiwan
    dollar. Where another currency is named with the amount (港幣3,500元, 人民币 85,000 元,
    NT$420), the name says which."""
    return "CNY" if text_analysis.written_simplified(written) else "TWD"


def _unit(match: re.Match[str], written: str) -> str | None:
    """The canonical unit of a quantity `_FACT` matched in a text (`written`, as written)."""
    if match.group("cur"):
        return _CURRENCIES.get(match.group("cur"))
    word = match.group("unit") or ""
    return yuan(written) if word == "元" else _UNITS.get(word)


def quantities(text: str) -> list[tuple[str, str]]:
    """(value, canonical unit) of every quantity in `text` that has a unit, wherever it stands
    in its clause (dates and the digits inside identifiers are not quantities)."""
    if not _may_state(text):
        return []
    norm = _read(text)
    found = []
    for match in _FACT.finditer(_mask(norm)):
        unit = _unit(match, text)
        if unit is not None:
            found.append((_value(match), unit))
    return found


def quantity_units(text: str) -> frozenset[str]:
    """Every canonical unit a quantity in `text` is stated in, plus "date" for calendar dates."""
    if not _may_state(text):
        return frozenset()
    norm = _read(text)
    units = {"date"} if _DATE.search(norm) else set()
    for match in _FACT.finditer(_mask(norm)):
        unit = _unit(match, text)
        if unit is not None:
            units.add(unit)
    return frozenset(units)

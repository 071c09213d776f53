"""Facts (attribute phrase + quantity) and the rule that makes two of them a conflict."""

from __future__ import annotations

import pytest

from services.retrieval.facts import conflicting, extract_facts, quantities, quantity_units


def _one(text: str) -> tuple[str, str, str]:
    facts = extract_facts(text)
    assert len(facts) == 1, facts
    return facts[0].attribute, facts[0].unit, facts[0].value


@pytest.mark.parametrize(
    ("sentence", "unit", "value"),
    [
        ("新版：標準交期 15 日；特殊檢驗另評估。", "day", "15"),
        ("耐磨用途採硬陽極處理，A6061-T6 硬陽極膜厚為 25 µm，公差另計。", "µm", "25"),
        ("The calibration interval for handheld gauges is 6 months.", "month", "6"),
        ("每箱重量不超過 15 公斤，箱內空隙以緩衝材填滿。", "kg", "15"),
        ("鈍化件之中性鹽霧試驗時數為 48 小時。", "hour", "48"),
        ("內流道表面粗糙度 Ra ≤ 0.4 µm。", "µm", "≤0.4"),
    ],
)
def test_a_quantity_ending_its_clause_is_a_fact_about_the_phrase_before_it(
    sentence: str, unit: str, value: str
) -> None:
    _attribute, got_unit, got_value = _one(sentence)
    assert (got_unit, got_value) == (unit, value)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        # a construction contract and a purchase order (Traditional)
        (
            "緊急故障：承攬人應於接獲通知後48小時內派員到場。",
            "供應商應於接獲通知後24小時內派員到場。",
        ),
        # a pharmaceutical cleaning SOP (Simplified)
        ("压片结束后，须在24小时内完成清洁。", "生产结束后须在48小时内完成清洁。"),
    ],
)
def test_a_time_limit_with_the_action_after_it_is_a_fact_about_that_action(
    left: str, right: str
) -> None:
    (a,), (b,) = extract_facts(left), extract_facts(right)
    assert a.unit == b.unit == "hour"
    assert conflicting(a, b)


def test_the_action_a_time_limit_governs_tells_facts_apart() -> None:
    """「到場後 8 小時內提出報告」 is not the time to be on site."""
    facts = extract_facts(
        "供應商應於接獲通知後24小時內派員到場，並於到場後8小時內提出初步處理報告。"
    )
    on_site = extract_facts("承攬人應於接獲通知後48小時內派員到場。")[0]
    assert [conflicting(f, on_site) for f in facts] == [True, False]


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("脏设备放置时间不得超过24小时。", "脏设备放置时间为48小时。"),  # pharma (Simplified)
        ("每箱重量不超過 15 公斤。", "每箱重量最多 20 公斤。"),  # packing SOP (Traditional)
        (
            "Goods shall carry a date code no older than 36 months.",
            "Goods shall carry a date code of 24 months.",
        ),
    ],
)
def test_a_bound_on_the_value_is_not_part_of_the_attribute(left: str, right: str) -> None:
    (a,), (b,) = extract_facts(left), extract_facts(right)
    assert a.attribute == b.attribute
    assert conflicting(a, b)


def test_a_label_before_a_colon_is_the_attribute() -> None:
    attribute, unit, value = _one("固定座單價：NT$ 142。")
    assert (unit, value) == ("TWD", "142")
    assert attribute  # the label, not the empty text after the colon


@pytest.mark.parametrize(
    "sentence",
    [
        "本版自 2026-01-01 生效。",  # a date is not a quantity
        "適用 SUS304、SUS316L 材料。",  # nor are the digits of a part number
        "量產中每 20 件抽測一次。",  # the quantity sits inside a longer predicate
        "溫度 40 至 60°C。",  # 「溫度」 alone names nothing specific
        "量測後 3 日內。",  # a time limit with no action after it, and no attribute before
        "每批抽樣 5 件內含不良品即判退。",  # 「內」 after a count is not a time limit
        "工程部應於 2 個工作日內回覆。",  # 「回覆」 alone names nothing specific
    ],
)
def test_what_is_not_a_fact(sentence: str) -> None:
    assert extract_facts(sentence) == []


def test_different_values_for_the_same_attribute_conflict() -> None:
    a = extract_facts("A6061-T6 硬陽極膜厚為 25 µm。")[0]
    b = extract_facts("A6061-T6 硬陽極膜厚為 35 µm。")[0]
    assert conflicting(a, b)


def test_a_longer_cjk_phrase_ending_in_the_same_attribute_is_the_same_attribute() -> None:
    a = extract_facts("客戶要求時，中性鹽霧試驗時數為 48 小時。")[0]
    b = extract_facts("耐蝕性驗證之中性鹽霧試驗時數為 72 小時。")[0]
    assert conflicting(a, b)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("標準交期 15 日。", "標準交期 15 日。"),  # same value
        ("標準交期 15 日。", "標準交期 15 小時。"),  # other unit
        ("一般客戶付款條件為月結 60 日。", "貨款以月結 90 日。"),  # shared ending too short
        (
            "The calibration interval for handheld gauges is 6 months.",
            "The cleaning interval for handheld gauges is 12 months.",
        ),
    ],
)
def test_what_does_not_conflict(left: str, right: str) -> None:
    a, b = extract_facts(left), extract_facts(right)
    assert not any(conflicting(x, y) for x in a for y in b)


def test_quantity_units_lists_every_kind_of_amount_stated() -> None:
    units = quantity_units("單價：NT$ 86.5／件，交期：12 日，交貨日期 2026-05-08，毛重 500 kg。")
    assert {"TWD", "day", "date", "kg"} <= units


@pytest.mark.parametrize(
    ("left", "right", "unit"),
    [
        # itdesk (Simplified): the change SOP's year-end freeze and the 2026 calendar's
        (
            "- 年末封网：每年 12 月 24 日 00:00 至次年 1 月 3 日 24:00。",
            "- 年末封网：2026 年 12 月 20 日 00:00 至 2027 年 1 月 3 日 24:00。",
            "date",
        ),
        # chatlog (English): two versions of a delivery procedure's morning window
        (
            "1. Delivery windows: Monday to Friday, morning window 8:00-12:00.",
            "1. Delivery windows. Monday to Friday: morning window 7:00-11:00.",
            "clock",
        ),
    ],
)
def test_a_period_or_a_time_of_day_is_a_fact_that_can_conflict(left, right, unit) -> None:
    (a,), (b,) = extract_facts(left), extract_facts(right)
    assert (a.unit, b.unit) == (unit, unit)
    assert a.attribute == b.attribute and a.value != b.value
    assert conflicting(a, b)
    assert not conflicting(a, extract_facts(left)[0])  # the same period agrees with itself


@pytest.mark.parametrize(
    "sentence",
    [
        "報價日期：2025-06-12。",  # demo: a quote's own date, which every quote has its own of
        "版本：01　生效日期：2026-03-01",  # pharma: an SOP's effective date
        "13:50 Jolene: Receiving hours changed this fall.",  # chatlog: a log's timestamp
        "Term: August 1, 2026 to July 31, 2027.",  # chatlog: "term" alone names nothing specific
    ],
)
def test_a_documents_own_date_a_timestamp_or_a_vague_label_is_no_fact(sentence: str) -> None:
    assert [f for f in extract_facts(sentence) if f.unit in ("date", "clock")] == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # hkrepair: the Bayview contract and the repair desk's own plan for the same fridges
        (
            "2. Preventive maintenance. Every minibar refrigerator shall be inspected and cleaned "
            "once every three (3) months (quarterly).",
            [("3", "month")],
        ),
        (
            "一、灣景酒店 326 部迷你吧雪櫃（卡特曼 KF-40M）每兩個月檢查及清潔一次，"
            "每次分 4 晚進行。",
            [("2", "month")],
        ),
        # chatlog: the delivery SOP and a dispatcher's note on the same site-access rule
        (
            "The customer confirms site access one business day before the delivery",
            [("1", "working_day")],
        ),
        (
            "Our delivery standard needs site access confirmed two business days ahead",
            [("2", "working_day")],
        ),
        # solar: the maker's letter restates its number in digits, as the English one does
        # ("three (3) months" above); the installer's SOP writes it in words
        (
            "二、HS-BAT-13 儲能電池：產品質保期為自安裝之日起八（8）年，或累計放電量達到 37.8 MWh",
            [("8", "year")],
        ),
        (
            "covered for a full decade from the day it was installed - tell customers ten years.",
            [("10", "year")],
        ),
        # hrlegal: work rules in Chinese numerals; a school grade is no duration
        ("勞工每七日中應有二日之休息", [("7", "day"), ("2", "day")]),
        ("本校北棟三樓三年級教室天花板多處滲水", []),
    ],
)
def test_a_quantity_written_in_words_is_read_like_one_in_digits(text, expected) -> None:
    assert quantities(text) == expected

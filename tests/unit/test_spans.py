"""The span a retrieved chunk is cited as (services/retrieval/spans.py), on text in the style of
a freight forwarder's SOP (English) and a pharma supplier's mail (Simplified Chinese)."""

from __future__ import annotations

from services.retrieval import spans

SOP = (
    "3. Verified Gross Mass (VGM)\n"
    "3.1 The shipper is responsible for the VGM.\n"
    "3.2 The VGM must reach the carrier no later than 24 hours before the CY cut-off.\n"
)
MAIL = (
    "发件人：孙涛（浙江华屹制药 QC主管）\n"
    "张经理：\n"
    "新增台州二期生产场地，预计2027年1月起供货。\n"
    "谢谢\n"
)


def keywords(*words: str):
    return lambda text: float(sum(word in text for word in words))


def cited(body: str, score) -> str:
    start, end = spans.best_span(body, 0, len(body), score)
    return body[start:end]


def test_a_heading_is_cited_with_the_line_under_it():
    quote = cited(SOP, keywords("Verified Gross Mass"))
    assert quote.startswith("3. Verified Gross Mass (VGM)")
    assert "3.1 The shipper" in quote


def test_among_equal_units_the_one_that_says_something_is_cited():
    # Nothing in either text matches the question's words: a greeting or a signature is never
    # a better citation than a sentence.
    assert cited(MAIL, keywords("不在文中")) == "新增台州二期生产场地，预计2027年1月起供货。"
    assert cited(SOP, keywords("nowhere")).startswith("3.2 The VGM must reach the carrier")


def test_a_span_grows_only_while_a_neighbour_adds_to_it():
    quote = cited(SOP, keywords("3.2", "24 hours", "shipper"))
    assert "3.1 The shipper" in quote and "24 hours" in quote
    assert cited(SOP, keywords("24 hours")).startswith("3.2 ")


def test_when_no_unit_shares_a_word_with_the_query_the_prior_decides():
    # A Chinese question about an English SOP: the query's words are in no unit, so the
    # embedding's ranking (here a stand-in) chooses among them.
    sop = (
        "The CMM is calibrated once a year.\n"
        "The calibration interval for handheld gauges is 6 months.\n"
    )
    start, end = spans.best_span(
        sop, 0, len(sop), lambda _text: 0.0, prior=lambda texts: [0.2, 0.4][: len(texts)]
    )
    assert sop[start:end] == "The calibration interval for handheld gauges is 6 months."


def test_a_table_row_is_not_a_heading():
    table = "MPN | LT | MOQ\nSTM32G071RBT6 | 16 wk | 960\nGRM155R71C104KA88D | 8 wk | 10000\n"
    quote = cited(table, keywords("STM32G071RBT6"))
    assert quote == "STM32G071RBT6 | 16 wk | 960"


def test_a_run_in_heading_is_cited_with_what_it_heads():
    # A numbered title that opens a line and is followed on it by its text names the topic;
    # the sentence after it is what is said about it (a museum's handling SOP in English, a
    # manufacturer's quotation rules in Traditional Chinese).
    handling = (
        "2. Gloves. Nitrile gloves are worn for all handling.\n"
        "3. Team size. One person may carry an object only if it weighs less than 15 kg.\n"
    )
    assert cited(handling, keywords("Team size")) == (
        "3. Team size. One person may carry an object only if it weighs less than 15 kg."
    )
    rules = "三、交期。自收到訂金起 15 個工作天出貨。\n四、付款。月結 30 日。\n"
    assert cited(rules, keywords("交期")) == "三、交期。自收到訂金起 15 個工作天出貨。"


def test_a_numbered_sentence_is_not_a_run_in_heading():
    # A list item that says something stands alone: it is the statement, not its title.
    items = "1. Wear nitrile gloves when you handle any object on display. Record it.\n"
    assert cited(items, keywords("nitrile")).startswith("1. Wear nitrile gloves")
    assert spans._is_heading(items, 0, items.index(" Record")) is False


def text_of_units(body: str) -> list[str]:
    return [body[start:end] for start, end in spans.units(body)]


def test_an_abbreviation_s_full_stop_does_not_end_the_sentence():
    # fastener: a customer's mail; hkrepair: a service manual; chatlog: a rental agreement
    mail = (
        "regarding our drawing 4711-233 Rev. C (DIN 933 M12x50, 10.9, zinc flake): the "
        "corrosion requirement is 720 h NSS without red rust. Please confirm."
    )
    assert text_of_units(mail)[-1] == "Please confirm."
    assert any("Rev. C" in unit for unit in text_of_units(mail))
    manual = "E2 - Defrost heater circuit fault. Check heater resistance (approx. 220 Ohm)."
    assert text_of_units(manual) == [
        "E2 - Defrost heater circuit fault.",
        "Check heater resistance (approx. 220 Ohm).",
    ]
    agreement = "Master Rental Agreement - Keller Construction Co. (Ames, Iowa)\nTerm: one year."
    assert text_of_units(agreement)[0].endswith("(Ames, Iowa)")
    packing = "1. Cartons: double-wall corrugated. Max. gross weight per carton: 20 kg."
    assert text_of_units(packing)[-1] == "Max. gross weight per carton: 20 kg."
    # an acronym closes a sentence like any word
    assert text_of_units("Ship to the US. Then invoice.") == ["Ship to the US.", "Then invoice."]


def test_a_time_of_day_or_a_thousands_separator_is_no_clause_break():
    # itdesk: a contract's long sentence with hours; propmgmt: a notice in English
    contract = (
        "The response and resolution targets in the table above apply 24x7 for every priority "
        "level of the service, except that P3 tickets are accepted from 08:00 to 20:00 China "
        "Standard Time on business days."
    )
    assert all("08:00 to 20:00" in unit for unit in text_of_units(contract) if "08:" in unit)
    notice = (
        "Please note that the electricity supply to the whole of King Fung Mansion will be "
        "suspended from 2:00 a.m. to 6:00 a.m. on Thursday, 10 December 2026, for annual checks."
    )
    assert any("2:00 a.m. to 6:00 a.m." in unit for unit in text_of_units(notice))


def test_a_clause_closed_by_a_colon_is_cited_with_what_it_announces():
    # fastener: the requirement follows the colon of a long sentence; foodqa: the allergen
    # changeover rule
    mail = (
        "Dear Mr. Chen,\nregarding our drawing 4711-233 Rev. C (Sechskantschraube DIN 933 "
        "M12x50, 10.9, zinc flake): the corrosion requirement is 720 h NSS without red rust, "
        "as stated on the drawing. Please consider this for your offer and confirm."
    )
    assert "720 h" in cited(mail, keywords("4711-233"))
    sop = (
        "4. Changeover from a product containing an allergen to a product that does not contain "
        "that allergen ('step-down'): full wet clean (strip-down, detergent, rinse, sanitise), "
        "QA sign-off before restart."
    )
    assert "full wet clean" in cited(sop, keywords("step-down"))


def test_a_text_s_paragraphs_each_carry_the_heading_over_them():
    # a property manager's minutes (Traditional Chinese) and a freight tariff (English)
    minutes = (
        "第五屆管理委員會第十二次會議紀錄\n\n"
        "2. 2027年度財政預算\n管理費由2027年1月1日起調整至港幣3.40元。\n\n"
        "4. 升降機\n委員會要求管理公司按保養合約取得報價。"
    )
    # the opening line heads both numbered items (neither is a heading alone)
    assert spans.headed_paragraphs(minutes) == [
        "第五屆管理委員會第十二次會議紀錄\n2. 2027年度財政預算\n"
        "管理費由2027年1月1日起調整至港幣3.40元。",
        "第五屆管理委員會第十二次會議紀錄\n4. 升降機\n委員會要求管理公司按保養合約取得報價。",
    ]
    tariff = (
        "All prices GBP, excluding VAT.\n\n## B. Felixstowe CFS\n\n"
        "Handling ... 18.00 per W/M\n\nStorage thereafter .. 1.20 per CBM per day\n\n"
        "## C. Documentation\n\n## D. Conditions"
    )
    assert spans.headed_paragraphs(tariff) == [
        "All prices GBP, excluding VAT.",
        "## B. Felixstowe CFS\nHandling ... 18.00 per W/M",
        "## B. Felixstowe CFS\nStorage thereafter .. 1.20 per CBM per day",
        "## C. Documentation",
        "## D. Conditions",
    ]


# A hotel's function-room rate card (English) and an estate's car-park notice (Traditional
# Chinese): the value asked for is in a row, what it is in the header.
RATE_CARD = (
    "Function Room Rental Rate Card 2026\n\n"
    "| Venue | Half day (up to 4 hrs) | Full day (up to 9 hrs) | Theatre capacity |\n"
    "|---|---|---|---|\n"
    "| Marina Ballroom (whole) | 12,000 | 18,000 | 700 |\n"
    "| Marina Ballroom Section 1 or 2 | 6,500 | 9,800 | 320 |\n"
    "| Orchid Room | 1,800 | 2,800 | 80 |\n"
    "| Jasmine Room | 1,200 | 1,900 | 40 |\n"
)
CAR_PARK = (
    "本苑停車場收費由2026年10月1日起如下：\n\n"
    "| 項目 | 收費 |\n"
    "|---|---|\n"
    "| 私家車月租車位 | 每月港幣3,500元 |\n"
    "| 訪客泊車 | 每小時港幣30元 |\n\n"
    "月租車位數目有限，現有輪候名單繼續有效。\n"
)


def test_a_table_row_is_read_under_the_tables_header():
    # The row names what is asked about, the header what kind of value its cells are: the row
    # is cited, not the header, which shares as many of the question's words.
    assert (
        cited(RATE_CARD, keywords("Orchid", "Half day")) == "| Orchid Room | 1,800 | 2,800 | 80 |"
    )
    assert cited(CAR_PARK, keywords("訪客", "收費")) == "| 訪客泊車 | 每小時港幣30元 |"
    assert spans.table_header(CAR_PARK, CAR_PARK.index("| 訪客")) == "| 項目 | 收費 |"
    assert spans.table_header(CAR_PARK, CAR_PARK.index("| 項目")) is None  # the header itself
    assert spans.table_header(CAR_PARK, CAR_PARK.index("月租車位數目")) is None  # no table

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

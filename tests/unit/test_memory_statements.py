"""The structural rules of the offline extractor and consolidation, each shown on text of two
desks (a machining supplier and an electronics distributor) and in English and Chinese."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from services.memory import consolidate, statements
from services.memory.topics import KEY_TASK_DETAILS, MANAGED_TOPICS
from services.memory.types import ExtractedFact, Extraction
from tests.unit.test_memory_extraction import extract

CUSTOMER_TOPICS = tuple(t for t in MANAGED_TOPICS if t.label != KEY_TASK_DETAILS)


@pytest.mark.parametrize(
    "text",
    [
        "Subject: RFQ CNC valve body VB-2201",
        "Fwd: RFQ STM32F407 boards",
        "主旨：詢價 法蘭 FL-3300",
        "Attached is the drawing of the bracket BR-2201.",
        "The BOM has been forwarded to our purchasing team.",
        "圖面已轉給工程部。",
        "附件是 GRM188 电容的规格书。",
        "Please quote the attached part.",
    ],
)
def test_headers_and_documents_on_the_move_state_nothing(text):
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    ["需要附材質證明。", "Every reel must be shipped with the CoC attached."],
)
def test_a_document_that_must_come_along_is_a_requirement(text):
    assert extract(text, topics=CUSTOMER_TOPICS) != []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Mr. Huang is our quality engineer.", "contact"),
        ("刘静是我们的采购主管，负责所有被动元件的询价。", "contact"),
        ("Mei Lin has taken over from David Wu as our buyer.", "contact"),
        ("我們的收貨地址是台中市西屯區工業區一路 5 號。", "address"),
        ("Our receiving warehouse is at 18 Jurong Port Road.", "address"),
    ],
)
def test_the_speaker_describing_their_people_and_sites_is_their_profile(text, kind):
    found = extract(text, topics=CUSTOMER_TOPICS)
    assert [(topic, k) for topic, k, _ in found] == [("customer_profile", kind)]


@pytest.mark.parametrize("text", ["Our order is urgent.", "我們的需求很急。"])
def test_a_description_must_name_something(text):
    assert extract(text, topics=CUSTOMER_TOPICS) == []


@pytest.mark.parametrize(
    "text",
    [
        "All material certificates must be witnessed by a third party.",
        "我们所有订单都需要开具增值税专用发票。",
        "每個卷盤都要用防靜電袋單獨包裝。",
        "Each delivery needs a certificate of conformity.",
    ],
)
def test_standing_requirements_are_preferences(text):
    found = extract(text, topics=CUSTOMER_TOPICS)
    assert [(topic, kind) for topic, kind, _ in found] == [("customer_preferences", "requirement")]


@pytest.mark.parametrize("text", ["This time we need 300 pcs in SUS316L.", "这次要 1,200 片电容。"])
def test_one_order_is_no_standing_rule(text):
    assert extract(text, topics=CUSTOMER_TOPICS) == []


def test_currency_and_payment_terms():
    assert extract("We quote them in USD.", topics=CUSTOMER_TOPICS) == [
        ("customer_preferences", "currency", "We quote them in USD")
    ]
    assert extract("這張訂單的付款條件是月結 60 天。") == [
        ("key_task_details", "payment", "這張訂單的付款條件是月結 60 天")
    ]
    assert extract("The payment term for this order is net 60 days.") == [
        ("key_task_details", "payment", "The payment term for this order is net 60 days")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The material is Inconel 718.", ("material", "Material: Inconel 718")),
        ("材料改為黃銅。", ("material", "材質為 黃銅")),
        ("數量從 1,200 件改成 3,000 件。", ("quantity", "數量 3,000 件")),
        ("The quantity goes from 200 to 350 pcs.", ("quantity", "Quantity: 350 pcs")),
        ("Sorry, the material should be SUS420J2, not 17-4PH.", ("material", "Material: SUS420J2")),
    ],
)
def test_task_values_stated_in_sentences(text, expected):
    assert [(kind, fact) for _, kind, fact in extract(text)] == [expected]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The net 60 payment term is cancelled.", "payment"),
        ("鍍鋅的要求取消。", "spec"),
        ("We no longer need the salt spray test.", "instruction"),
    ],
)
def test_a_cancellation_is_a_forget(text, kind):
    assert extract(text) == [("forget", kind, text.rstrip(".。"))]


@pytest.mark.parametrize(
    "text", ["We now quote Nordlys in USD, no longer in EUR.", "我們改用美元報價，不再用歐元。"]
)
def test_a_rejected_old_value_stays_with_the_new_one(text):
    assert len(extract(text, topics=CUSTOMER_TOPICS)) == 1
    assert statements.states_change(text)


def fixed_embedder(similar: dict[tuple[str, str], float]):
    """An embedder whose cosines are given: each pair listed gets its similarity, every other
    pair of texts is orthogonal."""
    texts = sorted({t for pair in similar for t in pair})
    base = {t: i for i, t in enumerate(texts)}
    size = len(texts) + 8
    vectors: dict[str, np.ndarray] = {}
    for text in texts:
        vector = np.zeros(size, dtype=np.float32)
        vector[base[text]] = 1.0
        vectors[text] = vector
    for (a, b), score in similar.items():  # b leans towards a by `score`
        vector = np.zeros(size, dtype=np.float32)
        vector[base[a]] = score
        vector[base[b]] = math.sqrt(1 - score * score)
        vectors[b] = vector

    def embed(batch: Sequence[str]) -> np.ndarray:
        return np.vstack([vectors.get(t, np.eye(size, dtype=np.float32)[-1]) for t in batch])

    return embed


def decide(old: str, new: str, score: float, *, kind="requirement", old_kind=None, forget=False):
    candidate = consolidate.Candidate(
        memory_id="m", topic="customer_preferences", kind=old_kind or kind, fact=old, history=(old,)
    )
    item = ExtractedFact(topic="customer_preferences", kind=kind, fact=new)
    extraction = Extraction(facts=() if forget else (item,), forget=(item,) if forget else ())
    plan = consolidate.plan(
        extraction, [candidate], embed=fixed_embedder({(old, new): score}), threshold=0.75
    )
    return [step.action for step in plan.steps]


@pytest.mark.parametrize(
    ("old", "new", "score"),
    [
        (
            "Every shipment must include a certificate of conformity",
            "Reminder: each delivery needs a certificate of conformity",
            0.64,
        ),
        (
            "我们所有订单都需要开具增值税专用发票",
            "For all orders we need the special VAT invoice",
            0.77,
        ),
        ("For every new part we always want PPAP level 3", "每個新料號都要 PPAP 第三級", 0.56),
    ],
)
def test_a_repeat_in_other_words_or_the_other_language_changes_nothing(old, new, score):
    assert decide(old, new, score) == ["unchanged"]


@pytest.mark.parametrize(
    ("old", "new", "score", "kind"),
    [
        (
            "David Wu is our buyer",
            "Mei Lin has taken over from David Wu as our buyer",
            0.57,
            "contact",
        ),
        (
            "我们的收货地址是深圳市南山区科技园",
            "从 12 月 1 日起，我们的收货地址改为东莞市松山湖园区",
            0.5,
            "address",
        ),
    ],
)
def test_a_related_statement_that_says_it_changes_updates(old, new, score, kind):
    assert decide(old, new, score, kind=kind) == ["update"]
    unmarked = new.replace("has taken over from", "works with").replace("改为", "与")
    assert decide(old, unmarked.replace("从 12 月 1 日起，", ""), score, kind=kind) == ["create"]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("We prefer PPAP level 3", "We prefer PPAP level 2"),
        ("每卷都要贴 MSL 3 湿度标签", "每卷都要贴 MSL 5 湿度标签"),
    ],
)
def test_a_new_value_is_never_a_repeat(old, new):
    assert decide(old, new, 0.9) == ["update"]


@pytest.mark.parametrize(
    ("old", "asked"),
    [
        ("Our receiving warehouse is at 18 Jurong Port Road", "the Jurong Port Road warehouse"),
        ("Anna Kovacs is our component engineer", "what I said about Anna Kovacs"),
    ],
)
def test_a_forget_deletes_the_related_memory_that_carries_its_names(old, asked):
    assert decide(old, asked, 0.5, kind="instruction", old_kind="address", forget=True) == [
        "delete"
    ]
    assert decide(old, "the Singapore office", 0.5, kind="instruction", forget=True) == [
        "unchanged"
    ]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("客戶確認需要特殊檢驗", "客戶確認需要特殊檢驗與材質證明"),
        ("Every reel must be dry-packed", "Every reel must be dry-packed with a humidity card"),
    ],
)
def test_a_fact_that_says_more_than_the_memory_extends_it(old, new):
    assert decide(old, new, 0.9) == ["update"]

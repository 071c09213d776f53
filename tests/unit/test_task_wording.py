"""The words a need is searched by: phrases, what names an item, the documents' spelling, and
the task's own phrases in its language (texts taken from the demo, holdout and blind sets)."""

from __future__ import annotations

import pytest

from services.agents.wording import TaskWording, names, respell, reword, speaks
from services.language.phrases import phrases
from services.language.sentences import clauses
from tests.support.agents import TableSimilarity

# pharma CV-2026-006 and freight Q-BRX-1120 supplements
PHARMA_CV = (
    "生产部确认TP-03是多品种共用设备，不是专用线。请把脏设备保持时间和残留限度定下来，"
    "继续出验证方案。"
)
FREIGHT_BRX = (
    "Can you finish the Chicago quote and tell me what paperwork, fees and drop-off time apply?"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            PHARMA_CV,
            [
                "生产部确认TP-03是多品种共用设备",
                "不是专用线",
                "请把脏设备保持时间",
                "残留限度定下来",
                "继续出验证方案",
            ],
        ),
        (
            FREIGHT_BRX,
            [
                "Can you finish the Chicago quote",
                "tell me what paperwork",
                "fees",
                "drop-off time apply",
            ],
        ),
        (
            "请按这个继续把稳定性方案的条件、取样计划和样品量排出来。",
            ["请按这个继续把稳定性方案的条件", "取样计划", "样品量排出来"],
        ),
        (
            "Tina 回覆了：數量、整盤、交貨地點都不變",
            ["Tina 回覆了：數量", "整盤", "交貨地點都不變"],
        ),
        # values listed with 、 stay one phrase; 和 inside a word (總和) is no conjunction
        ("長期：0、3、6、9、12個月", ["長期：0、3、6、9、12個月"]),
        ("總和平均", ["總和平均"]),
    ],
)
def test_a_clause_is_cut_where_a_list_or_conjunction_joins_things(text, expected):
    assert phrases(text) == expected


@pytest.mark.parametrize(
    ("text", "key", "named"),
    [
        # most of the name's words, hyphens aside (freight)
        ("2.1 SI cut-off: 48 hours before vessel ETD", "si_cutoff", True),
        ("3. Cut-off at LHR shed", "lhr_delivery_cutoff", True),
        ("Please hold the DG part of the quote until then", "dg_handling_charge", False),
        # one generic word of three is not enough (distributor)
        (
            "2.3 Discounts below the lowest break follow the approval levels",
            "cut_tape_approval",
            False,
        ),
        ("3. Cut tape / partial packs (剪帶、拆盤)", "cut_tape_approval", True),
        # inside Chinese text, a term of art kept in its own words names the item (pharma)
        ("CAPA由QA按SOP-QA-035跟踪至关闭", "capa_tracking_requirement", True),
        ("DC 也照合約", "date_code_limit", True),
        # the name's initials (pharma, distributor), never inside a code
        ("4.1 脏设备保持时间（DHT）：自生产结束至开始清洁", "dirty_hold_time", True),
        ("這個案子 TI 那邊 DR 已經報過", "design_registration_check", True),
        ("張工補充編號是 TI-DR-2026-TW-04417", "design_registration_check", False),
        # a glossary term the name is made of (distributor; the demo's own vocabulary)
        ("交期以「週」計，自原廠接單日起算", "lead_time_commitment", True),
        # an item that is a code is named by the code (pharma)
        ("偏差调查报告　编号：DEV-2026-0588", "DEV-2026-0588", True),
        ("CAPA-2026-0301：更换TP-02料位传感器", "DEV-2026-0588", False),
        # a glossary topic by its phrases (demo)
        ("客戶確認需要特殊檢驗", "special_inspection", True),
    ],
)
def test_what_names_an_item(text, key, named):
    assert names(text, key) is named


@pytest.mark.parametrize(
    ("query", "texts", "spelled"),
    [
        ("lhr delivery cutoff", ["3. Cut-off at LHR shed"], "lhr delivery cut-off"),
        ("si cutoff", ["CY cut-off 7 Dec 12:00", "no special cut-offs"], "si cut-off"),
        # a text that also writes it whole keeps the query as it is
        ("si cutoff", ["the cutoff is 48 hrs", "cut-off"], "si cutoff"),
        ("dirty hold time", ["脏设备保持时间"], "dirty hold time"),
    ],
)
def test_a_name_is_spelled_as_the_documents_spell_it(query, texts, spelled):
    assert respell(query, texts) == spelled


@pytest.mark.parametrize(
    ("query", "found", "reworded"),
    [
        # freight: "delivery" is in none of the spans found; two of three words stay
        (
            "lhr delivery cutoff",
            ["3. Cut-off at LHR shed", "3. Acceptance cut-off\nDG freight: at our LHR shed"],
            "lhr cut-off",
        ),
        # distributor: the registration number stays, "check" goes
        (
            "design registration check TI-DR-2026-TW-04417",
            ["Design Registration record - TI\nDR no.: TI-DR-2026-TW-04417"],
            "design registration TI-DR-2026-TW-04417",
        ),
        # freight: one word of two would no longer name the item
        ("cover basis", ["Cover is arranged through our appointed broker"], "cover basis"),
    ],
)
def test_a_name_that_finds_too_little_is_searched_in_the_evidence_words(query, found, reworded):
    assert reword(query, found) == reworded


def test_whether_evidence_writes_the_names_language():
    assert speaks("eus requirement", ["3. Classification and EUS"])
    assert not speaks("open deviation disposition", ["5. 未关闭偏差的处理", "1. 范围"])


SOP_QA_050 = "4. 保持时间\n4.1 脏设备保持时间（DHT）：自生产结束至开始清洁，最长48小时。"


def test_in_a_chinese_task_a_phrase_naming_the_item_is_kept_ready():
    wording = TaskWording([PHARMA_CV], [SOP_QA_050])
    words = wording.words_for("dirty_hold_time", chinese=True)
    assert words.name == "dirty hold time"
    assert words.phrase == "4.1 脏设备保持时间（DHT）：自生产结束至开始清洁"
    assert words.pick is None


# museum LOAN-NPM-INS-017 and MOVE-LH-1978-004: the supplements and a line of a task document
MUSEUM_NPM = "南港登錄組來電要我們確認 LH-1932-017 的保險金額，他們說會計室要用 500 萬。"
MUSEUM_MOVE = "修復室 12/7 可以收件，請列出搬運要幾個人、要不要戴手套，給組長簽核。"
COLL_CLOCK = "尺寸：鐘面直徑 120 公分（含框）；"


@pytest.mark.parametrize(
    ("supplement", "documents", "key", "phrase"),
    [
        (PHARMA_CV, [SOP_QA_050], "residue_acceptance_limit", "残留 限度"),
        # the code the person gives in the phrase that names the item goes with it
        (MUSEUM_NPM, [], "insurance_value", "保险 金额 LH-1932-017"),
        (MUSEUM_MOVE, [COLL_CLOCK], "glove_requirement", "手套"),
    ],
)
def test_where_no_phrase_names_the_item_its_name_is_searched_in_the_tasks_own_words(
    supplement, documents, key, phrase
):
    similarity = TableSimilarity({})  # the embedding's pick comes only after the dictionary
    words = TaskWording([supplement], documents, similarity).words_for(key, chinese=True)
    assert (words.phrase, words.pick) == (phrase, None)


def test_the_embeddings_pick_is_kept_where_the_dictionary_finds_too_little():
    # 尺寸 renders "size", but crew, the word that matters, is nowhere: not a crew size
    similarity = TableSimilarity({("crew size", "請列出搬運要幾個人"): 0.75})
    wording = TaskWording([MUSEUM_MOVE], [COLL_CLOCK], similarity)
    words = wording.words_for("crew_size", chinese=True)
    assert (words.name, words.phrase, words.pick) == ("crew size", None, "請列出搬運要幾個人")
    # without an embedder there is no pick: nothing names the item
    alone = TaskWording([MUSEUM_MOVE], [COLL_CLOCK]).words_for("crew_size", chinese=True)
    assert alone.pick is None and alone.phrase is None


def test_in_an_english_task_the_name_is_searched_in_the_task_spelling_with_its_codes():
    kestrel = (
        "Line has confirmed the booking: ETD Felixstowe 9 Dec 2026 18:00, CY cut-off 7 Dec "
        "12:00, no special cut-offs in the confirmation."
    )
    words = TaskWording([kestrel], []).words_for("si_cutoff", chinese=False)
    assert (words.name, words.phrase, words.pick) == ("si cut-off", None, None)
    nexpwr = "張工補充 TI 的 DR 編號是 TI-DR-2026-TW-04417"
    words = TaskWording([nexpwr], []).words_for("design_registration_check", chinese=False)
    assert words.name == "design registration check TI-DR-2026-TW-04417"


def test_a_mail_header_names_no_item():
    mail = (
        "From: Tina Hsu <tina@aurora-auto.com.tw>\nDate: 2026-11-18 10:42\n\n"
        "Please quote per our LTA."
    )
    wording = TaskWording([], [mail])
    assert [p.text for p in wording.phrases] == ["Please quote per our LTA"]
    assert wording.about("date_code_limit") == []


@pytest.mark.parametrize(
    ("phrase", "pending", "topic", "table", "closer"),
    [
        # freight: "price" names the pending freight rate here, not a unit price
        (
            "price the freight",
            ["ocean_freight_rate", "customs_clearance_fee"],
            "unit_price",
            {("ocean freight rate", "price the freight"): 0.62},
            True,
        ),
        # demo: 膜厚 is a topic of its own beside the pending surface treatment
        (
            "請依我們公司的標準確認膜厚後繼續準備報價",
            ["surface_treatment"],
            "film_thickness",
            {("膜厚 film thickness", "請依我們公司的標準確認膜厚後繼續準備報價"): 0.18},
            False,
        ),
    ],
)
def test_a_topic_named_in_a_phrase_about_pending_work_is_that_work(
    phrase, pending, topic, table, closer
):
    wording = TaskWording([phrase], [], TableSimilarity(table))
    assert wording.closer_to_pending(phrase, pending, topic) is closer


@pytest.mark.parametrize(
    ("supplement", "key", "code", "other"),
    [
        # museum LOAN-NPM-INS-017: 保險金額 is insurance_value in the person's words.
        (MUSEUM_NPM, "insurance_value", "LH-1932-017", None),
        # pharma wording: 偏差 names a deviation; CAPA-2026-031 is another clause's business.
        (
            "QA 要确认 DEV-2026-0588 的偏差等级，CAPA-2026-031 另案处理。",
            "deviation_class",
            "DEV-2026-0588",
            "CAPA-2026-031",
        ),
        # hrlegal wording (Traditional): 付款期限, and a task number said of something else.
        (
            "請查 PO-HY-2026-0415 的付款期限，另外 HZ-T-HY-1128 已結案。",
            "payment_deadline",
            "PO-HY-2026-0415",
            "HZ-T-HY-1128",
        ),
    ],
)
def test_a_code_in_the_phrase_that_writes_the_name_in_chinese_narrows_the_search(
    supplement: str, key: str, code: str, other: str | None
) -> None:
    """The person names the item in their own words, not its English name: the code they give
    in that phrase narrows both searches; a code of another clause does not."""
    words = TaskWording(clauses(supplement), []).words_for(key, chinese=True)
    assert code.lower() in words.name.lower().split()
    assert words.phrase is not None and code.lower() in words.phrase.lower().split()
    if other is not None:
        assert other.lower() not in f"{words.name} {words.phrase}".lower()


@pytest.mark.parametrize(
    ("supplement", "key", "other", "theirs", "ours"),
    [
        # itdesk: a change request asking two things, a freeze check and who approves
        (
            "帮我确认这个时间会不会撞上封网、要谁审批，起草一个内部回复草稿。",
            "freeze_check",
            "approver",
            "要谁审批",
            "帮我确认这个时间会不会撞上封网",
        ),
        # museum: a move asking for the crew and for the packing, each in its own clause
        (
            "請列出搬運要幾個人，包裝材料用哪一種。",
            "crew_size",
            "packing_material",
            "包裝材料用哪一種",
            "請列出搬運要幾個人",
        ),
    ],
)
def test_the_embeddings_pick_is_not_a_phrase_it_ranks_closer_to_another_open_item(
    supplement, key, other, theirs, ours
):
    # The embedder ranks the other item's phrase first for this item too, but closer still
    # to that other item: it is that item's phrase, and this item gets its own.
    name, other_name = key.replace("_", " "), other.replace("_", " ")
    similarity = TableSimilarity(
        {(name, theirs): 0.5, (name, ours): 0.4, (other_name, theirs): 0.8}
    )
    wording = TaskWording(clauses(supplement), [], similarity)
    assert wording.words_for(key, chinese=True).pick == theirs  # nothing else is open
    picked = wording.words_for(key, chinese=True, others=[other])
    assert picked.pick == ours

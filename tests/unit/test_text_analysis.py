"""Normalisation, identifiers and query terms: the lexical side of retrieval."""

from __future__ import annotations

import pytest

from services.language import frequency
from services.language import tokens as text


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("SUS304 1,200 件", ["sus304"]),
        ("ＳＵＳ３１６Ｌ 的鈍化", ["sus316l"]),
        ("PN-7731-B 與 PN-7731-C", ["pn-7731-b", "pn-7731-c"]),
        ("Q42 的報價", ["q42"]),
        ("A6061-T6 硬陽極", ["a6061-t6"]),
        ("Ti-6Al-4V Grade 5", ["ti-6al-4v"]),
        ("8D 報告", ["8d"]),
        ("SOP v2 的交期", []),  # version labels are metadata
        ("Can we accept 120-day payment terms?", []),  # quantities are not codes
        ("標準交期是幾天", []),
        # an ordinal is a number (foodqa, a SQuAD-like "22nd"); a code that holds one stays
        ("By what time does the December 1st load have to be at the SkyTray JFK unit?", []),
        ("the 22nd and 3rd floors, gate 1ST-A", ["1st-a"]),
        # a size written onto its number is a quantity (freight's "a 40ft"; a 150kW generator
        # from the rental desk); a grade or class the documents write so stays a code
        ("What's the haulage cost for a 40ft from Felixstowe up to Leeds?", []),
        ("two 150kW generators", []),
        # an amount after its currency sign is money (hrlegal's "NT$400k"; a demo part's price
        # and a Hong Kong car-park fee beside the codes that stay)
        ("Do we still need three quotes for a NT$400k order?", []),
        ("PN-7731-B at US$41.50, the space HK$3,200, SUS304", ["pn-7731-b", "sus304"]),
        (
            "SUS316L or 316L, a 10K telehandler, two 80-foot booms",
            ["sus316l", "316l", "10k", "80-foot"],
        ),
    ],
)
def test_identifiers_are_codes_with_letters_and_digits(query: str, expected: list[str]) -> None:
    assert text.identifiers(query) == expected


@pytest.mark.parametrize(
    ("haystack", "needle", "found"),
    [
        ("材質 SUS304，數量", "sus304", True),
        ("材質 SUS3040", "sus304", False),
        ("SUS304L 棒材", "sus304", False),
        ("料號pn-7731-b固定座", "pn-7731-b", True),
        ("pn-7731-bx", "pn-7731-b", False),
    ],
)
def test_identifiers_match_whole_tokens_only(haystack: str, needle: str, found: bool) -> None:
    assert text.contains_identifier(text.normalize(haystack), needle) is found


def test_normalize_folds_width_case_script_and_thousands() -> None:
    assert text.normalize("標準交期 ＳＵＳ３０４ 1,200 件") == "标准交期 sus304 1200 件"
    assert text.normalize("标准交期") == text.normalize("標準交期")


def test_a_dimension_with_the_multiplication_sign_is_the_same_as_typed_with_an_x() -> None:
    # fastener: a quotation writes 「M6×30」, the question types "M6x30"; itdesk: 「7×24 小时受
    # 理」; museum: a case's size 「58 × 46 × 40 公分」
    quote = text.normalize("品項：M6×30 十字沉頭機械螺絲 黑鋅，每千支 NT$ 420（未稅）。")
    assert text.contains_identifier(quote, "m6x30")
    assert text.normalize("7×24 小时受理") == text.normalize("7x24 小時受理")
    assert text.normalize("機芯箱 58 × 46 × 40 公分") == text.normalize("機芯箱 58x46x40 公分")
    assert text.normalize("× 2") == "× 2"  # a sign standing alone is left as written


def test_tokens_are_cjk_unigrams_and_bigrams_and_stemmed_words() -> None:
    tokens = text.tokens("標準交期 for handheld gauges")
    assert {"标准", "准交", "交期", "标", "期"} <= set(tokens)
    assert text.stem("gauge") in tokens and "handheld" in tokens
    assert "for" not in tokens  # stopwords would make every English chunk a lexical match


@pytest.mark.parametrize(
    ("query", "document", "words"),
    [
        # A freight forwarder's SOP writes the hyphen, the task asks without it.
        (
            "lhr delivery cutoff",
            "3. Cut-off at LHR shed\n- KC cargo: 6 hours before departure.",
            {"cutoff"},
        ),
        # A PCBA maker's mail writes them solid, the question with hyphens.
        (
            "When is the follow-up e-mail due?",
            "Send the followup email within 2 working days.",
            {"follow-up", "e-mail"},
        ),
    ],
)
def test_a_hyphenated_word_is_the_word_written_solid(
    query: str, document: str, words: set[str]
) -> None:
    units = text.TextUnits.of(text.normalize(document))
    terms = {t.display: t for t in text.content_terms(query)}
    assert words <= set(terms)
    assert all(terms[w].text in units for w in words)


def test_stemming_joins_inflections() -> None:
    assert text.stem("calibrated") == text.stem("calibration") == text.stem("calibrate")
    assert text.stem("gauges") == text.stem("gauge")
    assert text.stem("shipped") == text.stem("shipping") == "ship"
    assert text.stem("process") == "process"


@pytest.mark.parametrize(
    ("question", "word", "written"),
    [
        # plant hire's chat log: the PO was sent
        (
            "When did Beth in Keller AP send PO KC-26-4471?",
            "send",
            "- PO KC-26-4471 sent by Beth Kramer (per Dana)",
        ),
        # IT desk: how long backups are kept
        (
            "How many days do we keep the daily full database backups?",
            "keep",
            "Backup retention: daily full backups are kept for 35 days.",
        ),
        # museum: gloves are worn
        (
            "Do I have to wear gloves to pick up a glazed porcelain bowl?",
            "wear",
            "Nitrile gloves are worn for all handling; cotton gloves are no longer used.",
        ),
        # forwarder: goods lost or damaged
        (
            "If we lose a pallet, what's the most we're liable for under our standard terms?",
            "lose",
            "limited to 2 SDR per kilo of gross weight of the goods lost or damaged",
        ),
    ],
)
def test_an_irregular_inflection_is_its_lemma(question, word, written) -> None:
    # "sent" is no suffix away from "send": the light stemmer alone never met them
    terms = {t.display: t for t in text.content_terms(question)}
    assert terms[word].text in text.TextUnits.of(text.normalize(written))


def test_a_form_that_is_a_word_of_its_own_or_a_regular_inflection_keeps_its_stem() -> None:
    # "left" is also a side, "found" also a verb of its own: never read as leave or find
    assert text.stem("left") == "left" and text.stem("found") == "found"
    # regular inflections keep the suffix rules' stem, a prefix of every form a text writes
    assert text.stem("verified") == "verifi" and text.stem("shipped") == "ship"
    assert text.stem("stored") == text.stem("storing") == text.stem("store")
    # what lemmas cannot join, they leave apart (a derivation, not an inflection)
    assert text.stem("liable") != text.stem("liability")


def test_an_amount_after_a_currency_sign_is_no_word_of_a_question() -> None:
    terms = {
        t.text for t in text.content_terms("Do we still need three quotes for a NT$400k order?")
    }
    assert "nt" not in terms and "400k" not in terms and "order" in terms


def test_content_terms_drop_function_words_and_proposed_quantities() -> None:
    terms = [t.display for t in text.content_terms("Q42 的報價可以先用 7 日交期寄給客戶嗎？")]
    assert terms[0] == "Q42"
    assert "7" not in "".join(terms)
    assert all(word not in "".join(terms) for word in ("可以", "嗎", "的"))


def test_content_terms_of_an_english_question_are_its_content_words() -> None:
    terms = [t.text for t in text.content_terms("How often do handheld gauges need calibration?")]
    assert terms == ["handheld", text.stem("gauges"), text.stem("calibration")]


@pytest.mark.parametrize(
    ("question", "words"),
    [
        # freight forwarding (blind-freight), HR (blind-hrlegal), IT service desk (blind-itdesk)
        (
            "If we lose a pallet, what's the most we're liable for under our standard terms?",
            ["lose", "pallet", "liable", "standard", "terms"],
        ),
        (
            "I'll be staying in Hsinchu City for the Huayang job.",
            ["staying", "hsinchu", "city", "huayang", "job"],
        ),
        ("I've been with the company for four years.", ["company", "four", "years"]),
        ("How many days before we're forced to change it?", ["days", "forced", "change"]),
    ],
)
def test_what_is_left_of_an_english_contraction_is_not_a_word(question, words) -> None:
    """we're, I've, we'll: the tokenizer splits at the apostrophe; re, ve, ll are not topics."""
    assert [t.display for t in text.content_terms(question)] == words


def test_a_cjk_term_is_found_by_the_characters_its_bigrams_cover() -> None:
    term = next(t for t in text.content_terms("交期延長") if t.kind == "cjk")
    units = text.unit_set(text.normalize("新版：標準交期 15 日"))
    assert term.coverage(units) == pytest.approx(0.5)


def test_script_of_tells_chinese_from_english_text() -> None:
    assert text.script_of("PN-7731-B 固定座 CNC 加工作業指導書") == "cjk"
    assert text.script_of("The calibration interval is 6 months.") == "latin"


@pytest.mark.parametrize(
    ("question", "kept", "dropped"),
    [
        # A distributor's return policy (Traditional) and a pharma QA question (Simplified).
        ("非不良品退貨的 restocking fee 要收幾 %？", {"退货", "restock"}, {"要收"}),
        ("客人想請 SGS 到廠裡看我們做檢驗，報價前要先確認哪些東西？", {"检验", "报价"}, {"前要"}),
        ("加速试验出现显著变化的话，要不要加做中间条件？", {"显著", "变化"}, set()),
        # A verb asked as yes-or-no is how the question asks, not a topic: itdesk
        # (Simplified), hrlegal and distributor (Traditional), museum (Traditional)
        ("帮我确认这个时间会不会撞上封网", {"确认", "时间"}, {"不会", "会不会"}),
        ("公司是不是有生日假？", {"公司"}, {"是不是"}),
        ("這顆料還在不在保固內？", {"保固"}, {"不在"}),
        ("搬瓷碗要不要戴手套？", {"手套"}, {"不要", "要不要"}),
        ("他们能不能今天到货", {"到货"}, {"不能"}),
        # Written Cantonese (a Hong Kong property manager): its particles, copula and question
        # words are no topics either; Mandarin words with the same characters stay (系统, 关系)
        ("聽講裝修按金係$3,000，而家仲係咪咁？", {"装修", "按金"}, {"而家仲系", "咪咁", "仲系咪"}),
        ("裝修期間使唔使通知管理處？", {"装修", "通知", "管理处"}, {"使唔使", "唔使"}),
        ("系统维护期间的关系数据库备份", {"系统维护", "关系数据库", "备份"}, set()),
    ],
)
def test_particles_the_segmenter_glued_to_a_word_are_not_topics(question, kept, dropped):
    words = set(text.content_words(text.normalize(question)))
    assert kept <= words
    assert not dropped & words


@pytest.mark.parametrize(
    ("question", "kept", "dropped"),
    [
        # itdesk: a holiday's freeze; pharma: an audit cycle; hrlegal: a late-night meal
        ("清明节假期要不要封网？", {"清明节", "假期", "封网"}, set()),
        ("关键物料厂家的现场复审周期是几年？", {"复审", "周期"}, set()),
        ("抢修的时候公司有没有误餐费或者夜宵费？", {"误餐费", "夜宵"}, set()),
        # times said relative to now are no topic (distributor, hrlegal, pharma, museum)
        ("现在还能下单吗？", {"下单"}, {"现在"}),
        ("明年要涨价吗？", {"涨价"}, {"明年"}),
        ("当时谁负责？", {"负责"}, {"当时"}),
        ("去年的价格是多少？", {"价格"}, {"去年"}),
    ],
)
def test_a_time_word_naming_a_time_of_its_own_is_a_question_word(question, kept, dropped):
    words = set(text.content_words(text.normalize(question), times=True))
    assert kept <= words
    assert not dropped & words


def test_a_statements_time_is_not_what_it_is_about():
    # museum: two records restating one donation, one of them 「戰後」 (after the war)
    statement = "戰後移交本館，通稱林茂堂捐贈陶瓷"
    assert "战后" not in text.content_words(text.normalize(statement))
    assert "战后" in text.content_words(text.normalize(statement), times=True)


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("额亦都是哪个国家的开国大臣？", "额亦"),  # an encyclopedia question (CMRC 2018)
        ("鄭倢伃是哪個團體的成員？", "郑倢伃"),
    ],
)
def test_a_name_the_segmenter_cannot_place_is_kept_as_one_word(question, name):
    assert name in frequency.unknown_words(text.normalize(question))


def test_dictionary_words_particles_and_everyday_pairs_are_not_unknown_words():
    assert frequency.unknown_words(text.normalize("標準交期是幾天"), joined=False) == []
    # 交期, which the segmenter joins but its dictionary lacks, is a word of the question.
    assert frequency.unknown_words(text.normalize("標準交期是幾天")) == ["交期"]
    # 「上有」「約有」: two everyday words side by side, not a name (CMRC 2018 questions).
    assert frequency.unknown_words(text.normalize("克什米尔马鹿在外形上有什么特征？")) == []
    assert frequency.unknown_words(text.normalize("女神响尾蛇有记录以来最长的约有多长？")) == []


TAGGED_TEXTS = [
    "首件檢驗報告要收多少錢？",
    "額亦都是哪個國家的開國大臣",
    "A6061-T6 硬陽極膜厚為 25 µm，公差 ±5 µm。",
    "The VGM must reach the carrier no later than 24 hours before the CY cut-off.",
    "交期排程標準交期 15 日，本公司 作業 程序（PN-1234-A）。",
    "鄭倢伃是哪個團體的成員？ 𠀋 ㄅ かな 한국",
]


@pytest.mark.parametrize("raw", TAGGED_TEXTS)
def test_content_words_are_what_jiebas_tagger_gives_the_whole_text(raw: str) -> None:
    """The blocks and unknown runs tagged one at a time give what one `posseg.cut` gives."""
    import jieba.posseg

    normalized = text.normalize(raw)
    text.segmenter()
    tagged = [(p.word.strip(), p.flag) for p in jieba.posseg.cut(normalized)]
    one_at_a_time = [
        pair
        for block in text._JIEBA_BLOCK.findall(normalized)
        for pair in text._tagged(block, text._call)
    ]
    assert [p for p in tagged if p[0] and p[1] != "x"] == [
        p for p in one_at_a_time if p[0] and p[1] != "x"
    ]
    remembered: dict[str, text.Tagged] = {}

    def remember(run: str, tag: object) -> text.Tagged:
        return remembered.setdefault(run, text._unknown_run(run))

    assert text.content_words(normalized, remember) == text.content_words(normalized)


def test_the_tagger_s_unknown_runs_are_asked_of_the_cache() -> None:
    asked: list[str] = []

    def remember(run: str, tag: object) -> text.Tagged:
        asked.append(run)
        return text._unknown_run(run)

    normalized = text.normalize("額亦都是哪個國家的開國大臣")
    assert text.content_words(normalized, remember) == ["国家", "开国", "大臣"]
    assert asked == ["额亦都是"]  # the run the dictionary does not know, and only it


@pytest.mark.parametrize(
    ("written", "identifier", "named"),
    [
        ("1. 适用设备：TP-01～TP-04旋转式压片机", "tp-03", True),  # pharma: a tablet-press SOP
        (
            "品項：新竹二廠機電工程（含無塵室空調箱 AHU-1～AHU-6、冰水主機2台）",
            "ahu-3",
            True,
        ),  # hrlegal
        ("TP-01~04 旋转式压片机", "tp-04", True),  # the second end without its series
        ("1. 适用设备：TP-01～TP-04旋转式压片机", "tp-05", False),  # outside the range
        ("1. 适用设备：TP-01～TP-04旋转式压片机", "tp-3", False),  # not how the series numbers
        ("品項：AHU-1～AHU-6", "chw-3", False),  # another series
    ],
)
def test_a_numbered_range_of_one_series_names_each_of_its_members(written, identifier, named):
    assert text.contains_identifier(text.normalize(written), identifier) is named


@pytest.mark.parametrize(
    ("sentence", "thing"),
    [
        ("海港置業份保養合約，零件有冇折扣？", "零件"),  # hkrepair (Cantonese)
        ("不鏽鋼零件出貨時，一個紙箱最多可以裝多重？", "零件"),  # demo (Traditional)
        ("零部件的检验由品保课负责。", "零部件"),  # Simplified
    ],
)
def test_a_word_the_dictionary_reads_as_zero_of_a_measure_names_a_thing(sentence, thing):
    # the general dictionary tags 零件 "mq" (零, zero, and the measure 件)
    assert thing in text.content_words(text.normalize(sentence))


def test_a_number_with_its_measure_is_still_no_word():
    assert text.content_words(text.normalize("三件、一個、十次")) == []


@pytest.mark.parametrize(
    ("written", "identifier", "found"),
    [
        ("7.2 The Loda 60,000 km service is booked as 3.5 labour hours.", "60k", True),  # dealer
        ("74LVC1G08GW：>=30,000 pcs US$0.021", "30k", True),  # distributor
        ("Orders of 30000 pcs or more", "30k", True),
        ("The 160,000 km service", "60k", False),  # not part of a larger number
        ("6,000 km", "60k", False),
        ("60,000.5 kg", "60k", False),
    ],
)
def test_a_number_of_thousands_written_with_k_is_found_written_in_full(written, identifier, found):
    assert text.contains_identifier(text.normalize(written), identifier) is found

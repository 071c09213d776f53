"""The answerability rule (services/retrieval/answerability.py) on text from several datasets:
IDF-weighted coverage over the eligible set, the distinctive unit, identifiers, answer types,
and the embedding's rank across scripts."""

from __future__ import annotations

import pytest

from services.language import answer_types, sentences
from services.language import tokens as text
from services.retrieval import answerability, relevance, spans

# A principal's eligible set: three precision-machining SOPs (zh-Hant), an export procedure and
# a reflow profile (English), two Simplified-Chinese encyclopedia passages.
ELIGIBLE = [
    "新版：標準交期 15 日；特殊檢驗另評估。二、常備材料且數量 3,000 件以下之訂單，標準交期 15 日。",
    "四、委外表面處理（陽極、電鍍、鈍化）之天數依委外廠回覆另計，並於報價單交期欄分列。",
    "熱處理外包前置時間為 7 個工作日，由採購部確認外包廠產能。",
    "The gross weight per crate must not exceed 500 kg. Crates are marked with the order number.",
    "The peak reflow temperature for SAC305 solder paste is 250 °C.",
    "1976年，他被任命为西贡总教区的助理主教，1990年出任河内总教区总主教。",
    "该堂区成立于1905年，服务底特律北部的天主教徒。",
]
TEXTS = [text.normalize(t) for t in ELIGIBLE]
UNITS = [text.TextUnits.of(t) for t in TEXTS]


def profile(query: str) -> answerability.QueryProfile:
    return answerability.profile(
        query,
        lambda unit: answerability.document_frequency(unit, TEXTS, UNITS),
        len(TEXTS),
    )


def judge(query: str, span: str, *, title: str = "", z: float = 0.0, rank: int | None = None):
    return answerability.judge(
        profile(query), span, title, section=span, vector_z=z, vector_rank=rank
    )


def test_a_span_covering_the_question_answers_it_in_chinese_and_in_english():
    assert judge("標準交期是幾天", ELIGIBLE[0]).answers
    assert judge(
        "What is the maximum gross weight of one export crate?",
        ELIGIBLE[3],
        title="Export Packaging and Shipping Procedure",
    ).answers
    assert judge("他什么时候被任命为助理主教？", ELIGIBLE[5]).answers


def test_the_most_distinctive_term_must_be_covered():
    # 電鍍 is the rarest unit of the question that the knowledge uses at all: a heat-treatment
    # lead time covers the rest of the words and still does not answer.
    verdict = judge("電鍍外包前置時間", ELIGIBLE[2])
    assert not verdict.answers
    assert "电镀" in verdict.missing
    assert profile("電鍍外包前置時間").distinctive == "电镀"


def test_a_missing_identifier_makes_a_span_insufficient():
    assert not judge("What is the peak reflow temperature for SAC405 paste?", ELIGIBLE[4]).answers
    assert judge("What is the peak reflow temperature for SAC305 paste?", ELIGIBLE[4]).answers


def test_a_question_asking_for_a_type_needs_a_span_stating_one():
    procedure = "檢驗報告格式：本公司標準格式或客戶指定格式（如 FAI 首件報告）。"
    assert not judge("首件檢驗報告要收多少錢？", procedure).answers
    assert "a stated money" in judge("首件檢驗報告要收多少錢？", procedure).missing


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("交期要幾天？", answer_types.DURATION),
        ("How long does a reflow profile take?", answer_types.DURATION),
        ("他是哪一年出任总主教的？", answer_types.DATE),
        ("When did the parish open?", answer_types.DATE),
        ("FAI 報告多少錢？", answer_types.MONEY),
        ("How much does the crate cost?", answer_types.MONEY),
        ("这批一共有几件？", answer_types.COUNT),
        ("What percentage is rejected?", answer_types.PERCENTAGE),
        # 「百分之多少」 is "what percent" as much as 「百分之几」: a contract's credit cap
        # (Simplified), a management fee's interest (Cantonese 幾多)
        ("今年每个月抵扣最高能抵到月费的百分之多少？", answer_types.PERCENTAGE),
        ("管理費逾期利息係百分之幾多？", answer_types.PERCENTAGE),
        ("Who approves the deviation?", answer_types.PERSON),
        # Cantonese asks 幾多 for 多少, 幾耐 for 多久, 幾時 for when, 邊位 for who, and counts
        # hours in 個鐘 (a Hong Kong property manager's residents; 鐘頭 is Mandarin too)
        ("計劃停水要提早幾多日通知住戶？", answer_types.DURATION),
        ("有人困 lift，管理員要幾多分鐘內趕到現場？", answer_types.DURATION),
        ("管理費拖咗幾耐會收到追數信？", answer_types.DURATION),
        ("車可以泊幾個鐘？", answer_types.DURATION),
        ("这批货要等几个钟头？", answer_types.DURATION),
        ("海韻苑電單車月租車位幾多錢一個月？", answer_types.MONEY),
        ("2座幾時停水？", answer_types.DATE),
        ("邊位住戶投訴過升降機有異響？", answer_types.PERSON),
        ("負責人係邊個？", answer_types.PERSON),
        ("今年有幾多個住戶投訴？", answer_types.COUNT),
        # a percent sign after the interrogative: a hotel's group attrition, a fastener maker's
        # wire-rod price
        ("Lumen Bay 團體訂房 attrition 可以減幾 % 不罰？", answer_types.PERCENTAGE),
        ("下個月盤元會漲幾%", answer_types.PERCENTAGE),
        # a charge asked as such: a car dealer's EV charging, a clinic's exam, a solar installer
        ("電動車代客充電一次收多少？", answer_types.MONEY),
        ("代客充電收幾多呀", answer_types.MONEY),
        (
            "How much for the FDW six-monthly medical exam (6ME) at Tanjong Pagar?",
            answer_types.MONEY,
        ),
        (
            "customer in Chermside rang asking how much for a call out, they're metro",
            answer_types.MONEY,
        ),
        # a price is a word ending in 價: a hotel's negotiated rate, a fastener customer's target
        ("晶星行政客房協議價多少？", answer_types.MONEY),
        ("GL-FB1035 客戶目標價", answer_types.MONEY),
        # one character after the interrogative is a unit, not a noun counted: a property
        # manager's interest in 厘 is still the fee's money
        ("管理費逾期利息係幾多厘？", answer_types.MONEY),
        # a temperature asked with a word between it and the ask, or as "temp": food QA, solar
        ("Fairhaven 的鸡肉中心温度标准是多少？", answer_types.TEMPERATURE),
        (
            "What core temp do we need for chicken cooked in the new IO-2 oven?",
            answer_types.TEMPERATURE,
        ),
        (
            "stinker forecast tmrw - at what temp do the boys have to come off the roof?",
            answer_types.TEMPERATURE,
        ),
        # rent, rebates and allowances are money: a hotel's room hire, an appliance retailer's
        # trade-in, a construction firm's outlying-island allowance
        ("寰宇廳全廳開會一整天（不含餐）場租多少？", answer_types.MONEY),
        ("雪櫃以舊換新有冇回贈？回贈幾多？", answer_types.MONEY),
        ("去金门出差有没有离岛加给？每天多少？", answer_types.MONEY),
        # a noun of time asked how much: a car dealer's labour hours, a fastener's test hours
        ("要跟客人報價，台北廠換前來令片工時抓多少？", answer_types.DURATION),
        ("Schwabe 4711-233 鹽霧時數多少？", answer_types.DURATION),
        # how many years something is kept or recurs: a fastener maker's records, pharma audits
        ("GLAC 紀錄要保存幾年", answer_types.DURATION),
        ("关键物料厂家的现场复审周期是几年？", answer_types.DURATION),
    ],
)
def test_answer_types_are_read_from_closed_class_question_words(question, kind):
    assert kind in answer_types.asked(question)


@pytest.mark.parametrize(
    "question",
    [
        "維修熱線星期六做到幾點？",  # hkrepair (Cantonese)
        "值班每周一几点交接？",  # itdesk (Simplified)
        "渤海零售的 P3 工单每天几点到几点受理？",
        "What time of day can sandwiches leave site once QA has released them?",  # foodqa
    ],
)
def test_a_time_of_day_is_asked_by_its_own_question_words(question):
    assert answer_types.TIME in answer_types.asked(question)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        # a discount as Chinese writes it: the share paid, in tenths (dealer, clinic, hkrepair,
        # hrlegal text)
        ("速聯合約工資打幾折？", "第 3 條 工資：依各廠工時單價打 9 折。"),
        ("員工家屬做體檢有冇折？打幾折？", "員工直系家屬可按九折收費。"),
        ("保養合約客戶換零件打幾折？", "合約客戶更換零件按正價 85 折收費。"),
        ("出差住宿費超過上限打幾折報？", "超出部分之住宿費按八折計。"),
        # Cantonese 幾多 for 多少 (hkrepair)
        ("海港置業份保養合約，零件有冇折扣？打幾多折？", "五、零件：按本公司零件價目 85 折收費；"),
    ],
)
def test_a_discount_in_tenths_states_the_share_asked(question, text):
    assert answer_types.asked(question) == (answer_types.PERCENTAGE,)
    assert answer_types.states(answer_types.PERCENTAGE, text)


@pytest.mark.parametrize(
    "text", ["設備按 5 年折舊。", "外幣 100 元折算新臺幣。", "第 3 折頁", "每月 20 日前下單"]
)
def test_a_number_before_other_words_of_folding_is_no_discount(text):
    assert not answer_types.states(answer_types.PERCENTAGE, text)


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("鼎盛合約裡面免費取送車是幾公里內？", "length"),  # dealer (Traditional)
        ("玻璃打碎了，周围几米以内的产品要报废？", "length"),  # foodqa (Simplified)
        ("外銷紙箱 一箱最多幾公斤", "mass"),  # fastener
        ("Tera MY2026 2.0T 四萬定保，機油含濾芯要備幾公升？", "volume"),  # dealer
        ("LH-1932-017 那個青花大盤，展出時燈光最亮能到幾 lux？", "lux"),  # museum
        ("稳定性的光照试验总照度要达到多少lux·h？", "lux·h"),  # pharma
        ("How many litres of engine oil does it take?", "volume"),
    ],
)
def test_an_amount_asked_in_a_unit_asks_for_that_measure(question, measure):
    kinds = answer_types.asked(question)
    assert answer_types.measure_kind(measure) in kinds
    assert answer_types.COUNT not in kinds  # "how many litres" asks a volume, not a count


@pytest.mark.parametrize(
    ("measure", "text", "states"),
    [
        ("length", "3.1 服務廠 15 公里內免費取送車。", True),  # dealer, in another unit too
        ("length", "All exposed product within 2 metres of the breakage is scrapped", True),
        ("length", "3. 合約正本存放於法務課，本頁不摘錄折扣與取送車條款。", False),
        ("mass", "二、外銷紙箱：雙層瓦楞紙箱（AB 楞），每箱毛重不得超過 25 公斤；", True),
        ("mass", "Max. gross weight per carton: 20 kg.", True),
        ("volume", "2. Engine oil capacity with filter change: 5.2 L", True),
    ],
)
def test_an_amount_of_a_measure_is_stated_in_any_of_its_units(measure, text, states):
    assert answer_types.states(answer_types.measure_kind(measure), text) is states


@pytest.mark.parametrize(
    ("question", "no_amount"),
    [
        ("德龙烟铁路经过哪些地方？", True),  # CMRC 2018: places
        ("雅芳河这个名字有什么意思？", True),  # CMRC 2018: a meaning
        ("Why was the lot rejected?", True),
        ("Kraft 的閥體詢價要幾件、送到哪裡？", False),  # demo: a count is asked too
        # hrlegal: "where" in a relative clause asks nothing
        (
            "What's the minimum rest between two shifts, and is there any case where it can be "
            "shorter?",
            False,
        ),
        ("一般散客取送車幾公里內免費？超過的怎麼算", False),  # dealer: "how" is reckoned in money
    ],
)
def test_a_question_asking_where_why_or_what_a_name_means_asks_no_amount(question, no_amount):
    assert answer_types.asks_no_amount(question) is no_amount


def test_points_counted_are_not_a_time_of_day():
    # 「幾點」 after 有／這／以下 counts points to note
    assert answer_types.asked("報價前有幾點要注意？") == ()
    assert answer_types.asked("以下幾點請確認") == ()


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("答：維修熱線 2388 6600，星期一至六 上午 9 時至晚上 7 時，星期日及公眾假期休息。", True),
        ("deliveries and pickups are accepted Monday through Friday, 7:00 to 15:00", True),
        ("Released product may leave site from 6am.", True),
        ("- 年末封网：每年 12 月 24 日起", False),  # a date is no time of day
        ("三、Cpk 低於 1.0 時，該特性須 100% 全檢。", False),
    ],
)
def test_a_time_of_day_is_stated_as_clocks_and_chinese_hours_write_it(text, states):
    assert answer_types.states(answer_types.TIME, text) is states


def test_which_followed_by_a_noun_asks_for_that_noun_not_for_a_person():
    # 「邊個時段」 is "which time slot", as 「哪個時段」 is; 邊個 alone asks who
    assert answer_types.PERSON not in answer_types.asked("裝修打窿鑽牆邊個時段先准做？")


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (answer_types.DATE, "1976年，他被任命为助理主教"),
        (answer_types.DATE, "we met last Saturday to sign"),
        (answer_types.DATE, "the order arrived two weeks ago"),
        (answer_types.DATE, "上週六已出貨"),
        (answer_types.DATE, "shipped on March 3, 2026"),
        (answer_types.DURATION, "標準交期 15 日"),
        (answer_types.DURATION, "within 10 working days"),
        (answer_types.MONEY, "每份 NT$ 3,500"),
        (answer_types.MONEY, "41.50 USD per piece"),
        (answer_types.PERCENTAGE, "加計 18%"),
        (answer_types.COUNT, "數量 1,200 件"),
    ],
)
def test_texts_stating_an_answer_type_are_recognised_in_both_languages(kind, text):
    assert answer_types.states(kind, text)


@pytest.mark.parametrize(
    "question",
    [
        "客戶希望出貨前先燒錄韌體，燒錄費怎麼收？",  # distributor: a fee is a word ending in 費
        "這件借給南港的保險金額是多少？",  # museum
        "What's the 4-week rate on the 2027 sheet?",  # chatlog
        "Can you give me the going rate for LCL out of Ho Chi Minh?",  # freight
        "加班費怎麼算？",  # hrlegal
    ],
)
def test_fees_amounts_and_rates_ask_for_money_in_both_languages(question):
    assert answer_types.MONEY in answer_types.asked(question)


@pytest.mark.parametrize(
    "question",
    [
        "工作日备值班有补贴吗？一天给多少？",  # an IT service desk (Simplified)
        "颱風停班被指派留守，還有值勤津貼嗎？一天多少？",  # hrlegal (Traditional)
        "出差期间的伙食补助是多少？",  # Simplified
        "What's the per diem for a site visit to Kinmen?",
        "How much is the night-shift bonus?",
    ],
)
def test_pay_allowances_and_subsidies_ask_for_money_in_both_languages(question):
    # Pay is named as a price is: "does it exist, and how much a day" is answered by an amount,
    # not by a rule saying the allowance is published elsewhere.
    assert answer_types.MONEY in answer_types.asked(question)


def test_free_waste_time_consuming_and_a_rate_of_flow_are_not_fees():
    for question in (
        "這項服務是否免費？",
        "这样做很浪费吗？",
        "这道工序很费时吗？",
        "What happened to the rate of flow in the Rhine?",  # SQuAD: a ratio, not a price
    ):
        assert answer_types.MONEY not in answer_types.asked(question), question


def test_a_temperature_is_asked_and_stated_in_both_languages():
    temperature = answer_types.TEMPERATURE
    assert temperature in answer_types.asked("LQFP 的 tray 料要烤幾度、烤多久？")  # distributor
    assert temperature in answer_types.asked("熱熔膠溫度要設定幾度？")  # holdout
    assert temperature in answer_types.asked("What is the peak reflow temperature for SAC305?")
    assert temperature not in answer_types.asked("Does the storage temperature matter?")
    assert answer_types.states(temperature, "同一批料 125°C 烘烤累計不得超過 96 小時")
    assert answer_types.states(temperature, "The peak reflow temperature is 250 °C.")
    assert answer_types.states(temperature, "bake at 180 degrees Celsius")
    assert not answer_types.states(temperature, "TI | TPS62130RGTR | 12 週 | 3,000")
    assert not answer_types.states(temperature, "彎折成 90度角")


def test_pay_counted_in_wages_states_money():
    assert answer_types.states(
        answer_types.MONEY, "除法定資遣費外，得另加發不超過2個月平均工資之離職慰問金。"
    )
    assert answer_types.states(answer_types.MONEY, "capped at two months' salary")
    assert not answer_types.states(answer_types.MONEY, "供應週期約 2 個月")


# Price lists of four datasets (freight, pharma, museum and chat-log rental, in English,
# Simplified and Traditional Chinese): the currency is named once, the amounts are bare.
_PRICE_LISTS = [
    "All prices GBP, excluding VAT. Valid 1 Jan - 31 Dec 2026.\n\n"
    "Import declaration (up to 5 commodity lines) ..... 75.00",
    "序号　项目　单位　单价（元，含税）\n"
    "2　额外稳定性考察（单批单条件，考察至36个月）　批·条件　18,000",
    "單位：新臺幣\n序｜登錄號｜名稱｜保險金額\n1｜LH-1932-017｜青花纏枝蓮紋大盤｜2,400,000",
    "Rates in USD: day / week / 4-week.\n"
    "JLG 1055 10,000 lb telehandler ........ 585 / 1,620 / 3,700",
]


@pytest.mark.parametrize("text", _PRICE_LISTS)
def test_a_price_list_that_names_its_currency_once_states_money(text):
    assert answer_types.states(answer_types.MONEY, text)
    # without the line or header that names the currency, the same rows state no money
    rows = "\n".join(line for line in text.splitlines()[1:] if "元" not in line)
    assert not answer_types.states(answer_types.MONEY, rows)


def test_a_currency_word_inside_another_word_or_beside_its_amount_declares_nothing():
    assert not answer_types.states(answer_types.MONEY, "電子元件 1,200 個，單元測試 3.14")
    assert not answer_types.states(answer_types.MONEY, "population 1,234,000 in 2010")
    assert answer_types.declared_currency("gbp 55 per import entry") is None  # an amount
    assert answer_types.declared_currency("收入 1,000 元") is None
    assert answer_types.declared_currency("单价(元,含税)") == "元"
    # a currency named, but no amount written bare: nothing more than before
    assert not answer_types.states(answer_types.MONEY, "Rates in USD are set by the branch.")


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("依現行管理規定，橋上同時通行人數以 20 人為限", True),  # museum: a number with a counter
        ("Please quote 300 pcs of the valve body PN-2208-A in SUS316L", True),  # demo
        ("1935 年 2 月，榮町發生大火，燒毀店屋 47 戶", True),  # museum: 47 stands alone
        # numbers that are other quantities, a code or a list item's number count nothing
        ("1982 年支線停駛後，鐵橋改作公路便橋使用；", False),  # museum: a year
        ("英土战争是一场发生于1807－1809年间的战争", False),  # CMRC 2018: years
        ("Ahead of our supplier audit on 10 December, please tell us", False),  # demo: a date
        ("1. 贵司希望 2027 年起升级为铂金支持", False),  # itdesk: a list item, a year
        ("Schwabe 4711-233 salt spray", False),  # fastener: a part number
        ("Keep at least 300 mm of clear space on each side of the battery cabinet", False),  # solar
        # a number written in words alike: a duration is no count (chatlog, solar)
        ("Push all three units four weeks - Monday, December 7th.", True),
        ("11:31 Ray: Probably two weeks on site.", False),
        (
            "covered for a full decade from the day it was installed - tell customers ten years.",
            False,
        ),
    ],
)
def test_a_number_is_a_count_only_where_it_is_no_other_quantity(text, counts):
    assert answer_types.states(answer_types.COUNT, text) is counts


@pytest.mark.parametrize(
    "question",
    [
        "group block attrition now allow how many % ah, and by when client must tell us?",  # hotel
        "下半年漲價 大概漲幾%",  # fastener
    ],
)
def test_how_many_percent_asks_for_a_share_not_a_count(question):
    kinds = answer_types.asked(question)
    assert answer_types.PERCENTAGE in kinds
    assert answer_types.COUNT not in kinds


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # a numeral's counter is no office; a word with 說 in it is no one speaking
        ("在三叠纪，华北陆块成为盘古大陆的一部分。", False),  # CMRC 2018
        ("每种胜任力涉及一组特定的行为，并提供一套结构化的指导", False),  # CMRC 2018
        ("瀾河鐵橋橫跨瀾河溪下游，原為鐵路瀾河支線的一部分。", False),  # museum
        ("進行防鏽塗裝與橋面步道更新，並於兩端橋頭設置解說牌", False),  # museum
        # an office and a person speaking still are
        ("接單與包裝規則　版本 1　權責：業務部", True),  # distributor
        ("陳振堂表示將於明年完工", True),
    ],
)
def test_an_office_or_a_speaker_states_a_person_a_counter_or_a_word_does_not(text, names):
    assert answer_types.states(answer_types.PERSON, text) is names


def test_a_person_is_a_capitalised_name_or_a_role_not_any_two_words():
    person = answer_types.PERSON
    assert answer_types.states(person, "Signed off by Dana Whitaker on 3 June")
    assert answer_types.states(person, "09:22 Dana: same crew as on Boone")  # a chat log
    assert answer_types.states(person, "the duty manager signs the release")
    assert not answer_types.states(person, "cargo is released once customs clearance shows")
    assert not answer_types.states(person, "Cargo is released. Then the haulier collects")


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # CMRC 2018 passages: a name with no role word beside it
        ("周（1678年－1681年），是清朝初年三藩之乱时吴三桂建立的政权。", True),
        ("《长眠不醒》（The Big Sleep）是雷蒙·钱德勒1939年的小说。", True),  # transliterated
        # a museum's history notes and an IT desk's contract (blind sets)
        ("1923 年返臺後，陳振堂先任職於臺北一家營造會社。", True),
        ("技术对接人：张伟", True),
        # words the tagger also marks as names, common in the language: no person
        ("宏築營造股份有限公司 工作規則（民國115年3月1日修正施行）", False),
        ("動火作業應事先申請動火許可，許可有效期間以核發當日為限。", False),
        ("出貨時 DC 距出貨日不得超過 24 個月。", False),
    ],
)
def test_a_chinese_name_without_a_role_word_states_a_person(text, names):
    assert answer_types.states(answer_types.PERSON, text) is names


def test_relative_and_weekday_dates_count_as_dates_but_plain_words_do_not():
    assert not answer_types.states(answer_types.DATE, "the crate is marked with the order number")
    assert not answer_types.states(answer_types.DATE, "業務應於報價前開立確認單")


def test_across_scripts_only_the_embedding_rank_can_answer():
    english = "The calibration interval for handheld gauges is 6 months and is never extended."
    assert judge("手持量具的校正週期是多久？", english, z=3.1).answers
    assert judge("手持量具的校正週期是多久？", english, z=1.0, rank=1).answers
    assert not judge("手持量具的校正週期是多久？", english, z=1.2, rank=4).answers


@pytest.mark.parametrize(
    ("knowledge", "query", "distinctive"),
    [
        # an equipment-rental desk (English): the procedures write "inside" once, "jobsite" twice
        (
            [
                "Delivery charges within 50 miles of the branch: $185 each way per jobsite.",
                "A jobsite beyond 50 miles: delivery charges are quoted by the branch.",
                "Keep the units inside the fenced yard; delivery charges and branch hours posted.",
                "Damage waiver is 12% of the rental charges.",
                "Fuel is billed at the pump price.",
            ],
            "delivery charge for a jobsite inside 50 miles of the branch",
            "jobsit",
        ),
        # a contractor's site rules (zh-Hant): 「地方」「申請」 once each, 「鑽孔」 twice
        (
            [
                "鑽孔作業禁止於夜間進行，噪音不得超過 50 分貝。",
                "鑽孔作業前應申請動火許可。",
                "材料應堆放於指定地方。",
                "施工日誌每日填寫。",
                "保固期間為兩年。",
            ],
            "鑽孔要在什麼地方申請",
            "钻孔",
        ),
    ],
)
def test_the_distinctive_unit_is_rare_in_the_knowledge_and_specific_in_the_language(
    knowledge: list[str], query: str, distinctive: str
) -> None:
    """A word the knowledge's register seldom writes ("inside", 「地方」) is not what a question
    is about: rarity in the knowledge counts as much as the word is specific in its language."""
    assert profile_over(knowledge, query).distinctive == distinctive


def profile_over(knowledge: list[str], query: str) -> answerability.QueryProfile:
    """The query's profile when `knowledge` is everything the principal may read."""
    texts = [text.normalize(t) for t in knowledge]
    units = [text.TextUnits.of(t) for t in texts]
    return answerability.profile(
        query, lambda u: answerability.document_frequency(u, texts, units), len(texts)
    )


# Knowledge from three sets: a Hong Kong clinic's opening hours and direct-billing rules
# (Cantonese desk), a hotel's corporate rate agreement and its rate rules, a car maker's
# service bulletins.
CLINIC = [
    "| 中環診所（栢泉大廈） | 09:00–19:00 | 09:00–13:00 | 休息 |",
    "中環診所星期六只設普通科，不設體檢及抽血服務。",
    "由 2026 年 7 月 1 日起，中環診所星期六應診時間改為 09:00–13:00（原為 09:00–17:00）。",
    "病人登記時須出示有效會員卡正本及香港身份證；未能出示者須先付款，再自行向保險公司索償。",
]
HOTEL = [
    "2. 行政客房（單人或雙人入住）：NT$5,500 淨價，已含 10% 服務費及 5% 營業稅，"
    "含二客早餐及行政酒廊禮遇。",
    "1. 豪華客房（單人或雙人入住）：NT$4,950 淨價，已含 10% 服務費及 5% 營業稅，含一客早餐。",
    "第二條 房量承諾：客戶預估全年使用 2,800 間夜；"
    "實際使用未達 2,000 間夜時，乙方得於次年度調整協議價。",
    "晶星半導體 2026 年度企業住房協議書（台北朗灣）",
    "帳戶：晶星半導體 Kingstar Semiconductor（Profile ID 88215）",
    "A fixed negotiated corporate rate may be offered to accounts producing at least 300 room "
    "nights per year at the property.",
]
BULLETINS = [
    "Subject: Sliding door roller noise, Loda MY2025. Symptom: squeak from the right sliding "
    "door when opening at low temperature.",
    "TSB-CV-2026-022: Warranty op code LD-2231, labour 0.4 h.",
    "TSB-CV-2026-014: Warranty op code BR-0142, labour 0.3 h per axle.",
    "Subject: Front brake caliper mounting bolt tightening torque, Aster.",
    "Technical service bulletin (TSB) index for Loda and Aster.",
]


@pytest.mark.parametrize(
    ("knowledge", "query", "told"),
    [
        (CLINIC, "中環診所星期六幾點收工呀？有病人問緊", "病人"),
        (HOTEL, "晶星行政客房協議價多少？客人說含兩客早餐跟酒廊", "酒廊"),
        (
            BULLETINS,
            "Loda sliding door squeaking when cold morning. TSB say what op code and how many "
            "hours?",
            "squeak",
        ),
    ],
)
def test_the_distinctive_word_is_one_of_what_the_question_asks(
    knowledge: list[str], query: str, told: str
) -> None:
    """A sentence that tells (who is asking, what the guest said, what was seen) is no part of
    what must be answered: relevance reads the words of the asking sentences, and the word every
    relevant item must contain is one of them, however rare the told word is."""
    found = profile_over(knowledge, query)
    asking, _ = sentences.asking_and_told(query)
    assert found.distinctive is not None and found.distinctive != told
    assert found.distinctive in answerability.query_units(asking)
    # Asked as a question of its own, the told sentence's word is the rarest the knowledge uses.
    asked_too = query.replace("。", "？").replace(". ", "? ") + ("" if query[-1] in "?？" else "？")
    assert profile_over(knowledge, asked_too).distinctive == told


def test_a_word_no_readable_chunk_uses_weighs_most_but_is_never_the_distinctive_one():
    # 折扣 is in no readable chunk: nothing says it, so it weighs the most and the rest of the
    # question has to be covered all the better; the distinctive unit is one the knowledge uses.
    query = profile("標準交期有沒有折扣？")
    assert query.weights["折扣"] == max(query.weights.values())
    assert query.distinctive is not None and query.distinctive != "折扣"


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        # the interrogative asks for days or a person; the fee or price list is the topic
        ("出差回來之後，旅費要在幾天內報掉？", (answer_types.DURATION,)),  # hrlegal
        ("價格表最低那一階再往下讓 5%，要找誰簽？", (answer_types.PERSON,)),  # distributor
        ("How many free days before storage charges start?", (answer_types.DURATION,)),
        # an untyped interrogative leaves the noun to say what is asked
        ("除了加班費之外還有值勤津貼嗎？一天多少？", (answer_types.MONEY,)),  # hrlegal
        ("之前给瑞康报的额外稳定性考察，一批一个条件报的多少钱？", (answer_types.MONEY,)),  # pharma
    ],
)
def test_a_price_word_asks_for_money_only_when_no_interrogative_asks_for_something_else(
    question, kinds
):
    assert answer_types.asked(question) == kinds


@pytest.mark.parametrize(
    ("question", "asks_date"),
    [
        ("When is the SI cut-off for Saturday sailings?", True),  # freight
        ("So when do they need the generators on site?", True),  # chatlog
        ("What info has to be on the 2D barcode label when we ship out?", False),  # distributor
        ("What did the Normans do when they arrived in Italy?", False),  # SQuAD
        # a first "when" whose clause a comma closes before the question's own auxiliary
        # is a clause of time: propmgmt asks yes or no; a comma before "and" is still a date
        (
            "When the No. 8 signal or a black rainstorm warning is in force, do the clubhouse "
            "and swimming pool stay open?",
            False,
        ),
        ("When exactly is the electricity cut at King Fung Mansion, and will the lifts run?", True),
        ("When does the BRCGS audit window open for the Columbus, Ohio site?", True),  # foodqa
        ("When is Keller adding scissor lifts for the interior fit-out, and how many?", True),
    ],
)
def test_when_asks_for_a_date_only_as_the_question_word(question, asks_date):
    assert (answer_types.DATE in answer_types.asked(question)) is asks_date


def test_a_unit_writing_the_question_s_number_is_the_span_about_it():
    # museum: the overview lists three donations; the question names the year of one
    overview = (
        "1. 1968 年，地方望族徐氏家族捐贈閩南日用陶瓷 212 件，含碗、盤、醬缸及祭祀用器；"
        "3. 2019 年，一位不願具名的捐贈人捐贈日治時期臺灣燒製的陶瓷 37 件，包括北投窯、鶯歌窯產品，"
        "補足了本館 20 世紀前半本地窯業的收藏缺口。"
    )
    score = answerability.span_score(profile("1968年徐家捐了多少件陶瓷？"))
    start, end = spans.best_span(overview, 0, len(overview), score)
    assert overview[start:end].startswith("1. 1968 年")
    # CMRC 2018 (zh-Hans encyclopedia): two appointments, the question names one year
    career = "1976年，他担任西贡总教区的助理主教。1990年，他担任河内总教区总主教。"
    score = answerability.span_score(profile("他1990年担任什么职务？"))
    start, end = spans.best_span(career, 0, len(career), score)
    assert career[start:end] == "1990年，他担任河内总教区总主教。"


def test_question_numbers_leave_out_identifiers_and_read_thousands_whole():
    assert answerability.question_numbers("LH-1932-017 借給南港的保險金額是多少？") == ()
    assert answerability.question_numbers("SUS304 1,200 件交期") == ("1200",)


def test_a_longer_word_the_knowledge_never_writes_whole_stands_for_the_words_inside_it():
    """CMRC 2018: 「香港艺人」 is in no passage; 香港 and 艺人 are, and so is 港艺 (香港艺术),
    which is no word: the word's parts are the dictionary's words inside it."""
    knowledge = [
        "陈志云透露无线电视艺人崔建邦曾寻求生命热线辅导。",
        "香港艺术节每年二月举行。",
        "生命热线是香港一个志愿服务机构。",
        "节目于翡翠台播放。",
    ]
    found = profile_over(knowledge, "哪个香港艺人曾在2009年寻求过生命热线的辅导？")
    assert {"香港", "艺人"} <= set(found.weights)
    assert "港艺" not in found.weights
    assert found.distinctive != "港艺"


@pytest.mark.parametrize(
    ("word", "inside"),
    [
        ("香港艺人", ["香港", "艺人"]),  # CMRC 2018
        ("藏传佛教", ["藏传", "佛教"]),  # CMRC 2018
        ("保固期", ["保固"]),  # a supplier contract
        ("电镀外包", ["电镀", "外包"]),  # the demo's plating SOP (units are folded to Simplified)
        ("德龙烟", []),  # a name the dictionary has no word of
    ],
)
def test_the_words_inside_a_word_are_the_dictionary_s(word: str, inside: list[str]) -> None:
    assert text.words_inside(word) == inside


@pytest.mark.parametrize(
    "text",
    [
        "7.2 The Loda 60,000 km service is booked as 3.5 labour hours.",  # dealer
        "Boom lifts on long-term rental get an on-site PM every 250 engine hours.",  # chatlog
    ],
)
def test_hours_of_work_or_of_running_state_a_duration(text):
    assert answer_types.states(answer_types.DURATION, text)


@pytest.mark.parametrize(
    ("question", "glued"),
    [
        ("體檢想取消，要幾多個工作天前通知先可以全數退款？", "天前"),  # clinic
        ("計劃停水要提早幾多日貼通告？", "日贴"),  # propmgmt
        ("普通变更要提前几个工作日报给 CAB？", "日报"),  # itdesk
        ("海港置業緊急維修，我哋要幾多個鐘內到場？", "钟内"),  # hkrepair
        ("延長保固最晚要在領牌後幾個月內買？", "月内买"),  # dealer
        ("艾克美客訴時，8D 報告要在幾個工作天內交？", "天内交"),  # demo
    ],
)
def test_the_quantity_a_question_asks_for_is_not_glued_to_the_next_word(question, glued):
    # "how many working days before" asks for an amount; a segmenter glues its unit to what
    # follows, a word no document writes, which then weighs the most of all
    units = answerability.query_units(question)
    assert glued not in units
    assert glued not in {t.text for t in relevance.question_terms(question)}


def test_the_unit_a_question_asks_in_stays_one_of_its_words():
    # 小時 of 「多少小時」 is written beside every duration in hours (demo's salt-spray question)
    assert "小时" in answerability.query_units("钝化件盐雾测试时间是多少小时？")


@pytest.mark.parametrize(
    ("question", "compound", "part"),
    [
        # forwarder (English desk): a margin floor needs someone's sign-off, not a signature
        (
            "What's the lowest margin I can go to on an air export before I need sign-off?",
            "sign-off",
            "sign",
        ),
        # solar installer (English chat): the cooling-off period, not cooling
        ("how long is the cooling-off period on a residential contract?", "cooling-off", "cool"),
        # plant hire (English chat): PM services on site, not the site
        (
            "Long-term boom rental - how many engine hours between our on-site PM services?",
            "on-site",
            "site",
        ),
        # food plant (English): a use-by date, whose parts are both function words
        ("What use-by date goes on the chilled sandwiches?", "use-by", None),
    ],
)
def test_a_hyphenated_word_with_a_function_word_in_it_is_one_unit(question, compound, part):
    # Cut to its content parts, "sign-off" would be looked for as "sign" (found in every
    # "signed declaration") and "use-by" as nothing at all.
    units = answerability.query_units(question)
    assert compound in units
    assert part is None or part not in units
    # A hyphenated word of content words only stays two words ("animal-origin products").
    assert {"animal", "origin"} <= set(answerability.query_units("animal-origin products"))


@pytest.mark.parametrize(
    ("compound", "written", "found"),
    [
        ("on-site", "On rentals longer than 28 days PLP performs the PM on site.", True),  # hire
        ("on-site", "the on-site contact at least 2 business days before", True),  # hire
        ("cooling-off", "The customer has a cooling-off period of 10 business days.", True),
        ("cooling-off", "still inside the cooling off?", True),  # solar chat, written apart
        ("cut-off", "VGM to carrier | 48 hrs before CY cutoff", True),  # forwarder, solid
        ("sign-off", "Sign-off limits per declaration (customs value)", True),  # forwarder
        ("sign-off", "Meridian staff must not sign a DGD for the shipper.", False),
        ("on-site", "Deliveries to the site office only.", False),
        ("cooling-off", "Cooling of the battery cabinet is passive.", False),
    ],
)
def test_a_hyphenated_unit_is_present_hyphenated_solid_or_apart(compound, written, found):
    normalized = text.normalize(written)
    assert answerability.present(compound, normalized, text.TextUnits.of(normalized)) is found


@pytest.mark.parametrize(
    "question",
    [
        "收多少人",  # a count of people taken in, not a charge
        "你收多少個學生？",
        "客戶評價如何？",  # an evaluation, not a price
        "議價怎麼做？",  # bargaining is done about prices, it is none
        "性价比高吗？",  # a price ratio
        "这个的价值是多少？",
        # a noun counted after the interrogative says what is asked: room nights, not the rate
        "企業協議價最少要多少間夜才能給固定價？不到的怎麼處理",
    ],
)
def test_a_charge_or_a_price_word_does_not_ask_for_money_where_it_names_something_else(question):
    assert answer_types.MONEY not in answer_types.asked(question)


def test_labour_hours_asked_in_money_ask_for_money():
    assert answer_types.asked("工時多少錢？") == (answer_types.MONEY,)


@pytest.mark.parametrize("question", ["你读几年级？", "第几年开始的？", "几年前的事了？"])
def test_a_school_year_an_ordinal_or_a_time_ago_is_no_duration(question):
    assert answer_types.DURATION not in answer_types.asked(question)


@pytest.mark.parametrize(
    "question",
    [
        "How often is the frequent inspection due on our boom lifts?",  # an equipment-rental desk
        "How often do we have to inspect the Bayview Hotel minibar fridges?",  # appliance repair
        "How often is PN-7731-B sampled on the CMM during production?",  # the demo's machine shop
        "底特律那家 全尺寸多久做一次",  # a fastener maker (多久 with 一次 asks how often)
        "冷氣機多久要洗一次？",
    ],
)
def test_how_often_asks_for_a_frequency_not_a_duration(question):
    assert answer_types.asked(question) == (answer_types.FREQUENCY,)


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("量產中每 20 件抽測定位孔孔距與孔徑一次，記錄於 SPC 管制圖。", True),  # demo
        ("四、汽車客戶之全尺寸檢驗每年一次。", True),  # fastener
        ("shall be inspected and cleaned once every three (3) months (quarterly).", True),
        ("2. Boom lifts and telehandlers: PM every 250 engine hours.", True),  # rental desk
        ("每兩個月檢查及清潔一次，每次分 4 晚進行", True),  # appliance repair, Chinese
        ("The metal detector is tested at the start of each shift and per batch.", True),
        ("注意：本件與 PN-7731-C 外形相同，取料及貼標時務必核對料號末碼。", False),
        ("Statutory inspections are handled by the service department.", False),
    ],
)
def test_a_frequency_is_stated_as_a_rate_or_an_interval(text, states):
    assert answer_types.states(answer_types.FREQUENCY, text) is states


def test_time_asked_as_notice_or_distance_ahead_is_a_duration():
    # a freight forwarder's import notice and dangerous-goods cut-off; a hotel's banquet
    asked = answer_types.asked
    assert asked("How much notice do we need to give on IPAFFS?") == (answer_types.DURATION,)
    assert asked("How far ahead of the flight does DGR cargo need to be in our shed?") == (
        answer_types.DURATION,
    )
    assert answer_types.DURATION not in asked("How far is the depot from the branch?")


def test_a_minimum_spend_a_tax_and_a_quantity_s_price_ask_for_money():
    asked = answer_types.asked
    assert asked("华亿年会晚宴最低消费是多少？") == (answer_types.MONEY,)  # a hotel's banquet
    # a forwarder's duty deferment; a fastener maker's price for a thousand pieces
    assert asked("How much duty and VAT can a client run through the deferment account?") == (
        answer_types.MONEY,
    )
    assert asked("7/1 以後 M10x40 8.8 白鋅 一千支多少") == (answer_types.MONEY,)
    assert asked("一箱多少支？") != (answer_types.MONEY,)  # a count per box
    # the word counted after the interrogative is read with what follows: an IT desk's fee
    assert asked("华信当月可用性掉到 99.3% 的话能抵扣多少服务费？") == (answer_types.MONEY,)

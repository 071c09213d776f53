"""General answer-type recognisers: what kind of answer a question asks for, and whether a text
states one (dates, times of day, durations, how often, money, counts, percentages, people,
temperatures), in Chinese and English.

These are closed-class words of each language (interrogatives, calendar words, counters,
currency signs), not the vocabulary of any corpus. Questions and texts are folded to lower case
and Simplified script before matching, so Traditional text needs no patterns of its own.
"""

from __future__ import annotations

import functools
import re

from services.language import frequency, units
from services.language.tokens import normalize, people_named

DATE = "date"
DURATION = "duration"
MONEY = "money"
COUNT = "count"
PERCENTAGE = "percentage"
PERSON = "person"
TEMPERATURE = "temperature"
TIME = "time"  # of day
FREQUENCY = "frequency"  # how often: an interval, or a rate in days, months, years

# ---- what a question asks for --------------------------------------------------------------
_AUXILIARIES = (
    "do|does|did|is|are|was|were|will|would|can|could|should|must|shall|has|have|had|may|might"
)
# A sum of money asked for as such (Cantonese 幾多錢 too)
_SUM_WORDS = r"多少钱|几多钱|几(?:块)?钱|多少元|几元"
_ASKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        FREQUENCY,
        # how often something recurs: "how often", 「多久一次」「幾耐做一次」「多久檢查一次」,
        # 「頻率」 asked
        re.compile(
            r"\bhow often\b|\bhow frequently\b|(?:多久|几耐|多长时间)\w{0,4}?一次|"
            r"(?:什么|多少|几多|怎样的)频率|频率(?:是|为|要)?(?:多少|几多|怎样|如何|是什么)"
        ),
    ),
    (
        DURATION,
        re.compile(
            # Cantonese asks 幾多 for 多少, 幾耐 for 多久, and counts hours in 個鐘 (鐘頭 in
            # Mandarin too)
            r"多久|几耐|多长时间|(?:多少|几多)(?:个)?(?:工作)?(?:天|日|小时|分钟|周|星期|个月|年|钟)|"
            # a noun of time asked how much: 「工時抓多少」「時數多少」「工期要多少」
            r"(?:工时|时数|时长|工期|天数|日数)\w{0,2}?(?:多少|几多)(?![钱元块])|"
            r"几(?:个)?(?:工作)?(?:天|日|小时|分钟|周|星期|个月|钟)|"
            # 「保存幾年」 (not 「幾年級」 a school year, 「幾年前」 a date, 「第幾年」 an ordinal)
            r"(?<![第国元])几年(?![级前后])|"
            r"how long|how soon|how quickly|how many (?:\w+ )?(?:days|hours|minutes|weeks|months|"
            r"years)\b|"
            # time asked as an amount or a distance ahead: "how much notice", "how far ahead of
            # the flight"
            r"\bhow much (?:advance |lead |prior )?(?:notice|time|lead time)\b|"
            r"\bhow far (?:ahead|in advance|before|beforehand)\b"
        ),
    ),
    (
        DATE,
        re.compile(
            r"哪(?:一)?天|哪(?:一)?年|何时|几时|什么时候|什么时间|几号|几月|哪个月|哪(?:一)?日|"
            # "when" asks where a direct question puts it: first, or before its auxiliary
            # ("when is", "when do we"); "...label when we ship out" is a clause of time, and
            # so is a first "when" whose clause a comma closes before the question's own
            # auxiliary or question word ("When the No. 8 signal is up, do the pools stay open?")
            rf"^\W*when\b(?![^?]*?,\s*(?:{_AUXILIARIES}|what|which|who|whom|whose|how|where|why)\b)|"
            r"\bwhen\s+(?:do|does|did|is|are|was|were|will|would|can|could|should|"
            r"must|shall|has|have|had)\b|what date|which date|what day|which day|what year|"
            r"which year|what month|which month"
        ),
    ),
    (
        TIME,
        # a time of day asked as such: 「做到幾點」「幾點至幾點」 (「有幾點要注意」「以下幾點」
        # count points), "what time"; hours or a slot of the day asked which ("What are the
        # delivery hours", "between which hours", 「邊個時段」)
        re.compile(
            r"(?<![有这那哪下些])几点|what time|\b(?:what|which)\s+(?:[a-z'’-]+\s+){0,3}?hours\b|"
            r"(?:哪|边|什么)(?:个|一个)?时段"
        ),
    ),
    (
        MONEY,
        # also a charge asked as such, the question ending there: 「一次收多少？」「收幾多」
        # (not 「收多少人」), "how much for the exam"
        re.compile(
            rf"{_SUM_WORDS}|收(?:多少|几多)(?=\s*(?:[?？,，。!！]|$|[呢啊呀吖嘅啦]))|"
            # a quantity's price asked, the question ending there: 「一千支多少」「10 箱幾多」
            r"(?:\d[\d,]*|[一二两三四五六七八九十百千万]+)\s*(?:支|件|个|箱|套|台|片|只|条|张|包|"
            r"桶|卷|pcs)\s*(?:多少|几多)\s*[?？]?\s*$|"
            r"how much (?:does|do|is|are|was|were|will|would|should|did|for)\b"
        ),
    ),
    (
        PERCENTAGE,
        re.compile(
            # a percent sign after the interrogative: 「可以減幾 %」「會漲幾%」
            r"百分之(?:几|多少|几多)|(?:几|几多|多少)\s*[%％]|百分比|比例|比率|几成|"
            r"(?:几|几多|多少)折|what percent|"
            r"\bpercentage\b|\bhow (?:many|much)\s*(?:percent|[%％])"
        ),
    ),
    (
        COUNT,
        re.compile(
            r"(?:多少|几多)(?:个|件|片|名|位|人|家|座|次|种|只|条|台|箱|批|所|部|本|项)|"
            r"几(?:个|件|片|名|位|人|家|座|次|种|只|条|台|箱|批|所|部|本|项)|"
            r"how many\b"
        ),
    ),
    # Cantonese 邊位 asks who; 邊個 too where it ends the question (「邊個時段」 is "which slot")
    (
        PERSON,
        re.compile(r"谁|哪位|哪一位|什么人|边位|边个(?=[?？,，。]|$)|\bwho\b|\bwhom\b|\bwhose\b"),
    ),
    (
        TEMPERATURE,
        re.compile(
            # 「溫度標準是多少」: up to three characters (a word) between the noun and the ask
            r"几度|多少度|多高温|温度\w{0,3}?(?:是|要|设定|设为|为)?多少|"
            r"\bwhat(?:'s| is| are)?\b[^?.]*\b(?:temperatures?|temps?)\b|how hot"
        ),
    ),
)


# Nouns that name a price: a question about one asks for money when its interrogative is untyped
# ("多少", "what's the charge"), not when the interrogative asks for something else:
# 「旅費要在幾天內報掉」 asks for days, 「價格表最低那一階再往下讓 5%，要找誰簽」 for a person.
_MONEY_NOUNS = re.compile(
    r"价格|价钱|费用|收费|单价|附加费|加价|折扣|费率|金额|津贴|补贴|补助|工资|薪资|薪水|奖金|"
    # rent, commissions and rebates, deposits, fines, interest, allowances (加給)
    r"租金|场租|房租|月租|佣金|回赠|回扣|返点|返利|押金|订金|定金|保证金|罚款|罚金|利息|加给|"
    r"最低消费|"  # a minimum spend (消費 alone is consumption)
    # a fee is a word ending in 费 (运费, 加班费), save waste, free and consumption
    r"(?<![浪免消白])(?<=[\u4e00-\u9fff])费(?![时力劲心])|"
    # and a price, a word ending in 价 (协议价, 房价, 目标价), save an evaluation, an
    # equivalent, a toll in the figurative sense, and what is done about prices (报价 quoting,
    # 询价, 议价 — not 协议价 —, 讲价, 砍价, 比价, 还价), and value and a price ratio
    r"(?:(?<=协议)|(?<![评等代报询议讲砍比还]))(?<=[\u4e00-\u9fff])价(?![值比])|"
    r"\bprices?\b|\bcosts?\b|\bfees?\b|\b(?:sur)?charges?\b|\bdiscounts?\b|"
    r"\bmarkups?\b|\brates?\b(?!\s+of\b)|\btariffs?\b|"  # "the rate of flow" is a ratio
    # pay: wages, bonuses, subsidies, per diems (and their stems: salari, bonu, subsidi)
    r"\bsalar(?:y|ies|i)\b|\bwages?\b|\bbonu(?:s|ses)?\b|\bsubsid(?:y|ies|i)\b|"
    r"\bper diems?\b|\bstipends?\b|"
    r"\bvat\b|\btax(?:es)?\b"  # taxes
)


# A price that may be a share of another (a discount, a surcharge, a fee, a rate): a percentage
# states it. A price or a cost asked for as such (「單價」, "what does it cost", 「多少錢」) is an
# amount: 「訂購量未達 MOQ 者，單價加收 15%」 is a surcharge on the price, not the price.
_AMOUNT_NOUNS = re.compile(
    r"单价|价格|价钱|售价|进价|报价|工资|薪资|薪水|\bprices?\b|\bcosts?\b|\bsalar(?:y|ies|i)\b|"
    r"\bwages?\b"
)
_SUM_ASKED = re.compile(rf"{_SUM_WORDS}|\bhow much (?:does|do|did|will)\b.*\bcost\b")
# a share asked for: a percentage, or a price that is one (a surcharge on the unit price, a
# discount)
_SHARE_ASKED = re.compile(
    r"[%％]|百分|几成|(?:几|几多|多少)折|\bpercent|加收|加价|加成|附加费|折扣|打折|折让|"
    r"涨幅|调幅|降幅|\bsurcharges?\b|\bdiscounts?\b|\bmark-?ups?\b|\brebates?\b|\bcommissions?\b"
)


# A Chinese interrogative of amount with a word after it (「多少間夜」「幾多人次」): it asks how
# many of that, whatever price the question names. Not a sentence particle, a price word or
# 以上／以下 (「多少以下」 is still an untyped amount); one character after it is a classifier
# or a unit (「幾多厘」 of interest), which says nothing of a count.
_COUNTED_NOUN = re.compile(r"(?:多少|几多)(?:个)?(?P<noun>[\u4e00-\u9fff]{2})")
_NOT_COUNTED = re.compile(r"[钱块元呢啊呀吗嘛嘅啦咧喇呐哦罢]|以[上下内外]|左右|之")
_COUNTED_WORD_MAX = 4  # characters read for the word counted and what follows it


def _counts_a_noun(text: str) -> bool:
    # the word counted is read with what follows it (「多少服務費」 counts no 服務: it is a fee)
    return any(
        not _NOT_COUNTED.match(m.group("noun"))
        and not _MONEY_NOUNS.search(text[m.start("noun") : m.start("noun") + _COUNTED_WORD_MAX])
        for m in _COUNTED_NOUN.finditer(text)
    )


def share_answers_money(question: str) -> bool:
    """Whether a share (a percentage) states the money a question asks for: not where it asks
    for a price or a cost as such (「單價多少」, "What does it cost?", 「多少錢」), unless it asks
    for a share too (「漲幾%」, 「單價加收多少」, "the discount on the price")."""
    text = normalize(question)
    if _SHARE_ASKED.search(text):
        return True
    return not (_SUM_ASKED.search(text) or _AMOUNT_NOUNS.search(text))


def names_a_price(word: str) -> bool:
    """Whether a word is one that names a price (fee, charge, 運費): it says what kind of
    answer is wanted, not what the question is about."""
    folded = normalize(word)
    # units are stemmed English words ("charg", "pric"): their completions are read too
    return any(_MONEY_NOUNS.search(form) for form in (folded, folded + "e"))


# An amount asked for in a unit of measure (「幾公斤」「多少公里」「幾多米」, "how many litres"):
# the answer is a quantity of that measure, in any of its units (`measure_kind`).
def _forms(measure: str | None = None) -> list[str]:
    """How the units of `measure` (of any measure, for None) are written, longest first."""
    return sorted(
        (
            form
            for form, unit in units.UNITS.items()
            if unit in units.MEASURES and measure in (None, units.MEASURES[unit])
        ),
        key=len,
        reverse=True,
    )


_MEASURE_FORMS = _forms()
_MEASURE_ASKED = re.compile(
    r"(?:几|多少|几多)\s*(?:个)?\s*(?P<cjk>"
    + "|".join(re.escape(f) for f in _MEASURE_FORMS)
    + r")(?![a-z])|\bhow many\s+(?P<en>"
    + "|".join(re.escape(f) for f in _MEASURE_FORMS if f.isascii() and len(f) > 1)
    + r")\b"
)
MEASURE_PREFIX = "measure:"


def measure_kind(measure: str) -> str:
    """The answer type of an amount of one measure ("measure:length")."""
    return MEASURE_PREFIX + measure


# Interrogatives asking for a place, a reason or a meaning: such a question asks for no amount
# (「德龙烟铁路经过哪些地方？」, 「这个名字有什么意思？」, "Where do we deliver?", "Why was it
# rejected?").
_NO_AMOUNT = re.compile(
    r"哪里|哪儿|哪些地方|什么地方|何处|何地|在哪|去哪|边度|为什么|为何|点解|什么意思|什么含义|"
    # "where" and "why" as interrogatives: first, or before their auxiliary ("any case where
    # it can be shorter" is a relative clause)
    rf"^\W*(?:where|why)\b|\b(?:where|why)\s+(?:{_AUXILIARIES})\b|\bwhat does\b.*\bmean\b"
)


def asks_no_amount(question: str) -> bool:
    """Whether a question asks only where, why or what something means: no amount answers it."""
    return not asked(question) and bool(_NO_AMOUNT.search(normalize(question)))


def asked(question: str) -> tuple[str, ...]:
    """The answer types a question asks for (none for a question asking for a procedure)."""
    text = normalize(question)
    kinds = [kind for kind, pattern in _ASKS if pattern.search(text)]
    for match in _MEASURE_ASKED.finditer(text):
        kind = measure_kind(units.MEASURES[units.UNITS[match.group("cjk") or match.group("en")]])
        if kind not in kinds:
            kinds.append(kind)
    if not kinds and _MONEY_NOUNS.search(text) and not _counts_a_noun(text):
        kinds.append(MONEY)
    if FREQUENCY in kinds and DURATION in kinds:
        kinds.remove(DURATION)  # 「多久一次」 asks how often; an interval states it too
    if COUNT in kinds and (
        DURATION in kinds or PERCENTAGE in kinds or any(k.startswith(MEASURE_PREFIX) for k in kinds)
    ):
        # "how many days" asks for a duration, "how many %" a share, "how many litres" a volume
        kinds.remove(COUNT)
    return tuple(kinds)


# ---- what a text states --------------------------------------------------------------------
_NUM = r"(?:\d[\d,.]*|[零〇一二两三四五六七八九十百千万半几数]+)"
# A discount as Chinese writes it, the share paid in tenths: 「打 9 折」「85 折」「八五折」 (not
# 折舊 depreciation, 折算 converted, 折合 amounting to, 折頁 a folded page), in either script; its
# paid tenths in digits (group 1) or in numerals read digit by digit (group 2).
DISCOUNT = re.compile(
    r"(?<![\d.])(\d{1,2}(?:\.\d)?)\s*折(?![旧舊算合射叠疊返页頁])|"
    r"(?<![一二三四五六七八九十])([一二三四五六七八九]{1,2})折(?![旧舊算合射叠疊返页頁])"
)
_WEEKDAY = (
    r"(?:星期|礼拜|周)[一二三四五六日天]|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
_MONTH = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" + (
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
# Parts of the day Chinese writes before an hour (「上午 9 時」「每晚 8 點」), also read by
# services.retrieval.moments: the morning's, noon's, and the afternoon's and evening's.
CJK_MORNING = ("上午", "早上", "早晨", "清晨", "凌晨", "早")
CJK_NOON = ("中午", "午间")
CJK_DAY_PARTS = (
    *CJK_MORNING,
    *CJK_NOON,
    "下午",
    "傍晚",
    "晚上",
    "晚间",
    "夜晚",
    "夜间",
    "深夜",
    "晚",
    "夜",
)
_DAY_PARTS = "|".join(CJK_DAY_PARTS)
_STATES: dict[str, re.Pattern[str]] = {
    DATE: re.compile(
        rf"\d{{4}}\s*[-/.年]\s*\d{{1,2}}|{_NUM}\s*年|{_NUM}\s*月\s*{_NUM}\s*[日号]|"
        rf"\d{{1,2}}/\d{{1,2}}|\b(?:{_MONTH})\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+(?:{_MONTH})\b|"
        rf"\b(?:in|since|by|until|before|after)\s+\d{{4}}\b|\b1[5-9]\d\d\b|\b20\d\d\b|{_WEEKDAY}|"
        r"昨天|前天|今天|明天|后天|上(?:个)?(?:周|星期|礼拜|月)|下(?:个)?(?:周|星期|礼拜|月)|"
        r"去年|今年|明年|前年|世纪|年代|"
        rf"{_NUM}\s*(?:天|日|周|星期|个月|年)(?:前|后|以前|以后)|"
        r"\byesterday\b|\btoday\b|\btomorrow\b|\b(?:last|next|this)\s+(?:week|month|year|"
        r"weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|"
        r"\b(?:\w+)\s+(?:days?|weeks?|months?|years?)\s+(?:ago|later|before|after)\b|"
        r"\bcentury\b|\b\d{2,4}s\b"
    ),
    TIME: re.compile(
        # 18:00, 9am, 9 p.m., 「下午 3 時」「7點半」「9時30分」 (as services.retrieval.moments
        # reads them)
        r"(?<![\d.])\d{1,2}\s*[:：]\s*[0-5]\d(?!\d)|\b\d{1,2}\s*(?:a\.?m\.?|p\.?m\.?)(?![a-z])|"
        rf"(?:{_DAY_PARTS})\s*\d{{1,2}}\s*[时点]|(?<![\d.])\d{{1,2}}\s*[时点]\s*(?:半|\d{{1,2}}\s*分)"
    ),
    DURATION: re.compile(
        rf"{_NUM}\s*(?:个)?(?:工作)?(?:天|日|小时|分钟|秒|周|星期|个月|年|世纪)|"
        r"\b(?:\d[\d,.]*|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
        r"fifteen|twenty|thirty|forty|fifty|sixty|ninety|hundred|several|few)[\s-]+"
        r"(?:working\s+|business\s+|calendar\s+)?"
        rf"(?:{units.COUNTED_HOURS})?"  # "3.5 labour hours", "250 engine hours"
        r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b|\b\d+\s*(?:h|hrs?|d|wks?|mins?)\b"
    ),
    # a rate of recurrence (an interval, `DURATION`, states it too: `states`)
    FREQUENCY: re.compile(
        r"\b(?:hourly|daily|weekly|fortnightly|monthly|quarterly|annually|yearly|biannually|"
        r"semi-annually|biweekly)\b|\bevery\s+(?:other\s+)?(?:hour|day|shift|week|month|quarter|"
        r"year)\b|\b(?:once|twice|\w+ times)\s+(?:a|an|per|each|every)\s+\w+|"
        r"每(?:个)?(?:小时|天|日|班|周|星期|礼拜|月|季|季度|半年|年)|(?:一|两|二|三|四)年一次|"
        # counted in what is made or done: 「每 20 件抽測一次」, "every 50 parts", "per batch"
        rf"半年一次|每\s*{_NUM}\s*[\u4e00-\u9fff]|"
        r"\bevery\s+(?:\d[\d,]*|two|three|four|five|six|ten|twelve|fifty|hundred)\s+[a-z]+|"
        r"\bper\s+(?:shift|batch|lot|run|day|week|month|year)\b"
    ),
    MONEY: re.compile(
        r"[$€£¥￥]\s*\d|\d[\d,.]*\s*(?:元|块|美元|欧元|英镑|日元|港币|人民币|万元|亿元)|"
        r"\b(?:usd|eur|gbp|jpy|cny|rmb|twd|ntd|nt\$|hkd|sgd|aud|cad|chf)\s*\d|"
        r"\d[\d,.]*\s*(?:usd|eur|gbp|jpy|cny|rmb|twd|ntd|hkd|sgd|aud|cad|chf|dollars?|euros?|"
        r"pounds?|yuan|cents?)\b|"
        # pay counted in wages: 「2個月平均工資」, "two months' salary"
        rf"{_NUM}\s*个?(?:月|周|星期|天|日)(?:的)?(?:平均)?(?:工资|薪资|薪水|月薪|底薪|薪)|"
        r"\b(?:\d+|one|two|three|four|five|six|twelve)\s+(?:months?|weeks?|days?)'?\s+"
        r"(?:of\s+)?(?:salary|pay|wages?)\b"
    ),
    PERCENTAGE: re.compile(
        r"\d[\d.]*\s*[%％]|百分之|[一二三四五六七八九十]成|\bpercent\b|\bper\s?cent\b|"
        + DISCOUNT.pattern
    ),
    TEMPERATURE: re.compile(
        r"\d\s*(?:°\s*[cf]?|℃|℉|度(?![角数]))|"
        r"\b\d[\d.]*\s*(?:degrees?|deg)\s*(?:celsius|fahrenheit|c|f)?\b"
    ),
    COUNT: re.compile(
        rf"{_NUM}\s*(?:个|件|片|名|位|人|家|座|次|种|只|条|台|箱|批|所|部|本|项|支|套|张|颗|粒)"
    ),
}
# A number standing alone ("300 pcs", "47 houses", "three trucks"), not a part of a code, a date
# or a range written with hyphens or slashes (4711-233, 2026-11-05, 8-12, 5-day) nor a decimal.
_BARE_NUMBER = re.compile(
    r"(?<![\w.,/-])\d[\d,]*(?![\w.,/%-]*\d)(?![a-z\u4e00-\u9fff]*[-/]\w)|"
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|dozen|hundred|"
    r"thousand|million|several)\b"
)
# A list's or a clause's number (「1.」「2、」 "3)") says where a statement is, not how many.
_ENUMERATING = re.compile(r"\s*[.、)）:：]")
# The quantities a number is when it is not a count.
_NOT_COUNTS = (DATE, TIME, DURATION, MONEY, PERCENTAGE, TEMPERATURE)


def _counts(folded: str) -> bool:
    """Whether a normalised text states a count: a number with a counter (「20 人」「3 台」), or a
    number standing alone, in digits or words ("three", "several"), that is no other quantity — not
    a date, a time of day, a duration, money, a percentage, a temperature or a measure (「1982
    年」, "on 10 December", 「30 分钟」, "300 mm" count nothing) — nor the number of a list's item
    (「1.」). A question asking how many is not answered by a passage's years."""
    if _STATES[COUNT].search(folded):
        return True
    alone = [
        match.start()
        for match in _BARE_NUMBER.finditer(folded)
        if not (match.group(0)[0].isdigit() and _ENUMERATING.match(folded, match.end()))
    ]
    if not alone:
        return False  # most texts: the other quantities need not be read
    typed = [m.span() for kind in _NOT_COUNTS for m in _STATES[kind].finditer(folded)]
    typed += [m.span() for m in _stated_in(None).finditer(folded)]
    return any(not any(start <= at < end for start, end in typed) for at in alone)


# Numerals and the words that point or count with a counter (「一部」「每組」「該處」): what
# follows them is counted, not an office (「一部分」 is a part, 「業務部」 a department).
_NUMERALS = "零〇一二两三四五六七八九十百千万几数每各该这那哪本此某"
# A person: a name in Latin script, or Chinese name-like runs next to a role word. Recognising
# every name is beyond a rule; a span with a role word or a capitalised name is accepted,
# everything else is left to the other features. A Latin name is capitalised as written (folding
# case would make any two words a name): two capitalised words, or one that does not begin a
# sentence or line; role words match in any case.
_PERSON_LATIN = re.compile(
    r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z.]+)+\b|(?<=[^\s.!?:][ \t])[A-Z][a-z]+\b|"
    r"(?i:\b(?:manager|engineer|officer|director|department|team|supervisor|owner|board|"
    r"committee|inspector|buyer|customer)s?\b)"
)
_PERSON_CJK = re.compile(
    r"先生|女士|小姐|教授|博士|总统|主席|部长|经理|主任|负责人|创始人|作者|导演|演员|歌手|"
    # a unit of an organisation (业务部, 品保组), not a numeral's counter (一部分, 一组明信片)
    rf"(?![{_NUMERALS}])[\u4e00-\u9fff](?:部|处|科|组|室|课|中心|委员会|主管|人员|工程师|专员)|"
    # someone saying or doing (not 说 of a word: 解说, 小说, 传说, 学说, 听说, 据说)
    r"[\u4e00-\u9fff]{2,4}(?<![解小传学听据])(?:说|表示|指出|担任|出任|任命|出生|创立|创办|发明|提出|"
    r"主演|执导)"
)


# A foreign name as Chinese writes it: a transliterated given name and surname joined by a
# middle dot (雷蒙·钱德勒, 保罗·塞里诺).
_TRANSLITERATED_NAME = re.compile(r"[\u4e00-\u9fff]{2,}[·・•‧][\u4e00-\u9fff]{2,}")


def _named_person(folded: str) -> bool:
    """Whether a normalised Chinese text names a person without a role word beside the name:
    a transliterated foreign name, or a word the general tagger takes for a person's name that
    is rare in the language, as names are (吳三桂, 何靜; not 修正 or 許可, which it also tags)."""
    if _TRANSLITERATED_NAME.search(folded):
        return True
    return any(frequency.zipf(word) < frequency.NAME_ZIPF for word in people_named(folded))


# A price list or a table names its currency once, in a heading or a column header, and writes
# bare amounts under it: "All prices GBP, excluding VAT." over "Export declaration ..... 45.00";
# 「單位：新臺幣」 over 「1｜LH-1932-017｜…｜2,400,000」; 「单价（元，含税）」 over 「… 18,000」. A
# currency with no amount beside it declares one; 元 only as a word of its own (not 元件, 单元).
_CURRENCY_WORDS = (
    r"usd|eur|gbp|jpy|cny|rmb|twd|ntd|nt\$|hkd|sgd|aud|cad|chf|"
    r"人民币|新台币|台币|美元|欧元|英镑|日元|港币"
)
_DECLARED_CURRENCY = re.compile(
    rf"(?<![a-z0-9$\d])(?<!\d\s)(?:{_CURRENCY_WORDS})(?![a-z])(?!\s*\d)|"
    r"(?<![\u4e00-\u9fff\d])(?<!\d\s)元(?![\u4e00-\u9fff])"
)
# An amount as price lists write it without its currency: thousands separators (18,000;
# 2,400,000) or cents (45.00, 2.95). Read in the text as written (folding drops separators).
_BARE_AMOUNT = re.compile(r"(?<![\w.,-])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d{2})(?![\w%.,])")


def bare_amount(text: str) -> bool:
    """Whether a text (as written) holds an amount in a price list's form: 18,000 or 45.00."""
    return bool(_BARE_AMOUNT.search(text))


def declared_currency(text: str) -> str | None:
    """The currency word a (folded) text names without an amount beside it, as a price list's
    heading or a table's column header does ("gbp", "元", "新台币"), or None."""
    match = _DECLARED_CURRENCY.search(text)
    return match.group(0) if match else None


@functools.lru_cache(maxsize=256)
def declared_in(text: str) -> str | None:
    """`declared_currency` of a text as written (a document's body: read once, remembered)."""
    return declared_currency(normalize(text))


def strength(kind: str, text: str) -> float:
    """How fully `text` states an answer of this kind: 1 where it does, 0 where it does not, and
    half for a "when" answered by a time of day alone (「除夕前 3 天 00:00」 against 「12 月 24 日
    00:00」): a date says when more fully."""
    if kind != DATE:
        return float(states(kind, text))
    folded = normalize(text)
    if _STATES[DATE].search(folded):
        return 1.0
    return 0.5 if _STATES[TIME].search(folded) else 0.0


def states(kind: str, text: str, *, share: bool = True, within: str | None = None) -> bool:
    """Whether `text` states an answer of this kind. An amount of money may be written bare
    where the text names its currency once (`declared_currency`), or the text it is part of
    does (`within`: a price list's 「All prices GBP」 over its sections); a percentage states
    money where the question allows a share of a price (`share`: `share_answers_money`)."""
    if kind == PERSON:
        folded = normalize(text)
        return bool(
            _PERSON_LATIN.search(text) or _PERSON_CJK.search(folded) or _named_person(folded)
        )
    folded = normalize(text)
    if kind == MONEY and share and _STATES[PERCENTAGE].search(folded):
        return True  # a surcharge, discount or markup is often a share of the price
    if kind == MONEY and bare_amount(text) and declared_in(within or text):
        return True
    if kind == DATE and _STATES[TIME].search(folded):
        return True  # "when" is answered by a time of day too (「除下後…下午 3 時後」)
    if kind == FREQUENCY and _STATES[DURATION].search(folded):
        return True  # "every 250 engine hours", 「每兩小時」: an interval says how often
    if kind.startswith(MEASURE_PREFIX):
        return bool(_stated_in(kind.removeprefix(MEASURE_PREFIX)).search(folded))
    if kind == COUNT:
        return _counts(folded)
    pattern = _STATES.get(kind)
    return bool(pattern and pattern.search(folded))


@functools.cache
def _stated_in(measure: str | None) -> re.Pattern[str]:
    """An amount written in a unit of `measure` (「4.8 公升」, "5.2 L", 「30,000 公里」)."""
    forms = "|".join(map(re.escape, _forms(measure)))
    return re.compile(r"\d[\d,.]*\s*(?:" + forms + r")(?![a-z])")

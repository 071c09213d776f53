"""When retrieved evidence answers a query, and what is missing when it does not.

The rule (documented in README "Retrieval"):

1. Every identifier the query names (SUS304, PN-7731-B, Q42) must appear in the evidence.
2. Some evidence item must be *relevant*:
   * it names every identifier of the query, and mentions a majority of the query's content
     terms (`question_terms`: Chinese words as a general-purpose segmenter cuts them, from the
     sentences that ask when a query also tells why or what came before) that can be compared
     with it: identifiers and numbers (a strength class 8.8, written alike in every script)
     always, words only when written in the item's script (a Chinese term counts when at least
     half of its characters appear; Traditional and Simplified are folded together; an English
     stem of five letters or more also in a word derived from it, "volume" in "volumetric":
     `_derived_in`, and where the text writes its base, a word of five letters or more a suffix
     of at most three letters shorter, "audit" for "auditor": `_base_in`; a hyphenated word
     also where the text writes its parts apart, "use-by" as "use by":
     `text_analysis.parts_apart_in`; an irregular inflection as its lemma, "sent" for "send",
     "kept" for "keep": `text_analysis.lemma`);
     a Chinese word nothing the principal may read contains, where the knowledge's own words
     cross its boundaries, is read as those words (「速聯合約」 cut 速/聯合/約 is 速聯 and 合約:
     `_recut`);
   * when nothing can be compared (an English SOP for a Chinese question without identifiers,
     or the reverse), a majority of the query's words must be there in translation — a word
     of the item's script that a general dictionary (services.language.bilingual, CC-CEDICT)
     gives for it (出口管制 → export control, 鐘樓 → clock tower) — or as written, where the
     item keeps them in the question's language (reel, DC, lux); failing that, and when no
     other item matched by words, its vector similarity must stand out: at least two standard
     deviations above the mean over everything the principal may read (a statistic of the
     ranking; no similarity value is ever shown or used as a confidence). Either way the item
     is relevant across scripts only: the question's words are not looked for in its facts.
     The embedding never stands for a word rare in its language that nothing the principal may
     read writes, neither as the question writes it nor in any translation the dictionary
     gives for it ("kosher", 洁食): the knowledge does not mention what it names
     (`QueryProfile.untranslated`).
     Where items of the question's script match by words, an item of the other script counts
     only if they do not state the type of answer asked for (rule 4): an English manual that
     has the words of "How much do we charge to clean a split-type air conditioner?" but no
     price leaves the Chinese price list, which has them in translation, its say.
   * the noun an interrogative determiner governs (「哪個國家」「什麼地方」, "which hours", "what
     divisor") names the kind of answer wanted, and the answer is an instance of it (尼加拉瓜,
     22:00–06:00, 6000) that a text states without naming its kind: it counts where the item
     writes it and is not looked for where it does not (`answer_categories`);
   * an everyday word of the language (Zipf ≥ 4 in a general word list: services.language.
     frequency) that nothing the principal may read uses at all cannot be looked for: for an
     item the embedding singles out (two standard deviations above the mean, as across
     scripts), the majority is counted over the query's other words (同事 in 「下周想跟同事换个
     班，得提前多久报？」; wear and pick in "Do I have to wear gloves to pick up a glazed
     porcelain bowl?"). So is a Chinese verb (the tagger's reading) nothing readable uses:
     what is done is said in a text's own words (「拎去」 in 「晚上幾點要將垃圾拎去垃圾房？」,
     「搞定」). A rarer word no readable document uses (a name, a term; 片重, which the tagger
     reads as an adjective) still counts.
   * an item the embedding singles out that names everything the question names (its subject:
     a proper noun rare in the language, a title in 《》, a capitalised word — see rule 7) and
     has at least half of its words is relevant when all it lacks is everyday language, which
     a text says in its own words: 「霁虹桥的位置是哪里？」 by 「霁虹桥位于……」, "What was the
     Colonia Agrippina's original name?" by "… oppidum Ubiorum, which was renamed to Colonia
     Agrippina" (`_names_its_subject`).
   * a name among the question's words (as above, rare in the language) is found where an item
     writes it — whole, as the longer name it shortens, or, three characters or more, in other
     characters of the same sound (莱索托 for 賴索托: `bilingual.homophone_in`) — not where half
     its characters stand: 汉传佛教 does not write 藏传佛教, 「QA经理」 does not name 陈经理.
3. The query's most distinctive unit (services.retrieval.answerability: the heaviest by IDF over
   the principal's eligible set among those the knowledge uses at all and the sentences that ask
   say, 電鍍 in 「電鍍外包前置時間」)
   must be in a relevant item written in its script (a two-character Chinese word also as the
   longer word it shortens, 停班 in 停止上班, as every term is found: `term_found`; a longer one
   also by a word of the dictionary inside it, 分體 of 分體式 in 「分體機每套清洗」; an English
   one also as its base, "audit" for "auditor"). A Latin name a Chinese question keeps
   (「Brightquay 公司每個員工體檢 budget 上限係幾多？」) is of both scripts where the principal's
   Chinese texts write it as it is ("Brightquay 企業健康檢查服務合約"): a Chinese item must name
   it too — another customer's contract does not answer (`_latin_name_in_chinese`).
4. If the question asks for a type of answer (a date, a duration, how often, money, a count, a
   percentage, a person, a temperature: services.language.answer_types), a relevant item must
   state one:
   「首件檢驗報告要收多少錢」 is not answered by a procedure that mentions the report but no fee.
   It is stated where the question's most distinctive unit is (rule 3): in a paragraph of the
   item's section that writes it, read with the heading over it and the document's opening
   paragraph (a mail's sender and date; a price list's currency, named once, counts over all
   of it) — anywhere in the section only where the title writes it, or no one paragraph does:
   committee minutes that ask for a quote under the lifts' maintenance contract in one item and
   raise the management fee in another do not say what the maintenance costs
   (`_about_distinctive`).
   A percentage states money where a share may be asked (a fee, a surcharge, a discount), not
   a unit price, a cost or a sum (「單價」, 「多少錢」: `answer_types.share_answers_money`).
5. An item that names other members of a numbered series the question names one member of
   ("Line 3", 「2號機」), and not that one, is about them: a work instruction for Line 4 (or
   its "L4" table row) does not answer for Line 3 (`numbered`). An item naming no member of
   the series (a rule for every line) is not concerned.
6. A question about what holds now ("current", "now", "this year", 「現在」「目前」「而家」「今年」:
   `asks_about_now`)
   is not answered by history alone: a past quote or an old mail tells what was. A question
   asking for money is about the price now unless it places itself in the past or at a
   quotation ("last", "did", 「上次」「去年」, "what we quoted", 「给华屹报的单价」:
   `asks_about_now`): 「KF-40M 換門封，幾錢一個？」 is not answered by a technician's estimate
   in a customer chat.
7. A name the question asks about must be named: a Chinese word the general tagger takes for a
   proper noun, rare in the language (Zipf < 4, as names are), that nothing the principal may
   read contains (「嘉善」 of 「嘉善南站」 when only 嘉兴南站 is readable; a customer whose
   documents the person may not read) leaves the question unanswered — unless an item writes it
   otherwise: as the longer name it shortens (徐家 in 徐氏家族), in pinyin (渤海 as "Bohai
   Retail"), or, for one part of a transliterated name, with every other part (`_unnamed`).
   The words of a title in 《》 name a work, everyday words too (《我的暑假》), and the work is
   named only where an item writes its title whole (《命运派对》, not 命运 and 派对 apart). A
   capitalised Latin word a Chinese question keeps is a name ("Playfish"; an acronym, MOSFET,
   is a term).
   The same for a capitalised word inside an English question's sentence ("Greenfield"), or
   opening it when rare in the language ("Huayi annual dinner F&B minimum how much?"; not
   "Minimum charge into Chicago?"), looked for only where an item is written in Latin letters,
   with one letter wrong allowed ("Emmrich" for Emmerich) and as the Chinese characters whose
   pinyin it is ("Huayang" for 華陽). An English word of the dictionary that a Chinese question
   keeps is named where an item writes its translation ("Deluxe" by 豪華客房).
8. A year the question names as the time it asks about (「１８８７年什么联盟……」, "Who ruled
   Cyprus in 1191?") counts with its words wherever an item is compared by words, and some
   relevant item must write it: a passage about the same league or island in another year
   does not answer. A year is what the calendar writes (before 年, after a preposition of time,
   a month or a quarter, or naming which one: "the 2027 sheet", 「2025 夏日會議專案」,
   「世界杯2002」), not any four digits (a 1055 telehandler, 1,500 件, a span 1993-1996)
   (`_years`).
9. A name the question asks about that the principal's knowledge lists with others as members
   of one set ("Sites: Leicester (UK) and Columbus, OH (US)", 「經海化、壽光、寒亭、昌邑」) has
   those others as siblings: an item naming a sibling and not the name is about the sibling —
   the Leicester site's audit window does not answer for the Columbus site (`siblings`, read
   in at most SIBLING_TEXTS of the texts naming it). An item naming neither is not concerned.
Similarity never decides on its own except across scripts, and then only as a rank.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

from services.language import answer_types, bilingual, frequency, sentences, units
from services.language import tokens as text_analysis
from services.language.tokens import Term
from services.retrieval import facts, moments, spans

# A CJK term counts as found when at least half of its characters are (see Term.coverage).
TERM_SHARE = 0.5
# Across scripts only the embedding can compare: its pick must be an outlier among everything
# the principal may read (two standard deviations, the conventional cut-off).
OUTLIER_Z = 2.0


@dataclass(frozen=True)
class Assessment:
    sufficient: bool
    missing: list[str]
    relevant: frozenset[str]  # evidence ids judged relevant (the ones conflicts are read from)
    # relevant only across scripts (the vector signal's pick, or the dictionary's words): the
    # query's words cannot be looked for in their facts' attributes
    by_vector_only: frozenset[str]
    missing_identifiers: tuple[str, ...] = ()  # identifiers of the query no evidence names


@dataclass(frozen=True)
class Item:
    """The returned citations of one document version, as relevance sees them together."""

    evidence_ids: tuple[str, ...]
    text: str  # normalised title + quotes
    units: Container[str]  # text_analysis.TextUnits of `text`, or a unit_set
    quote: str  # the quotes, in rank order
    section: str  # the chunks the quotes were cut from (answer types are read here)
    vector_z: float  # best standing of its chunks in the vector signal (see Candidate.vector_z)
    history: bool = False  # a past quote or mail: what was, not what holds now
    title: str = ""  # the document's title, as written
    body: str = ""  # the document's whole text, as written (the section where not given)


def term_found(term: Term, text: str, units: Container[str]) -> bool:
    if term.kind == "identifier":
        return text_analysis.contains_identifier(text, term.text)
    if term.coverage(units) >= TERM_SHARE:
        return True
    if term.kind == "word":
        return (
            _derived_in(term.text, text)
            or _base_in(term.text, text)
            or text_analysis.parts_apart_in(term.display, text)
        )
    return term.kind == "cjk" and text_analysis.shortened_in(term.text, text)


# An English stem this long or longer is found in the words derived from it ("volum" in
# "volumetric", "consign" in "consignment"); a shorter one would be found everywhere ("art").
_DERIVED_MIN_CHARS = 5


def _derived_in(stem: str, text: str) -> bool:
    """Whether a normalised text writes a word derived from an English stem (a longer word
    beginning with it)."""
    if len(stem) < _DERIVED_MIN_CHARS or not stem.isalpha():
        return False
    return re.search(rf"(?<![a-z]){re.escape(stem)}[a-z]", text) is not None


# A word a question derives from a base the text writes adds a suffix of this many letters at
# most ("auditor" from "audit", "hazardous" from "hazard"); the base is a word of its own.
_DERIVED_SUFFIX_MAX = 3


def _base_in(stem: str, text: str) -> bool:
    """Whether a normalised text writes, as a word of its own, a base of five letters or more
    that an English stem extends by a short suffix ("audit" for "auditor")."""
    if not stem.isalpha() or len(stem) <= _DERIVED_MIN_CHARS:
        return False
    return any(
        re.search(rf"(?<![a-z]){stem[:cut]}(?![a-z])", text) is not None
        for cut in range(max(_DERIVED_MIN_CHARS, len(stem) - _DERIVED_SUFFIX_MAX), len(stem))
    )


def assess(
    query: str,
    items: list[Item],
    *,
    distinctive: str | None = None,
    unseen: Container[str] = (),
    untranslated: Container[str] = (),
    texts_naming: Callable[[str], Sequence[str]] | None = None,
    known: Callable[[str], int] | None = None,
    this_year: int | None = None,
) -> Assessment:
    """`distinctive`: the query's heaviest unit among those the principal's knowledge uses
    (answerability.QueryProfile); a relevant item in its script must contain it. `unseen`: the
    query's units no chunk the principal may read contains (QueryProfile.unseen).
    `texts_naming`: texts the principal may read that contain a unit (rule 9: a name's
    siblings are read from them). `known`: in how many chunks the principal may read a word
    is (`question_terms` re-cuts the segmenter's words across the knowledge's own).
    `this_year`: the year of the date asked as of, which 「明年」 and "last year" count from."""
    terms = question_terms(query, known)
    identifiers = [t for t in terms if t.kind == "identifier"]
    words = [t for t in terms if t.kind != "identifier"]
    if not items or not (terms or _says_anything(query)):
        # A question with nothing to look for (「什么？」, "Who?", a bare number) names nothing
        # a document could answer: whatever ranks first is not its answer.
        return Assessment(
            sufficient=False,
            missing=[t.display for t in terms] or [query.strip()],
            missing_identifiers=tuple(t.display for t in identifiers),
            relevant=frozenset(),
            by_vector_only=frozenset(),
        )
    missing_ids = [t for t in identifiers if not any(term_found(t, i.text, i.units) for i in items)]
    # Everyday words nothing readable uses are not counted where the embedding singles an
    # item out (rule 2 of the module docstring); they stay in `missing` when nothing answers.
    question = text_analysis.normalize(query)
    comparable = [t for t in words if not _everyday_unused(t, unseen, question)] or words
    kinds = answer_categories(query)
    names = _question_names(query)
    series = numbered(names.asking)
    # a year the question names is when it asks about (「１８８７年什么联盟……」, "in 1169")
    years = _years(names.asked, this_year)
    asked = answer_types.asked(query)
    # A question about what holds now (a price asked without a past) is not answered by what
    # was once quoted or written.
    now = asks_about_now(names.asking, asked)
    # rule 3 where the knowledge writes a Latin name in Chinese texts (「Brightquay 公司…」)
    latin_name = _latin_name_in_chinese(distinctive, names, texts_naming)
    verdicts = {
        i.evidence_ids: None
        if (now and i.history) or _misses_latin_name(i, latin_name)
        else _relevant(
            i,
            comparable if i.vector_z >= OUTLIER_Z else words,
            identifiers,
            distinctive,
            kinds,
            series,
            names,
            years,
            untranslated,
        )
        for i in items
    }
    if texts_naming is not None:
        kin = _Siblings(names, texts_naming)
        for i in items:
            if verdicts[i.evidence_ids] and kin.named_instead(i.text):
                verdicts[i.evidence_ids] = None  # it is about the Leicester site, not Columbus's
    lexical = [i for i in items if verdicts[i.evidence_ids] == "lexical"]
    share = answer_types.share_answers_money(query)
    # where each item must state what is asked (read only when the question asks for a type)
    stating = {i.evidence_ids: _about_distinctive(i, distinctive) for i in items} if asked else {}
    if lexical and all(
        any(_states(k, i, stating[i.evidence_ids], share) for i in lexical) for k in asked
    ):
        # Words matched somewhere and state what is asked: the vector's or the dictionary's
        # pick in another language adds nothing then.
        verdicts = {key: v if v == "lexical" else None for key, v in verdicts.items()}
    relevant = [i for i in items if verdicts[i.evidence_ids]]
    unanswered = [
        kind
        for kind in asked
        if not any(_states(kind, i, stating[i.evidence_ids], share) for i in relevant)
    ]
    unnamed = _unnamed(words, unseen, items, names)
    undated = [y for y in years if not any(_writes_year(i.text, y) for i in relevant)]
    sufficient = (
        not missing_ids and bool(relevant) and not unanswered and not unnamed and not undated
    )
    missing: list[str] = []
    if not sufficient:
        missing = [t.display for t in missing_ids] + [t.display for t in unnamed]
        found_anywhere = relevant or items
        missing += [
            t.display
            for t in words
            if not any(term_found(t, i.text, i.units) for i in found_anywhere)
        ]
        missing += [f"a stated {name}" for name in unanswered]
        missing += undated
        if not missing:
            missing = [t.display for t in words] or [query.strip()]
    return Assessment(
        sufficient=sufficient,
        missing=list(dict.fromkeys(missing)),
        missing_identifiers=tuple(t.display for t in missing_ids),
        relevant=frozenset(e for i in relevant for e in i.evidence_ids),
        by_vector_only=frozenset(
            e
            for i in relevant
            if verdicts[i.evidence_ids] in ("vector", "translated")
            for e in i.evidence_ids
        ),
    )


def _latin_name_in_chinese(
    distinctive: str | None,
    names: _Names,
    texts_naming: Callable[[str], Sequence[str]] | None,
) -> str | None:
    """The question's most distinctive unit when it is a Latin name that a Chinese question
    keeps (「Brightquay 公司每個員工體檢 budget 上限」) and the principal's Chinese texts write as
    it is ("Brightquay 企業健康檢查服務合約"): a Chinese item must then name it too (rule 3 in
    the script the knowledge writes it in), as written or in the characters whose pinyin it is."""
    if (
        distinctive is None
        or texts_naming is None
        or not names.kept_latin
        or _unit_script(distinctive) != "latin"
        or distinctive not in names.proper
    ):
        return None
    if not any(text_analysis.script_of(t) == "cjk" for t in texts_naming(distinctive)):
        return None
    return distinctive


def _misses_latin_name(item: Item, name: str | None) -> bool:
    """Whether a Chinese item leaves out the Latin name it must write (`_latin_name_in_chinese`),
    as written, with one letter wrong, or in the characters whose pinyin it is."""
    return (
        name is not None
        and text_analysis.script_of(item.section) == "cjk"
        and not _writes_unit(name, "latin", item.text)
        and not _names_latin(name, item.text)
    )


def _unnamed(
    words: list[Term], unseen: Container[str], items: list[Item], names: _Names
) -> list[Term]:
    """The question's names that nothing the principal may read contains, nor any item in
    another form: Chinese words the general tagger takes for a proper noun (a person, place,
    organisation or work), and capitalised words inside an English sentence, that are rare in
    the language, as names are (「嘉善」 of 「嘉善南站」, 「浸信会」, "Greenfield"). The question
    is about what they name; evidence that never names it answers about something else. A name
    counts as written where an item writes it otherwise (`_names`, `_names_the_rest`); a Latin
    one is looked for only where an item is written in Latin letters. `names`: the
    question's (`_question_names`)."""
    # a work is named by its whole title: 《命运派对》 is not named by a text that writes 命运
    # and 派对 apart
    untitled = [
        t
        for title in _WORK_TITLE.findall(names.asking)
        if not any(_SPACES.sub("", title) in _SPACES.sub("", item.text) for item in items)
        for t in words
        if t.text in title
    ]
    if untitled:
        return untitled
    unused = [t for t in words if t.kind in ("cjk", "word") and t.text in unseen]
    if not unused:
        return []
    candidates = [
        t
        for t in unused
        if t.text in names.titled
        or frequency.zipf(t.text if t.kind == "cjk" else t.display.lower()) < frequency.NAME_ZIPF
    ]
    if not candidates:
        return []
    return [
        t
        for t in candidates
        if t.text in names.proper
        # a Latin word of an English question is looked for only where a Latin text could
        # write it ("Fab 2" is 「二廠」 in a Chinese contract); a name in pinyin still counts
        and (
            t.kind == "cjk"
            or names.kept_latin
            or any(text_analysis.script_of(i.section) == "latin" for i in items)
        )
        and not any(_names(_as_name(t), item.text) for item in items)
        and not any(_names_the_rest(t.text, names.asking, item.text) for item in items)
        # an English word a Chinese question keeps ("Deluxe") is named where a Chinese item
        # writes it in translation (豪华型, or the word inside it, 豪华)
        and not (
            t.kind == "word"
            and names.kept_latin
            and any(
                _writes_unit(rendering, "cjk", item.text)
                for rendering in bilingual.renderings(t.text)
                for item in items
            )
        )
    ]


@dataclass(frozen=True)
class _Names:
    asked: str  # the asking part of the question, as written
    asking: str  # the same, normalised
    titled: frozenset[str]  # the words of a title in 《》
    proper: frozenset[str]  # every word that names something (titled included)
    kept_latin: bool  # a Chinese question keeping Latin words: capitalised ones are names


def _question_names(query: str) -> _Names:
    """The words of a question's asking part that name something: words the general tagger
    takes for proper nouns, the words of a title in 《》 (a work's name, everyday words too:
    「《我的暑假》是由哪个公司发售的游戏？」), capitalised words inside an English sentence, and
    a capitalised Latin word a Chinese question keeps (「Playfish的总部在哪里？」; an acronym,
    MOSFET or RMA, is a term)."""
    asked = sentences.asking_and_told(query)[0]
    asking = text_analysis.normalize(asked)
    titled = frozenset(
        w
        for title in _WORK_TITLE.findall(asking)
        for w in text_analysis.content_words(title, times=True)
    )
    proper = set(text_analysis.proper_nouns(asking)) | titled
    proper |= {text_analysis.stem(w.lower()) for w in _PROPER.findall(asked)}
    # A sentence's first word is capitalised whatever it is: it names something only when it is
    # rare in the language, as names are ("Huayi annual dinner F&B minimum how much?").
    proper |= {
        text_analysis.stem(w.lower())
        for w in _OPENING_WORD.findall(asked)
        if frequency.zipf(w.lower()) < frequency.NAME_ZIPF
    }
    kept_latin = text_analysis.script_of(asking) == "cjk"
    if kept_latin:
        proper |= {text_analysis.stem(w.lower()) for w in _CAPITALISED.findall(asked)}
    return _Names(asked, asking, titled, frozenset(proper), kept_latin)


_WORK_TITLE = re.compile(r"《([^》]{1,40})》")
# A year a question names (1887, 2027): the time it asks about.
_YEAR_CJK = re.compile(r"(?<![\d.,])(1\d{3}|20\d{2})\s*年")
_YEAR_LATIN = re.compile(
    rf"\b(?:in|since|until|till|before|after|during|by|from|of|q[1-4]|{moments.MONTH_NAME})"
    r"\.?,?\s+(1\d{3}|20\d{2})\b(?![.,]?\d)"
)
_YEAR_NAMING = re.compile(r"\bthe\s+(19\d{2}|20\d{2})\s+([a-z]+)")
# A year right after a Chinese character (「世界杯2002」), or standing apart before one (「2025
# 夏日會議專案」); not inside a code, a span or a decimal (M1911, 1993-1996).
_YEAR_BESIDE_CJK = re.compile(
    rf"(?:(?<=[{text_analysis.CJK}])|(?<![\w.,/-]))(19\d{{2}}|20\d{{2}})(?![\d.,/-])"
    rf"(?=\s*[{text_analysis.CJK}]|(?<=[{text_analysis.CJK}]\d{{4}}))"
)
# The units written in Chinese (年 among them: 「2025年」 is _YEAR_CJK's).
_CJK_UNITS = tuple(u for u in units.UNITS if not u.isascii())


def _counted(after: str) -> bool:
    """Whether what follows a number makes it a count or a measure: a unit (「件」, 「公斤」) or
    a word the tagger reads as a measure word or numeral (「位」, 「名」, 「次」, 「萬元」). It
    reads 「人」 as a noun, so 「2000 人」 is taken for a year: the answer must then write 2000,
    as a text about two thousand people does."""
    rest = after.lstrip()
    return rest.startswith(_CJK_UNITS) or text_analysis.measure_word(rest[:2])


_SPACES = re.compile(r"\s+")
_CAPITALISED = re.compile(r"(?<![A-Za-z])[A-Z][a-z][A-Za-z]*")
# A foreign name as Chinese writes it: its parts joined by a middle dot (艾蒂安·保罗·马利·拉莫特).
_DOTTED_NAME = re.compile(rf"[{text_analysis.CJK}]+(?:[·・•‧][{text_analysis.CJK}]+)+")
_NAME_DOT = re.compile("[·・•‧]")


def _names_the_rest(word: str, question: str, text: str) -> bool:
    """Whether a text writes every other part of the transliterated name a word of the
    question stands in: a part is transliterated in more than one way (拉摩特 / 拉莫特), and
    the segmenter cuts a part with what follows it (「尼高·高华以什么著称」)."""
    for match in _DOTTED_NAME.finditer(question):
        parts = _NAME_DOT.split(match.group())
        holding = [p for p in parts if word in p or p in word]
        others = [p for p in parts if p not in holding]
        if holding and others and all(p in text for p in others):
            return True
    return False


def _as_name(term: Term) -> str:
    """A term as a name is looked for: a Chinese word as folded, a Latin one as the question
    writes it, in lower case and without a possessive (not stemmed: "Hawkeye's")."""
    if term.kind == "cjk":
        return term.text
    return re.sub(r"['’]s$", "", term.display.lower())


def _names(name: str, text: str) -> bool:
    """Whether a normalised text writes a name of the question: a Chinese one as written, as
    the longer name it shortens, or in pinyin as a word of its own; a Latin one as written but
    for one letter (a name is misspelt as often as it is asked: "Emmrich" for Emmerich), or as
    the Chinese characters whose pinyin it is ("Huayang" for 華陽)."""
    if not _CJK.search(name):
        return _names_latin(name, text)
    if name in text or text_analysis.shortened_in(name, text):
        return True
    return any(
        re.search(rf"(?<![a-z]){spelled}(?![a-z])", text)
        for spelled in bilingual.romanizations(name)
    )


# A Latin name this long or longer is recognised with one letter wrong (shorter ones would
# match too many other words).
_MISSPELT_MIN_CHARS = 5


def _names_latin(name: str, text: str) -> bool:
    if len(name) >= _MISSPELT_MIN_CHARS and any(
        _one_edit(name, word) for word in set(_LATIN_WORD.findall(text))
    ):
        return True
    return bilingual.spelled_in(name, text)


_LATIN_WORD = re.compile(r"[a-z]+")


def _one_edit(a: str, b: str) -> bool:
    """Whether two words differ by at most one letter inserted, dropped, replaced or two
    neighbours swapped."""
    if a == b:
        return True
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = sorted((a, b), key=len)
    i = next((i for i in range(len(short)) if short[i] != long_[i]), len(short))
    return short[i:] == long_[i + 1 :]


def _says_anything(query: str) -> bool:
    """Whether a query has a letter or a Chinese character beyond function words: a name the
    segmenter cuts into single characters (「邓飏是哪里人？」) still says what it asks about."""
    norm = text_analysis.normalize(query)
    if any(map(text_analysis.split_function_words, _CJK_RUN.findall(norm))):
        return True
    latin = re.findall(r"[a-z]+", norm)
    return any(word not in text_analysis.EN_STOPWORDS for word in latin)


def question_terms(query: str, known: Callable[[str], int] | None = None) -> list[Term]:
    """What evidence has to mention: the query's identifiers and English words, and its Chinese
    words as a general-purpose segmenter cuts them (「交齊」「審核」「最晚」, not the runs left
    between function characters, 「邊審核最晚」), with the names it cannot place. A word the
    dictionary glued to a question word (「哪些項目」) counts as the word alone, and one that
    is only the question word and a measure (「哪幾天」「哪幾種」) counts as nothing, and so does
    one glued of the unit of the quantity asked and what follows it (天前 of 「幾多個工作天前
    通知」: `text_analysis.unglued`).
    `known` (how many chunks the principal may read contain a word) re-cuts what the segmenter
    cut across the knowledge's own words (`_recut`)."""
    # What a query only tells still names its subject: identifiers and names count from there.
    asking, told = sentences.asking_and_told(query)
    terms = [t for t in text_analysis.content_terms(query) if t.kind == "identifier"]
    terms += [
        t
        for t in text_analysis.content_terms(f"{asking} {' '.join(_PROPER.findall(told))}")
        if t.kind not in ("cjk", "identifier") and t.text not in {i.text for i in terms}
    ]
    norm = text_analysis.without_quantities(text_analysis.normalize(asking))
    names = text_analysis.proper_nouns(text_analysis.normalize(told)) if told else []
    seen = {t.text for t in terms}
    asked = [*text_analysis.content_words(norm, times=True), *frequency.unknown_words(norm)]
    for word in [*text_analysis.unglued(asked, norm), *names]:
        word = _without_question_word(word)
        if _CJK.search(word) and word not in seen:
            seen.add(word)
            terms.append(Term(text=word, display=_as_written(query, word), kind="cjk"))
    return _recut(terms, norm, known, query) if known is not None else terms


# The longest word of the knowledge looked for across a segmenter's boundary.
_RECUT_LONGEST = 4


def _recut(terms: list[Term], text: str, known: Callable[[str], int], query: str) -> list[Term]:
    """A general segmenter's dictionary does not know a company's names and cuts a colloquial
    question across them: 「速聯合約」 as 速/聯合/約 (速聯 the customer, 合約 the contract),
    「普通科睇」 as 普通/科睇 (the clinic's 普通科, and 睇, "see"). A Chinese word that nothing
    the principal may read contains, where words the knowledge does contain cross its
    boundaries and leave at most its last character uncovered (the first of what followed it,
    glued on by the segmenter), is those words instead. A word nothing crosses, or that keeps
    more of its own, stays (嘉善 of 嘉善南站 when only 嘉興南站 is readable: the knowledge does
    not name it; 回火 beside a 火溫 written somewhere)."""
    found: list[Term] = []
    held = {t.text for t in terms}
    asking: frozenset[int] | None = None  # read once, for the first word to re-cut
    for term in terms:
        words = None
        if term.kind == "cjk" and not known(term.text):
            asking = _asking_at(text) if asking is None else asking
            words = _across(term.text, text, known, asking)
        if not words:
            found.append(term)
            continue
        for word in words:
            if word not in held:
                held.add(word)
                found.append(Term(text=word, display=_as_written(query, word), kind="cjk"))
    return found


def _asking_at(text: str) -> frozenset[int]:
    """Where a question's text says how it asks: its function words and characters. A word of
    the knowledge takes no character from them (時 of 幾時 in 「幾時停機」: a 時停 written
    somewhere is no word of it)."""
    words = {
        p
        for w in text_analysis.function_words()
        for m in re.finditer(re.escape(w), text)
        for p in range(m.start(), m.end())
    }
    return frozenset(words | {p for p, ch in enumerate(text) if text_analysis.is_function_char(ch)})


def _across(word: str, text: str, known: Callable[[str], int], asking: frozenset[int]) -> list[str]:
    """The knowledge's words crossing `word`'s boundaries in `text`, where they leave at most its
    last character uncovered and take nothing from `asking` (`_recut`); else none."""
    at = text.find(word)
    run = next((m for m in _CJK_RUN.finditer(text) if m.start() <= at < m.end()), None)
    if at < 0 or run is None:
        return []
    start, end = at, at + len(word)

    def longest(spans: list[tuple[int, int]]) -> tuple[int, int] | None:
        written = [
            (j - i, count, (i, j))
            for i, j in spans
            if run.start() <= i
            and j <= run.end()
            and not any(p in asking for p in range(i, j) if not start <= p < end)
            and (count := known(text[i:j]))
        ]
        best = max(written, key=lambda w: w[:2], default=None)  # the longest, then most written
        return best[2] if best else None

    reach = _RECUT_LONGEST
    before = longest(
        [
            (i, j)
            for i in range(start - reach + 1, start)
            for j in range(start + 1, end + 1)
            if 2 <= j - i <= reach
        ]
    )
    after = longest(
        [
            (i, j)
            for i in range(start, end)
            for j in range(end + 1, end + reach)
            if 2 <= j - i <= reach
        ]
    )
    chosen = [s for s in (before, after) if s is not None]
    covered = {p for i, j in chosen for p in range(i, j)}
    # what the segmenter glued to the knowledge's word is what follows it: only the word's last
    # character may be left (睇 of 科睇, 係 of 水係), never its first (回 of 回火 beside 火溫)
    if not chosen or any(p not in covered for p in range(start, end - 1)):
        return []
    return [text[i:j] for i, j in chosen]


# An interrogative determiner names the kind of answer wanted with the noun it governs:
# 「哪個國家」「什麼地方」「什么颜色」, "which hours", "what divisor". The answer is an instance
# (尼加拉瓜, 22:00 至 06:00, 6000), which a text may state without naming its kind.
_ASKING_FOR_KIND_CJK = re.compile(
    rf"(?:什么样的|什么|哪一?[个些种位家类])(?:的)?(?=[{text_analysis.CJK}])"
)
_ASKING_FOR_KIND_LATIN = re.compile(r"\b(?:what|which)\s+(?:kind\s+of\s+|type\s+of\s+)?([a-z]+)")


def answer_categories(query: str) -> frozenset[str]:
    """The words of a question (as Term.text) that say what kind of thing its answer is: the
    noun right after an interrogative determiner (see above)."""
    norm = text_analysis.normalize(sentences.asking_and_told(query)[0])
    found: set[str] = set()
    for match in _ASKING_FOR_KIND_CJK.finditer(norm):
        rest = norm[match.end() : match.end() + 8]
        words = text_analysis.content_words(rest)
        if words and rest.startswith(words[0]):
            found.add(words[0])
    for match in _ASKING_FOR_KIND_LATIN.finditer(norm):
        if match.group(1) not in text_analysis.EN_STOPWORDS:
            found.add(text_analysis.stem(match.group(1)))
    return frozenset(found)


# A capitalised word inside a sentence, not its first: a name ("Singapore", "Keller").
_PROPER = re.compile(r"(?<=[A-Za-z0-9,;:)] )[A-Z][a-z][A-Za-z-]*\b")

# A capitalised word opening a sentence.
_OPENING_WORD = re.compile(r"(?:^|(?<=[.?!] ))[A-Z][a-z][A-Za-z-]*\b")


def _without_question_word(word: str) -> str:
    for function_word in text_analysis.function_words():
        if len(word) - len(function_word) >= 2:
            if word.startswith(function_word):
                return word[len(function_word) :]
            if word.endswith(function_word):
                return word[: -len(function_word)]
    return word


def _as_written(query: str, unit: str) -> str:
    """A unit in the question's own script (units are folded to Simplified)."""
    folded = text_analysis.normalize(query)
    at = folded.find(unit)
    if at >= 0 and len(folded) == len(query):
        return query[at : at + len(unit)]
    return unit


def _relevant(
    item: Item,
    words: list[Term],
    identifiers: list[Term],
    distinctive: str | None,
    kinds: Container[str] = (),
    series: dict[str, set[str]] | None = None,
    names: _Names | None = None,
    years: tuple[str, ...] = (),
    untranslated: Container[str] = (),
) -> str | None:
    """ "lexical", "translated" (across scripts, by the dictionary) or "vector" when the item
    is relevant (and how), else None. `kinds`: words naming the kind of answer asked for
    (`answer_categories`), which count where the item writes them and are not looked for
    where it does not. `names`: the question's names (`_question_names`), found only where
    written and enough with everyday words said otherwise (`_names_its_subject`); `years`:
    the years it names (`_years`), counted with its words."""
    if not all(term_found(t, item.text, item.units) for t in identifiers):
        return None
    script = text_analysis.script_of(item.section)  # the chunks, not whichever span was cut
    if (
        distinctive
        and _unit_script(distinctive) == script
        and not _writes_unit(distinctive, script, item.text)
    ):
        return None  # the question's most distinctive term is not there, nor its longer form
    if another_member(series, item.text):
        return None  # it is about Line 4 when Line 3 is asked about
    # Identifiers and numbers (a strength class 8.8, a grade 10.9) are the same in every
    # language; words only in their own script.
    checkable = identifiers + [t for t in words if _script(t) == script or _numeral(t)]
    # A name is found where it is written, not where half its characters are (汉传佛教 does
    # not write 藏传佛教).
    has = {
        t.text: _name_written(t.text, item.text)
        if t.kind == "cjk" and names is not None and t.text in names.proper and _is_name(t, names)
        else term_found(t, item.text, item.units)
        for t in checkable
    }
    # A word naming the kind of answer leaves the count where the item does not write it.
    counted = [t for t in checkable if has[t.text] or t.text not in kinds]
    if counted:
        # the years it names count with the words (a year is written alike in every script)
        dated = [_writes_year(item.text, y) for y in years]
        hits = sum(has[t.text] for t in counted) + sum(dated)
        if hits * 2 > len(counted) + len(dated):
            return "lexical"
        named = (
            names is not None
            and item.vector_z >= OUTLIER_Z
            and _names_its_subject(counted, has, names)
        )
        return "lexical" if named else None
    # Across scripts, the words are compared by their translations in a general dictionary,
    # or as written where the item keeps them in the question's language (reel, DC).
    found = sum(
        term_found(t, item.text, item.units) or _translated(t, item.text, item.units) for t in words
    )
    if words and found * 2 > len(words):
        return "translated"
    # The embedding stands in for words the dictionary cannot compare, not for a word that
    # nothing readable says in either language ("kosher", 洁食): its pick is about something
    # else.
    if any(t.text in untranslated for t in words):
        return None
    return "vector" if item.vector_z >= OUTLIER_Z else None


def _states(kind: str, item: Item, part: str, share: bool) -> bool:
    """Whether the part of an item's section (`_about_distinctive`) states an answer of this
    kind, read in the whole document: a price list names its currency once, over every part."""
    return answer_types.states(kind, part, share=share, within=item.body or item.section)


def _about_distinctive(item: Item, distinctive: str | None) -> str:
    """The paragraphs of an item's section that write the question's most distinctive unit
    (each with the heading over it: `spans.headed_paragraphs`), and the document's opening
    paragraph (a mail's sender and date, a letterhead), where the answer asked for must be
    stated: a meeting's minutes that discuss the lifts' maintenance contract in one item and
    raise the management fee in another do not state what the maintenance costs. The whole
    section where the title writes the unit (the document is about it), where the unit is of
    another script, or where no one paragraph writes it."""
    script = text_analysis.script_of(item.section)
    if (
        not distinctive
        or _unit_script(distinctive) != script
        or _writes_unit(distinctive, script, text_analysis.normalize(item.title))
    ):
        return item.section
    about = [
        paragraph
        for paragraph, normalized in _paragraphs(item.section)
        if _writes_unit(distinctive, script, normalized)
    ]
    if not about:
        return item.section
    opening = spans.paragraphs(item.body)
    return "\n\n".join([*opening[:1], *about] if len(opening) > 1 else about)


@functools.lru_cache(maxsize=4096)
def _paragraphs(section: str) -> tuple[tuple[str, str], ...]:
    """A section's headed paragraphs, each with its normalised text (sections recur: the same
    chunks answer many questions)."""
    return tuple((p, text_analysis.normalize(p)) for p in spans.headed_paragraphs(section))


def _writes_unit(unit: str, script: str, text: str) -> bool:
    """Whether a normalised text in a unit's script writes it: as written (an English stem also
    inside the words derived from it), a Chinese word also as the longer word it shortens or,
    three characters or more, by a shorter word of the dictionary inside it, an English one
    also as its base ("audit" for "auditor"), an identifier also as it is found
    (`text_analysis.contains_identifier`: 60k written 60,000)."""
    if unit in text:
        return True
    if text_analysis.identifiers_in(unit) == [unit]:
        return text_analysis.contains_identifier(text, unit)
    if text_analysis.is_compound(unit):  # a hyphenated word, solid or apart ("cooling off")
        return unit.replace("-", "") in text or text_analysis.parts_apart_in(unit, text)
    if script == "latin" and unit in {text_analysis.stem(w) for w in _LATIN_WORD.findall(text)}:
        return True  # an irregular inflection, stemmed as its lemma ("built" of build)
    if script == "cjk":
        # a longer word also by a word of the dictionary inside it, which the knowledge writes
        # on its own or in another compound: 分體式 in 分體機, 辅料厂 in 辅料
        return text_analysis.shortened_in(unit, text) or (
            len(unit) >= 3 and any(w in text for w in text_analysis.words_inside(unit))
        )
    return _base_in(unit, text)


def _name_written(name: str, text: str) -> bool:
    """Whether a normalised Chinese text writes a Chinese name: whole, as the longer name it
    shortens (徐家 in 徐氏家族), or in other characters of the same sound (莱索托 for 赖索托)."""
    return (
        name in text or text_analysis.shortened_in(name, text) or bilingual.homophone_in(name, text)
    )


def _names_its_subject(counted: list[Term], found: dict[str, bool], names: _Names) -> bool:
    """Whether an item names what the question names (the subject it asks about: a person, a
    place, a work — rare in the language, as names are, or a title in 《》), has at least half
    of the question's words, and what it lacks is everyday language, which a text says in its
    own words (「霁虹桥的位置」 answered by 「霁虹桥位于……」; 「《长眠不醒》的作者」 by
    「《长眠不醒》是雷蒙·钱德勒……的小说」). `found`: which words the item has."""
    named = [t for t in counted if t.text in names.proper and _is_name(t, names)]
    if not named or not all(found[t.text] for t in named):
        return False
    words = [t for t in counted if t.kind != "identifier"]
    lacking = [t for t in words if not found[t.text]]
    return len(lacking) * 2 <= len(words) and all(
        frequency.zipf(_as_name(t)) >= frequency.NAME_ZIPF for t in lacking
    )


# Years named relative to the current one: the question asks about that year ("next year's
# surcharge", 「明年管理費」, Cantonese 「下年」); this year is every current document's own.
_RELATIVE_YEAR = re.compile(
    r"(?P<cjk>去年|前年|明年|后年|下年|来年)|(?<!the )(?<!past )\b(?P<en>last|next) year\b"
)
_YEAR_OFFSET = {
    "前年": -2,  # the year before last
    "去年": -1,
    "last": -1,
    "明年": 1,
    "下年": 1,  # Cantonese 明年
    "来年": 1,
    "next": 1,
    "后年": 2,  # the year after next
}


def _years(asking: str, this_year: int | None = None) -> tuple[str, ...]:
    """The years a question names as the time it asks about: four digits before 年 (「1968年」),
    or in English after a preposition of time or a month or quarter ("in 1169", "since 2019",
    "Q1 2027", "January 2026"), or naming which one ("the 2027 sheet"); and, given the current
    year, those it names relative to it (「明年」, "last year": `_RELATIVE_YEAR`). A bare number
    is no year ("a 1055 telehandler", 「1,500 件」)."""
    text = unicodedata.normalize("NFKC", asking).lower()
    found = _YEAR_CJK.findall(text) + _YEAR_LATIN.findall(text)
    # 「2025 夏日會議專案」, 「世界杯2002」: a year of this or the last century beside Chinese words
    # names which one, as "the 2027 sheet" does — unless a unit or a measure word follows it (a
    # count: 「1500 件」, 「2000 位」)
    found += [m.group(1) for m in _YEAR_BESIDE_CJK.finditer(text) if not _counted(text[m.end(1) :])]
    # "the 2027 sheet", "the 1990 edition": a year of this or the last century names which one
    found += [m.group(1) for m in _YEAR_NAMING.finditer(text) if not facts.is_unit_word(m.group(2))]
    if this_year is not None:
        folded = text_analysis.normalize(asking)
        found += [
            str(this_year + _YEAR_OFFSET[m.group("cjk") or m.group("en")])
            for m in _RELATIVE_YEAR.finditer(folded)
        ]
    return tuple(dict.fromkeys(found))


def _writes_year(text: str, year: str) -> bool:
    return re.search(rf"(?<!\d){year}(?!\d)", text) is not None


def _is_name(term: Term, names: _Names) -> bool:
    """A word that names something is rare in the language, unless a title writes it."""
    return term.text in names.titled or frequency.zipf(_as_name(term)) < frequency.NAME_ZIPF


def _everyday_unused(term: Term, unseen: Container[str], question: str) -> bool:
    """A word no chunk the principal may read contains that is everyday language (not a name
    or term: services.language.frequency), or, in Chinese, a verb (the tagger's reading:
    「拎去」, 「補返」, 「搞定」): what is done, which a text says in its own words."""
    if term.text not in unseen:
        return False
    if frequency.zipf(term.text) >= frequency.NAME_ZIPF:
        return True
    return term.kind == "cjk" and text_analysis.verbal(term.text, question)


# Words that place a question at the moment it is asked: "current", "now", "this year", 「現在」
# 「目前」「而家」「今年」.
_NOW = re.compile(
    r"\b(?:current(?:ly)?|now|nowadays|these days|at present|presently|today|this year)\b|"
    r"现在|目前|当前|现时|现行|而家|如今|眼下|今年|本年度"
)


# Words that place a question in the past, or at what was once quoted: "last", "did", "in 2025",
# 「上次」「之前」「去年」, 「我们给华屹报的单价」, "what we quoted".
_PAST = re.compile(
    r"\b(?:last|previous(?:ly)?|earlier|ago|used to|did|was|were|had|in (?:19|20)\d\d)\b|"
    r"\bquot(?:e|es|ed|ation|ations)\b|"
    r"上次|上回|之前|以前|先前|去年|前年|当时|当年|曾经|过去|原来|(?:19|20)\d\d\s*年|"
    r"报价|报的|报了|报过"
)


def asks_about_now(asking: str, asked: Container[str] = ()) -> bool:
    """Whether the asking part of a question (normalised: `_Names.asking`) places it at the
    present: "What's our current price…", 「…現在每個月的服務費是多少？」, or, asking for money
    (`asked`: its answer types), does not place itself in the past or at a quotation — a price
    asked so is the price now (docs/product.md: never present a past quote as a current price).
    A past quote or a customer's old mail (history) tells what was, which such a question does
    not ask."""
    if _NOW.search(asking):
        return True
    return answer_types.MONEY in asked and not _PAST.search(asking)


# A member of a numbered series: "line 3", "lift 2", 「1號 lift」「2号机」 (normalised text), and
# the short form a plant writes for the first ("l3", "wi-l4-pack").
_MEMBER_LATIN = re.compile(r"\b([a-z]{2,})\s*(?:no\.?\s*|#\s*)?(\d{1,3})\b(?!\s*[.,:]?\d)")
_MEMBER_SHORT = re.compile(r"(?<![a-z0-9])([a-z])-?(\d{1,3})(?![a-z0-9])")
_NEXT_WORD = re.compile(r"\s*(\S+)")
# (not a day of a month: 「12月1號」)
_MEMBER_CJK = re.compile(r"(?<![月\d])(\d{1,3})\s*号\s*([a-z]{2,}|[\u4e00-\u9fff])")


def asked_series(query: str) -> dict[str, set[str]]:
    """The members of numbered series the asking part of a question names (rule 5)."""
    return numbered(text_analysis.normalize(sentences.asking_and_told(query)[0]))


def numbered(normalized: str) -> dict[str, set[str]]:
    """The numbered series a normalised text names members of: {"line": {"3"}} for "Line 3",
    {"lift": {"1"}} for 「1號 lift」. A number that is an amount ("2 hours", "5 days"), a date
    ("june 5") or a word before it that says nothing ("within 5") is no member."""
    found: dict[str, set[str]] = {}
    for match in _MEMBER_LATIN.finditer(normalized):
        noun, number = match.group(1), match.group(2)
        if noun in text_analysis.EN_STOPWORDS or moments.moments(match.group(0)):
            continue  # "within 5", "june 5"
        after = _NEXT_WORD.match(normalized, match.end())
        if after and (facts.is_unit_word(after[1].strip(".,;:)")) or after[1][:1] in "%°"):
            continue  # "2 hours", "5 %"
        found.setdefault(noun, set()).add(number)
    for match in _MEMBER_CJK.finditer(normalized):
        found.setdefault(match.group(2), set()).add(match.group(1))
    return found


def another_member(series: dict[str, set[str]] | None, text: str) -> bool:
    """Whether a text names other members of a series the question asks one member of, and
    not that one: a work instruction for Line 4 does not answer for Line 3, a table of lines 1,
    3 and 4 does not answer for line 2. A text naming no member of the series (a rule for
    every line) is not concerned."""
    if not series:
        return False
    written = numbered(text)
    short: dict[str, set[str]] = {}
    for match in _MEMBER_SHORT.finditer(text):
        short.setdefault(match.group(1), set()).add(match.group(2))
    for noun, asked in series.items():
        members = written.get(noun, set()) | short.get(noun[0], set())
        if members and not members & asked:
            return True
    return False


def _translated(term: Term, text: str, units: Container[str]) -> bool:
    """Whether a text of the other script writes one of the term's dictionary translations."""
    if _script(term) == "cjk":
        return any(stem in units for stem in bilingual.meanings(term.text))
    return any(word in text for word in bilingual.renderings(term.text))


_CJK = re.compile(f"[{text_analysis.CJK}]")
_CJK_RUN = re.compile(f"[{text_analysis.CJK}]+")


def _script(term: Term) -> str:
    return "cjk" if re.search(f"[{text_analysis.CJK}]", term.text) else "latin"


def _numeral(term: Term) -> bool:
    """A number the question writes (8.8, 10.9, 304): digits are written alike in every script."""
    return _NUMERAL.fullmatch(term.text) is not None


_NUMERAL = re.compile(r"\d+(?:[.,/-]\d+)*")


def _unit_script(unit: str) -> str:
    return "cjk" if re.search(f"[{text_analysis.CJK}]", unit) else "latin"


# ---- rule 9: a name's siblings -----------------------------------------------------------------
# What a list separates: commas, slashes and the words that join its members.
_LIST_SEPARATOR = re.compile(r",|/|、|&|\band\b|\bor\b|以及|及|和|与|與|或")
_CLAUSE_SEPARATOR = re.compile(r"[.;:。；：!?！？\n]")
_BRACKETED = re.compile(r"\(([^()]*)\)|（([^（）]*)）")
_TITLE_WORD = re.compile(r"[A-Z][a-z]+")
# A bound on the work: the siblings of a name are read in this many of the texts naming it.
SIBLING_TEXTS = 20


def siblings(name: str, texts: Sequence[str]) -> frozenset[str]:
    """What the texts list beside `name` as members of one set ("Sites: Leicester (UK) and
    Columbus", "one in Leicester, one in Columbus", 「經海化、壽光、寒亭、昌邑」): the names
    that end the consecutive parts of a list holding it — a capitalised Latin word, or a
    Chinese part that is a short run of characters — rare in the language, as names are.
    Normalised (lower case, Simplified)."""
    latin = _CJK.search(name) is None
    target = name.lower() if latin else text_analysis.normalize(name)
    found: set[str] = set()
    for text in texts:
        pieces = [m.group(1) or m.group(2) or "" for m in _BRACKETED.finditer(text)]
        pieces.append(_BRACKETED.sub(" ", text))
        for piece in pieces:
            for clause in _CLAUSE_SEPARATOR.split(piece):
                run: list[str] = []
                for part in [*_LIST_SEPARATOR.split(clause), ""]:
                    member = _member(part, latin)
                    if member is not None:
                        run.append(member)
                        continue
                    if len(run) >= 2 and target in run:
                        found.update(m for m in run if m != target)
                    run = []
    return frozenset(m for m in found if frequency.zipf(m) < frequency.NAME_ZIPF)


def _member(part: str, latin: bool) -> str | None:
    """The name a part of a list ends with: a capitalised Latin word ("pirates from Denmark"),
    a Chinese part that is a short run of characters."""
    part = part.strip()
    if latin:
        words = part.split()
        if words and _TITLE_WORD.fullmatch(words[-1]):
            return words[-1].lower()
        return None
    run = text_analysis.normalize(part)
    return run if _CJK_RUN.fullmatch(run) and 2 <= len(run) <= 8 else None


class _Siblings:
    """The names a question asks about, each with its siblings (`siblings`), read only for a
    name that an item does not write."""

    def __init__(self, names: _Names, texts_naming: Callable[[str], Sequence[str]]) -> None:
        asked = {w.lower(): w for w in _PROPER.findall(names.asked)}
        if names.kept_latin:
            asked |= {w.lower(): w for w in _CAPITALISED.findall(names.asked)}
        asked |= {w: w for w in names.proper if _CJK.search(w)}
        self._asked = asked
        self._texts_naming = texts_naming
        self._found: dict[str, frozenset[str]] = {}

    def named_instead(self, text: str) -> bool:
        """Whether a (normalised) text names a sibling of a name the question asks about and
        not that name: the Leicester site's audit window does not answer for Columbus's."""
        return any(
            not _writes_name(text, name) and any(_writes_name(text, s) for s in self._of(name))
            for name in self._asked
        )

    def _of(self, name: str) -> frozenset[str]:
        if name not in self._found:
            unit = name if _CJK.search(name) else text_analysis.stem(name)
            texts = self._texts_naming(unit)
            self._found[name] = siblings(self._asked[name], texts) - set(self._asked)
        return self._found[name]


def _writes_name(text: str, name: str) -> bool:
    if _CJK.search(name):
        return name in text
    return next(text_analysis.whole_tokens(text, name), None) is not None

"""Text analysis shared by BM25, identifier matching, coverage and fact extraction."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass

import jieba
import jieba.posseg
import lemminflect
import opencc

from services.language import units

# Han, kana and hangul: scripts written without spaces, tokenised as character n-grams.
CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[a-z0-9]+(?:[-_./][a-z0-9]+)*")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
# A dimension written with the multiplication sign is the same name typed with an x: M6×30 is
# M6x30, 2000×1000 is 2000x1000.
_TIMES_SIGN = re.compile(r"(?<=[0-9a-z])\s?[×✕]\s?(?=[0-9a-z])")
_TOKEN_OR_CJK = re.compile(f"[{CJK}]+|[a-z0-9]+(?:[-_./][a-z0-9]+)*")

# Part numbers and specs: letters and digits in one token (SUS304, SUS316L, Q42, PN-7731-B,
# A6061-T6, 8D, Ti-6Al-4V). Version labels such as v2 are metadata, not identifiers.
_IDENTIFIER = re.compile(
    r"(?<![a-z0-9])(?=[a-z0-9-]*[a-z])(?=[a-z0-9-]*\d)[a-z0-9]+(?:-[a-z0-9]+)*(?![a-z0-9])"
)
_VERSION_LABEL = re.compile(r"^(?:v|rev)\d+$")
# An amount after a currency sign ("nt$400k", "£1.2m") is money, not a code.
_CURRENCY_AMOUNT = r"(?<![a-z0-9])(?:[a-z]{1,2})?[$£€¥]\s*\d[\d,.]*(?:k|m|bn)?(?![a-z0-9])"
_CURRENCY_SIGNS = ("$", "£", "€", "¥")
# An English ordinal ("1st", "22nd", "3rd", "31st") is a number, not a code.
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$")
# "120-day", "24h", "3mm" are quantities, not codes.
_QUANTITY_TOKEN = re.compile(
    r"^\d+(?:\.\d+)?-?(?:days?|hours?|hrs?|h|weeks?|months?|years?|mm|cm|m|kg|g|t|pcs|pieces?"
    r"|mins?|minutes?|µm|μm|um|s|sec|seconds?)$"
    # imperial lengths and masses, power and volume written onto the number: "40ft", "150kw"
    # ("316l" is a steel grade, "10k" a telehandler class, and "80-foot" names a boom class as
    # the documents write it: all three stay codes)
    r"|^\d+(?:\.\d+)?(?:ft|inch(?:es)?|lbs?|oz|kw|kwh|kva|hp|ml)$"
)

# Function words carry no topic; they are dropped before coverage is measured. These are the
# closed-class words of each language (pronouns, particles, interrogatives, copulas), not domain
# vocabulary.
ZH_FUNCTION_CHARS = frozenset(
    "的了嗎吗呢吧啊呀喔哦啦嘛是和與与及或也都就還还把被讓让給给從从對对向於于之其這这那哪些"
    "個个幾几麼么請请問问我你您他她它們们著着過过得再才又很更該该要會会為为跟到在多想誰谁"
    # written Cantonese particles, copula and pronouns: 係 (is), 嘅 (的), 咗 (了), 喺 (在),
    # 唔 (不), 冇 (沒), 咁 (so), 咪, 啲, 佢 (他), 哋 (們), 嗰 (那), 仲 (還), 㗎 囉 喎 吖
    "係系嘅咗喺唔冇咁咪啲佢哋嗰仲㗎囉喎吖"
)
ZH_FUNCTION_WORDS = (
    "請問",
    "请问",
    "什麼",
    "什么",
    "時候",
    "时候",
    "怎麼",
    "怎么",
    "怎樣",
    "怎样",
    "如何",
    "哪些",
    "哪個",
    "哪个",
    "哪裡",
    "哪里",
    "哪天",
    "多少",
    "多久",
    "多長",
    "多长",
    "是否",
    "有沒有",
    "有没有",
    "可以",
    "能否",
    "我們",
    "我们",
    "你們",
    "你们",
    "他們",
    "他们",
    "目前",
    "現在",
    "现在",
    "之前",
    "大概",
    "上一次",
    "上次",
    "最近",
    "以前",
    "如果",
    "已經",
    "已经",
    "因為",
    "因为",
    "所以",
    "但是",
    "而且",
    "或者",
    "應該",
    "应该",
    "需要",
    "可能",
    "通常",
    "一般來說",
    "一般来说",
    "最多",
    "最少",
    "至少",
    "東西",
    "东西",
    "事情",
    # Written Cantonese, as Hong Kong writes questions: 而家 (now), 幾時 (when), 邊個 (who),
    # 點樣 (how), 乜嘢 (what), 係咪 (is it), 聽講 (I hear), 使唔使 (need or not)
    "而家",
    "幾時",
    "几时",
    "邊個",
    "边个",
    "點樣",
    "点样",
    "點解",
    "点解",
    "乜嘢",
    "係咪",
    "系咪",
    "聽講",
    "听讲",
)
_EN_STOPWORDS_TEXT = """
    a an the and or but if then than so of to in on at by for from with without about into over
    under between after before during per via as is are was were be been being am do does did done
    doing have has had having can could shall should will would may might must need needs needed
    i me my we us our ours you your yours he him his she her they them their it its this that these
    those there here what which who whom whose when where why how whether any some all each every
    no not nor only own same such too very just also again once more most other others much many
    few lot lots get gets got tell please one ones use used using like still yet up down out off
    now currently current usually typically normally generally often quickly soon long ever
    never always thing things stuff
    isn aren wasn weren don doesn didn won wouldn couldn shouldn hasn haven hadn let re ve ll
    someone something anyone anything everyone everything somebody anybody nobody nothing
    say says said tell tells told ask asks asked want wants wanted give gives gave given
    get getting make makes made take takes took taken go goes going went gone come comes came
    know knows knew think thinks see sees saw seem seems look looks way ok okay yes hi hello
    thanks thank kind regards dear etc
    ah oh eh uh um hmm lah leh lor meh hor"""
EN_STOPWORDS = frozenset(_EN_STOPWORDS_TEXT.split())


@functools.cache
def _t2s() -> opencc.OpenCC:
    return opencc.OpenCC("t2s")


_DIGIT = re.compile(r"\d")


def has_digit(text: str) -> bool:
    """Whether `text`, normalised, holds a digit (「①」 and "²" become digits under NFKC): a
    text without one states no quantity, date or time, so their patterns need not run."""
    return bool(_DIGIT.search(text) or _DIGIT.search(unicodedata.normalize("NFKC", text)))


def normalize(text: str) -> str:
    """Width, case, thousands separators, the multiplication sign and script folded: 標準/标准,
    ＳＵＳ304/sus304, M6×30/m6x30 meet."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    folded = _THOUSANDS.sub("", folded)
    folded = _TIMES_SIGN.sub("x", folded)
    return normalize_script(folded)


def normalize_script(text: str) -> str:
    """Traditional → Simplified Chinese (OpenCC t2s), so either script matches the other."""
    return str(_t2s().convert(text))


@functools.cache
def _s2t() -> opencc.OpenCC:
    return opencc.OpenCC("s2t")


@functools.lru_cache(maxsize=4096)
def written_simplified(text: str) -> bool:
    """Whether a Chinese text is written in Simplified characters: it has characters the
    Traditional script writes otherwise (门, 费, 价) and none the Simplified one does (門, 費)."""
    return str(_t2s().convert(text)) == text and str(_s2t().convert(text)) != text


_SUFFIXES = (
    ("ations", "ate"),
    ("ation", "ate"),
    ("ions", ""),
    ("ion", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ed", ""),
    ("es", "e"),
    ("s", ""),
)


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light English stemmer: calibrated/calibration/calibrate, gauges/gauge, days/day meet;
    an irregular inflection is stemmed as its lemma (`lemma`: lost/lose, paid/pay)."""
    word = lemma(word)
    if not word.isalpha() or len(word) <= 3 or word.endswith("ss"):
        return word
    for suffix, replacement in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # shipp → ship
    return word


def lemma(word: str) -> str:
    """The lemma of an English word whose only reading is as an inflection of one other word
    (lemminflect's dictionary of English: "lost" of lose, "paid" of pay, "children" of child,
    "written" of write). A form that is also a word of its own ("left", "found", "saw",
    "better") or that inflects two words stays as written."""
    if not word.isascii() or not word.isalpha():
        return word
    readings: set[str] = {
        str(found) for lemmas in lemminflect.getAllLemmas(word).values() for found in lemmas
    }
    if len(readings) != 1 or word in readings:
        return word
    (found,) = readings
    # a regular inflection (stored, verified, shipped, days) is left to the suffix rules, whose
    # stem is a prefix of every form a text writes
    return word if _inflects_regularly(found, word) else found


_REGULAR_ENDINGS = ("s", "es", "d", "ed", "ing", "ied", "ies", "er", "est", "ier", "iest")


def _inflects_regularly(headword: str, word: str) -> bool:
    """Whether `word` is `headword` with a regular English ending (a final e or y dropped, a
    final consonant doubled): "stored", "carried", "shipped", "days", "larger"."""
    root = headword[:-1] if headword[-1:] in "ey" else headword
    doubled = headword + headword[-1:]
    return any(
        word == f"{base}{ending}"
        for base in (headword, root, doubled)
        for ending in _REGULAR_ENDINGS
    )


def tokens(text: str) -> list[str]:
    """BM25 tokens: CJK character unigrams + bigrams, Latin words (stemmed) and identifiers.

    Function words (English stopwords, CJK particles as unigrams) are left out: in a mixed
    corpus they would make every same-language chunk look like a lexical match.
    """
    return tokens_in(normalize(text))


def tokens_in(normalized: str) -> list[str]:
    """`tokens` of a text already normalised (a block's rows are, once, for every index)."""
    out: list[str] = []
    function_chars = _function_chars()
    for piece in _TOKEN_OR_CJK.findall(normalized):
        if piece[0] > "\u3000":  # CJK runs never mix with Latin in one match
            out.extend(ch for ch in piece if ch not in function_chars)
            out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
            continue
        if piece in EN_STOPWORDS:
            continue
        out.append(stem(piece))
        if "-" in piece or "/" in piece or "." in piece or "_" in piece:
            out.extend(stem(part) for part in re.split(r"[-_./]", piece) if part)
    return out


def identifiers(text: str) -> list[str]:
    """Codes that must match exactly: normalised, in order of appearance, without repeats."""
    return identifiers_in(normalize(text))


def identifiers_in(normalized: str) -> list[str]:
    found = [
        ident
        for match in _IDENTIFIER.finditer(normalized)
        if not normalized[max(0, match.start() - 8) : match.start()]
        .rstrip()
        .endswith(_CURRENCY_SIGNS)
        and not _VERSION_LABEL.match(ident := match.group(0))
        and not _QUANTITY_TOKEN.match(ident)
        and not _ORDINAL.match(ident)
        and not ident.isdigit()
    ]
    return list(dict.fromkeys(found))


def script_of(text: str) -> str:
    """ "cjk" or "latin": the writing system most of a text's letters belong to."""
    cjk = sum(map(len, _CJK_RUN.findall(text)))  # counted by runs: fewer, longer matches
    latin = sum(map(len, _LATIN_RUN.findall(text)))
    return "cjk" if cjk * 3 >= latin and cjk > 0 else "latin"


_LATIN_RUN = re.compile(r"[A-Za-z]+")


def shortened_in(word: str, normalized_text: str) -> bool:
    """Whether a text writes the longer word a two-character Chinese word shortens: its two
    characters in order with one or two others between them (the first characters of a
    compound's two words, 勞(工)保(險), or the first of one and the last of the other,
    停(止上)班). Longer words are not shortened this way."""
    return (
        len(word) == 2
        and word[0] in normalized_text
        and word[1] in normalized_text
        and _short_form_of(word).search(normalized_text) is not None
    )


@functools.lru_cache(maxsize=4096)
def _short_form_of(word: str) -> re.Pattern[str]:
    return re.compile(f"{re.escape(word[0])}[{CJK}]{{1,2}}{re.escape(word[1])}")


def contains_identifier(normalized_text: str, identifier: str) -> bool:
    """Whole-token containment: SUS304 does not match SUS3040 or SUS304L. A numbered range of
    one series holds each of its numbers: 「TP-01～TP-04旋转式压片机」 names TP-03 (`_in_range`)."""
    if next(whole_tokens(normalized_text, identifier), None) is not None:
        return True
    return _in_range(normalized_text, identifier) or _thousands_in(normalized_text, identifier)


# A number of thousands written with k ("60k service", "a NT$400k order", "quote for 30k").
_IN_THOUSANDS = re.compile(r"^(\d{1,3})k$")


def _thousands_in(normalized_text: str, identifier: str) -> bool:
    """60k is written in full as 60,000 (or 60000, 60 000, 60.000), not as part of 160,000."""
    match = _IN_THOUSANDS.match(identifier)
    if match is None:
        return False
    full = rf"(?<![\d.,]){match.group(1)}[,. ]?000(?![\d]|[.,]\d)"
    return re.search(full, normalized_text) is not None


# An identifier ending in a number (TP-03, PN-7731), and a range of one series written with a
# tilde, a dash or 至／到／to／through between its ends (TP-01～TP-04, TP-01~04).
_NUMBERED = re.compile(r"^([a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*-?)(\d+)$")
_RANGE_JOIN = r"\s*(?:~|–|—|至|到|\bto\b|\bthrough\b)\s*"


def _in_range(normalized_text: str, identifier: str) -> bool:
    numbered = _NUMBERED.match(identifier)
    if numbered is None or numbered.group(1) not in normalized_text:
        return False
    prefix, number = numbered.groups()
    for match in _range_pattern(prefix).finditer(normalized_text):
        low, high = int(match.group(1)), int(match.group(2))
        if low <= int(number) <= high and len(match.group(1)) == len(number):
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _range_pattern(prefix: str) -> re.Pattern[str]:
    series = re.escape(prefix)
    return re.compile(rf"(?<![a-z0-9]){series}(\d+){_RANGE_JOIN}(?:{series})?(\d+)(?![a-z0-9])")


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def whole_tokens(normalized_text: str, token: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each occurrence of `token` (not empty) that no [a-z0-9] touches, left
    to right without overlaps: what `re.finditer` of (?<![a-z0-9])TOKEN(?![a-z0-9]) finds,
    without compiling a pattern per token (every part number is a new one, and compiling it
    cost more than the search)."""
    at = normalized_text.find(token)
    while at >= 0:
        end = at + len(token)
        if (at == 0 or normalized_text[at - 1] not in _ALNUM) and (
            end == len(normalized_text) or normalized_text[end] not in _ALNUM
        ):
            yield at, end
            at = normalized_text.find(token, end)
        else:
            at = normalized_text.find(token, at + 1)


@dataclass(frozen=True)
class Term:
    """A content term of a query: what evidence has to mention for the query to be answered."""

    text: str  # normalised form used for matching
    display: str  # as it should be reported in `missing`
    kind: str  # "identifier" | "word" | "cjk"

    def coverage(self, units: Container[str]) -> float:
        """Share of the term found in a text with these units.

        A CJK term has no word boundaries: a character counts as found when a bigram it belongs
        to occurs in the text, so 「交期多出」 is half found in 「標準交期 15 日」.
        """
        if self.kind != "cjk" or len(self.text) < 2:
            return 1.0 if self.text in units else 0.0
        covered = [False] * len(self.text)
        for i in range(len(self.text) - 1):
            if self.text[i : i + 2] in units:
                covered[i] = covered[i + 1] = True
        return sum(covered) / len(covered)


# A question's quantity: a number with a unit the fact reader knows (services.language.units)
# written with two characters or more, or with one of the one-character units of time, counts
# and money a Chinese question writes (「7 日」, 「3 月」, 「2025 年」, 「500 件」, 「15％」). Other
# one-character units are not looked for: after a digit they are as often part of a name
# (「32M線」, KF-40M, IPB065N15N3 G) or of a word (米栏 of 「110米栏」, hurdles).
_QUANTITY_UNITS = "|".join(
    re.escape(u)
    for u in sorted(
        {u for u in units.UNITS if len(u) > 1} | set("日天週周月年件片支元%％"),
        key=len,
        reverse=True,
    )
)
_QUANTITY_IN_TEXT = re.compile(
    rf"[±≤≥]?\s*\d+(?:\.\d+)?\s*(?:個|个)?(?:{_QUANTITY_UNITS})(?![a-z])|"
    # an amount after its currency sign, with the letters that name the dollar ("NT$400k",
    # "HK$3,200", "US$41.50", "£1.2m")
    rf"{_CURRENCY_AMOUNT}"
)


# The quantity a question asks for, with its unit (「幾多個工作天」, 「幾多日」, 「幾多個鐘」).
_ASKED_QUANTITY = re.compile(rf"(?:几多|多少|几)\s*(?:個|个)?\s*(?:{_QUANTITY_UNITS}|钟)(?![a-z])")


def unglued(words: Iterable[str], normalized: str) -> list[str]:
    """A segmenter's words of a question, without those that run out of the quantity it asks
    for into what follows it (天前 of 「幾多個工作天前通知」, 日贴 of 「幾多日貼通告」, 钟内 of
    「幾多個鐘內」): words no text writes, glued of the asked unit and the next character. The
    unit alone (小时 of 「多少小時」) is a word of the question."""
    ends = [asked.end() for asked in _ASKED_QUANTITY.finditer(normalized)]
    if not ends:
        return list(words)

    def glued(word: str) -> bool:
        for end in ends:
            at = normalized.find(word, max(0, end - len(word) + 1))
            if 0 <= at < end < at + len(word):
                return True
        return False

    return [word for word in words if not glued(word)]


def without_quantities(normalized: str) -> str:
    """A question's quantities (「可以先用 7 日嗎」) are values it proposes, not topics."""
    return _QUANTITY_IN_TEXT.sub(" ", normalized)


def content_terms(query: str) -> list[Term]:
    """Identifiers, non-function Latin words and CJK runs split at function words.

    Quantities in the question (「可以先用 7 日嗎」) are values it proposes, not topics it asks
    about; they are matched exactly by the keyword signal instead.
    """
    norm = _QUANTITY_IN_TEXT.sub(" ", normalize(query))
    idents = identifiers(query)
    terms = [Term(text=i, display=i.upper(), kind="identifier") for i in idents]
    ident_spans = [span for i in idents for span in whole_tokens(norm, i)]
    seen: set[str] = {t.text for t in terms}
    for match in _TOKEN_OR_CJK.finditer(norm):
        piece = match.group()
        if any(s <= match.start() < e for s, e in ident_spans):
            continue
        if _CJK_RUN.fullmatch(piece):
            for segment in split_function_words(piece):
                if len(segment) >= 2 and segment not in seen:
                    seen.add(segment)
                    terms.append(Term(text=segment, display=segment, kind="cjk"))
            continue
        word = _joined(piece) or stem(piece)
        if piece in EN_STOPWORDS or word in EN_STOPWORDS or piece.isdigit() or len(word) < 2:
            continue
        if word not in seen:
            seen.add(word)
            terms.append(Term(text=word, display=piece, kind="word"))
    return terms


def split_function_words(run: str) -> list[str]:
    """A run of Chinese cut at its function words and function characters (the pieces left)."""
    for word in function_words():
        run = run.replace(word, " ")
    pieces = "".join(" " if is_function_char(ch) else ch for ch in run)
    return [p for p in pieces.split() if p]


def is_function_char(ch: str) -> bool:
    return ch in _function_chars()


@functools.cache
def _function_chars() -> frozenset[str]:
    return frozenset(normalize("".join(sorted(ZH_FUNCTION_CHARS)))) | ZH_FUNCTION_CHARS


@functools.cache
def function_words() -> tuple[str, ...]:
    """The Chinese function words (question words, particles), normalised."""
    return tuple(dict.fromkeys(normalize(w) for w in ZH_FUNCTION_WORDS))


def unit_set(normalized_text: str) -> frozenset[str]:
    """Everything a Term can match in a text: CJK unigrams+bigrams, stemmed words, identifiers."""
    units: set[str] = set(_word_units(normalized_text))
    for piece in _CJK_RUN.findall(normalized_text):
        units.update(piece)
        units.update(piece[i : i + 2] for i in range(len(piece) - 1))
    return frozenset(units)


@dataclass(frozen=True, slots=True)
class TextUnits:
    """Answers `unit in unit_set(text)` without holding the set, for texts kept in caches.

    A CJK unigram or bigram is a unit exactly when it occurs in the text (two CJK characters
    side by side always belong to one CJK run), so only the few word units are stored; a full
    set per chunk would cost tens of kilobytes.
    """

    text: str  # normalised; several texts are joined by newlines, which no unit spans
    words: frozenset[str]

    @classmethod
    def of(cls, normalized_text: str) -> TextUnits:
        return cls(normalized_text, frozenset(_word_units(normalized_text)))

    @classmethod
    def joined(cls, parts: Iterable[TextUnits]) -> TextUnits:
        parts = list(parts)
        return cls("\n".join(p.text for p in parts), frozenset().union(*(p.words for p in parts)))

    def __contains__(self, unit: object) -> bool:
        if not isinstance(unit, str) or not unit:
            return False
        if len(unit) <= 2 and _CJK_RUN.fullmatch(unit):
            return unit in self.text
        return unit in self.words


def _word_units(normalized_text: str) -> Iterable[str]:
    for piece in _WORD.findall(normalized_text):
        yield piece
        yield stem(piece)
        yield from (stem(p) for p in re.split(r"[-_./]", piece) if p)
        if (joined := _joined(piece)) is not None:
            yield joined


# A hyphenated English word ("cooling-off", "call-out", "on-site")
_COMPOUND = re.compile(r"(?<![a-z0-9-])[a-z]+(?:-[a-z]+)+(?![a-z0-9-])")


def function_compounds(normalized: str) -> list[str]:
    """The hyphenated words of a normalised text one of whose parts is a function word: each is
    one word ("cooling-off" is not "cool", "sign-off" not "sign", "use-by" not nothing), which
    `content_words` would cut to its content parts."""
    return list(
        dict.fromkeys(
            m.group()
            for m in _COMPOUND.finditer(normalized)
            if any(part in EN_STOPWORDS for part in m.group().split("-"))
        )
    )


def is_compound(unit: str) -> bool:
    """Whether a unit is a hyphenated English word (letters only on both sides of each hyphen).
    Asked of every unit `answerability.present` tests: most have no hyphen, and the regular
    expression is not run for them."""
    return "-" in unit and _COMPOUND.fullmatch(unit) is not None


def compound_in(word: str, text: str, found: Container[str]) -> bool:
    """Whether a normalised text (with its units) writes a hyphenated word: hyphenated, solid
    ("cutoff" for "cut-off": `_joined`) or its parts apart, in order ("use by" for "use-by",
    "first responses" for "first-response": `parts_apart_in`)."""
    return word in found or _joined(word) in found or parts_apart_in(word, text)


_HYPHEN = re.compile(r"(?<=[a-z])-(?=[a-z])")


def parts_apart_in(written: str, text: str) -> bool:
    """Whether a normalised text writes a hyphenated English word as separate words: "use-by"
    as "use by", "animal-origin" as "animal origin", "first-response" as "first responses"."""
    parts = _HYPHEN.split(written.lower())
    if len(parts) < 2 or not all(p.isalpha() for p in parts):
        return False
    *first, last = parts
    root = stem(last)
    # the last part as written, or, of four letters or more, any word its stem begins: "first
    # responses" for "first-response"
    ending = re.escape(last) if len(root) < 4 else f"{re.escape(root)}[a-z]*"
    spaced = r"\s+".join([*(re.escape(p) for p in first), ending])
    return re.search(rf"(?<![a-z]){spaced}(?![a-z])", text) is not None


def _joined(piece: str) -> str | None:
    """A hyphenated English word written solid, stemmed: "cut-off" and "cutoff", "e-mail" and
    "email", "follow-up" and "followup" are one word however a writer spells it."""
    solid = piece.replace("-", "")
    return stem(solid) if solid != piece and solid.isalpha() else None


@functools.lru_cache(maxsize=16384)
def key_units(text: str) -> frozenset[str]:
    """What two phrases must share to be about the same thing: CJK bigrams, content words,
    identifiers (function words and single characters do not count)."""
    units: set[str] = set(identifiers(text))
    for match in _TOKEN_OR_CJK.finditer(normalize(text)):
        piece = match.group()
        if _CJK_RUN.fullmatch(piece):
            units.update(
                piece[i : i + 2]
                for i in range(len(piece) - 1)
                if not (is_function_char(piece[i]) or is_function_char(piece[i + 1]))
            )
        elif piece not in EN_STOPWORDS and not piece.isdigit():
            units.add(stem(piece))
    return frozenset(units)


# Parts of speech that carry a topic (jieba's tags: nouns, verbs, adjectives, idioms, names,
# foreign words); pronouns, particles, prepositions, numerals and the like never do.
_CONTENT_POS = ("n", "v", "a", "i", "l", "j", "eng", "s", "b", "z")
# The general dictionary tags 零件 (parts) and 零部件 as a numeral with its measure (零, zero,
# then 件): nobody counts zero of a thing in one word, so such a word names the thing.
_ZERO_MEASURE = re.compile("零[^零〇一二三四五六七八九十百千万亿两0-9]+")
# A word opening with 哪 ("which") asks which one: the dictionary keeps some such phrases as
# words of their own, and only what follows the question's characters names a topic (项目 of
# 「哪些项目」; nothing of 「哪几天」「哪几种」「哪句」).
_WHICH = "哪"
# A word that closes with 几 or 多少 ("how many") asks for a number (「百分之幾」, an idiom to the
# tagger; 「幾成」 and 「第幾」 are numerals to it already); a noun so closing names a thing (茶几).
_HOW_MANY = ("几", "多少")


@functools.cache
def segmenter() -> jieba.Tokenizer:
    jieba.setLogLevel(60)  # it logs its dictionary load at INFO
    jieba.initialize()
    return jieba.dt


def words_inside(word: str) -> list[str]:
    """The shorter words of the segmenter's dictionary a Chinese word is made of, two
    characters or more, in order (香港艺人 → 香港, 艺人; 保固期 → 保固): what its search mode
    would also index."""
    known = segmenter().FREQ
    return [
        word[i:j]
        for i in range(len(word))
        for j in range(i + 2, len(word) + (i > 0))
        if known.get(word[i:j])
    ]


def _strip_function_chars(word: str) -> str:
    start, end = 0, len(word)
    while start < end and is_function_char(word[start]):
        start += 1
    while end > start and is_function_char(word[end - 1]):
        end -= 1
    return word[start:end]


Tagged = tuple[tuple[str, str], ...]  # (word, part-of-speech flag) pairs, as jieba tags them


# A time word that opens with one of these is said relative to when it is said (今天, 明年, 去年,
# 当时, 最近, 上次, 后来, 现在, 晚上): it carries no topic. Other time words name a time of their
# own (春节, 清明节, 周期, 生日, 夏季, 节假日, 唐朝) and can be what a question is about.
ZH_DEICTIC_TIME_CHARS = frozenset("今明昨去本当當上下先后後过過现現目最此这這那近前刚剛早晚")


def _named_time(word: str, flag: str) -> bool:
    return flag == "t" and word[:1] not in ZH_DEICTIC_TIME_CHARS


_A_NOT_A = re.compile(f"([{CJK}])[不没唔冇]\\1")


def content_words(
    normalized: str,
    remember: Callable[[str, Callable[[str], Tagged]], Tagged] | None = None,
    *,
    times: bool = False,
) -> list[str]:
    """Content words of a normalised text, in order, without repeats: stemmed English words
    and Chinese words of two characters or more (segmented with jieba's general dictionary).
    With `times` (a question's words), a time word that names a time of its own (春节, 周期)
    is one too: in a question it says what is asked about; in a statement it is when what it
    says holds (战后, after the war), which two restatements of one fact need not share.

    What `jieba.posseg.cut` tags (`_tagged`), with its slowest step, the hidden Markov model
    over runs of characters its dictionary does not know as words, done by `remember(run,
    tag)` (which may serve a run from a cache: the same runs recur across clauses and
    chunks, and the model's words depend on the run alone)."""
    segmenter()
    jieba.posseg.dt.makesure_userdict_loaded()
    words: dict[str, None] = {}
    # 「會不會」「要不要」「是不是」「有沒有」: a verb asked as yes-or-no is how the question asks,
    # not what it is about (the segmenter would keep 「不會」 or 「是不是」 as a word).
    normalized = _A_NOT_A.sub(" ", normalized)
    for block in _JIEBA_BLOCK.findall(normalized):
        for piece, flag in _tagged(block, remember or _call):
            word = piece.strip()
            if not word or not (
                flag.startswith(_CONTENT_POS)
                or (flag == "mq" and _ZERO_MEASURE.fullmatch(word))
                or (times and _named_time(word, flag))
            ):
                continue
            if _CJK_RUN.fullmatch(word):
                # 「要收」「前要」: a particle the segmenter glued on (words its dictionary does not
                # know, so 「顯著」 stays whole) carries no topic.
                if not segmenter().FREQ.get(word) or word.startswith(_WHICH):
                    word = _strip_function_chars(word)
                if len(word) < 2 or word in function_words() or all(map(is_function_char, word)):
                    continue
                if word.endswith(_HOW_MANY) and not flag.startswith("n"):
                    continue  # 「百分之幾」 asks for a number, as 「幾成」 does: no topic
            elif _WORD.fullmatch(word):
                if word in EN_STOPWORDS or word.isdigit() or len(word) < 2:
                    continue
                word = stem(word)
                if word in EN_STOPWORDS:
                    continue
            else:
                continue
            words.setdefault(word)
    return list(words)


def proper_nouns(normalized: str) -> list[str]:
    """The Chinese words of a normalised text that the tagger takes for names of people, places,
    organisations or other proper nouns (「艾克美」, 「華陽」), two characters or more."""
    return _tagged_as(normalized, _PROPER_POS)


def people_named(normalized: str) -> list[str]:
    """The Chinese words of a normalised text that the tagger takes for names of people (nr),
    two characters or more. The tagger also marks some ordinary words so (修正, 許可): callers
    weigh how common a word is (services.language.frequency)."""
    return _tagged_as(normalized, ("nr",))


def _tagged_as(normalized: str, flags: tuple[str, ...]) -> list[str]:
    """The Chinese words of two characters or more the tagger gives one of `flags`, once each."""
    return list(
        dict.fromkeys(
            word
            for word, flag in _tags(normalized)
            if flag.startswith(flags) and len(word) >= 2 and _CJK_RUN.fullmatch(word)
        )
    )


def nominal(unit: str, normalized: str) -> bool:
    """Whether the tagger reads a Chinese unit of a normalised text as a noun or a name (or as
    characters it cannot tag), not as a verb, adverb or adjective: 「膨趾膜鱈」 names a thing,
    「壓完」 (finished pressing) and 「復審」 say what is done."""
    return all(
        flag.startswith(("n", "x", "zg", "j", "i", "l")) for flag in _flags(unit, normalized)
    )


def verbal(unit: str, normalized: str) -> bool:
    """Whether the tagger reads a Chinese unit of a normalised text as a verb, every part of it
    (「拎去」 take to, 「補返」 get a new one, 「搞定」 get done), not as a verbal noun (運費)."""
    flags = _flags(unit, normalized)
    return bool(flags) and all(flag.startswith("v") and flag != "vn" for flag in flags)


def measure_word(normalized: str) -> bool:
    """Whether the tagger reads the first word of a normalised Chinese text as a measure word
    or a numeral (「間」, 「位」 after a number: a count, not a name)."""
    tags = _tags(normalized)
    return bool(tags) and tags[0][1].startswith(("q", "m"))


def _flags(unit: str, normalized: str) -> list[str]:
    """The tagger's flags for the words of a normalised text that hold a unit or lie inside it."""
    return [flag for word, flag in _tags(normalized) if word and (word in unit or unit in word)]


@functools.lru_cache(maxsize=4096)
def _tags(normalized: str) -> Tagged:
    """The tagger's (word, flag) pairs of a normalised text (a question's, asked about again)."""
    segmenter()
    jieba.posseg.dt.makesure_userdict_loaded()
    return tuple(
        (piece.strip(), flag)
        for block in _JIEBA_BLOCK.findall(normalized)
        for piece, flag in _tagged(block, _call)
    )


# jieba's flags for names: people (nr, nrfg, nrt), places (ns), organisations (nt), others (nz)
_PROPER_POS = ("nr", "ns", "nt", "nz")

# jieba's tagger cuts a text into blocks of these characters (jieba.posseg's re_han_internal)
# and tags each alone; what lies between blocks it tags character by character, never as a
# content part of speech.
_JIEBA_BLOCK = jieba.posseg.re_han_internal


def _tagged(block: str, remember: Callable[[str, Callable[[str], Tagged]], Tagged]) -> Tagged:
    """`jieba.posseg.cut(block)` for one block, as jieba 0.42.1's POSTokenizer.__cut_DAG
    tags it: dictionary words by the best route through the block, and each run of single
    characters by the hidden Markov model when the run is not a dictionary word."""
    tagger = jieba.posseg.dt
    tokenizer, flags = tagger.tokenizer, tagger.word_tag_tab
    route: dict[int, tuple[float, int]] = {}
    tokenizer.calc(block, tokenizer.get_DAG(block), route)
    tagged: list[tuple[str, str]] = []

    def flush(run: str) -> None:
        if len(run) == 1:
            tagged.append((run, flags.get(run, "x")))
        elif not tokenizer.FREQ.get(run):
            tagged.extend(remember(run, _unknown_run))
        else:
            tagged.extend((ch, flags.get(ch, "x")) for ch in run)

    at, run = 0, ""
    while at < len(block):
        end = route[at][1] + 1
        if end - at == 1:
            run += block[at]
        else:
            if run:
                flush(run)
                run = ""
            word = block[at:end]
            tagged.append((word, flags.get(word, "x")))
        at = end
    if run:
        flush(run)
    return tuple(tagged)


# Particles and aspect markers, Mandarin and Cantonese: the function characters a word of the
# language does not hold inside it (之, 于, 和 do, in names: 王之涣).
_PARTICLES = frozenset("的了吗呢吧啊呀嘛咗嘅喺唔冇啲哋嗰㗎囉喎吖")


def _unknown_run(run: str) -> Tagged:
    """jieba's hidden Markov model over a run its dictionary does not know. A word it joins
    across a particle (「超咗每」 of 「超咗每呎」) is no word: its characters stay apart, as
    `frequency.unknown_words` reads such a join."""
    detail = jieba.posseg.dt._POSTokenizer__cut_detail  # jieba's own step, not reimplemented
    flags = jieba.posseg.dt.word_tag_tab
    tagged: list[tuple[str, str]] = []
    for pair in detail(run):
        if len(pair.word) > 1 and any(ch in _PARTICLES for ch in pair.word):
            tagged += [(ch, flags.get(ch, "x")) for ch in pair.word]
        else:
            tagged.append((pair.word, pair.flag))
    return tuple(tagged)


def _call(run: str, analyse: Callable[[str], Tagged]) -> Tagged:
    return analyse(run)

"""The offline extractor: sentence patterns (Chinese and English) mapped onto the enabled topics.

It reads each event clause by clause and keeps a clause only when it matches a topic: task
details (material, quantity, specifications, inspection, lead time, part numbers), customer
preferences, the customer's profile, an explicit "remember"/"forget" instruction, or a custom
topic's keywords. Questions without a value and chit-chat match nothing and are dropped, and
so does text that merely gives orders (event text is data, never an instruction to us).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from services.language.sentences import looks_like_instruction
from services.memory import statements
from services.memory.topics import (
    CUSTOMER_PREFERENCES,
    CUSTOMER_PROFILE,
    EXPLICIT_INSTRUCTIONS,
    KEY_TASK_DETAILS,
)
from services.memory.types import (
    ConversationEvent,
    ExtractedFact,
    Extraction,
    FewShotExample,
    Topic,
)
from services.memory.vectors import embed_queries
from services.retrieval.embedders import Embedder

_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"
_I = re.IGNORECASE

MATERIAL = re.compile(
    _NOT_ALNUM_BEFORE
    + r"(SUS\s?\d{3}[A-Z]{0,2}\d?|S\d{2}C|SCM\s?\d{3}|SKD\s?\d{1,2}|SPCC|SECC|SS\s?\d{3}|"
    r"A\d{4}(?:-T\d{1,2})?|\d{4}-T\d{1,2}|AISI\s?\d{3}[A-Z]?|C\d{4}|Ti-6Al-4V|POM|PEEK)"
    + _NOT_ALNUM_AFTER
)
MATERIAL_WORDS = re.compile(
    r"(不鏽鋼|不銹鋼|不锈钢|鋁合金|铝合金|黃銅|黄铜|鈦合金|钛合金|碳鋼|碳钢|"
    r"stainless steel|alumin(?:i)?um|brass|titanium|carbon steel)",
    _I,
)
QUANTITY = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+)\s*"
    r"(pcs|pc|pieces|piece|units|sets|件|個|个|支|套|顆|颗|片|只|台)"
    # "10 個工作天", "3 個月" count time, not parts.
    r"(?![A-Za-z]|工作|月|星期|禮拜|礼拜|小時|小时|鐘頭|钟头|年|天|日|週|周|營業|营业)",
    _I,
)
QUANTITY_NAMED = re.compile(
    r"(數量|数量|quantity|qty)\s*(?:為|为|是|改為|改为|改成|:|：|of|is|to)?\s*"
    r"(\d{1,3}(?:,\d{3})+|\d+)",
    _I,
)
PART_NUMBER = re.compile(r"(?<![A-Za-z0-9-])[A-Z]{1,4}-\d{3,6}(?:-[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? ?\d{0,2}"
LEAD_TIME = re.compile(
    "|".join(
        [
            r"(交期|交貨|交货|出貨|出货|到貨|到货|交付|lead[ -]?time|deliver|delivery",
            r"ship(?:ped|ment)? by|due date|deadline",
            rf"\bby (?:the )?(?:end of )?{_MONTH}|\bby \d{{4}}-\d{{2}}-\d{{2}}",
            r"\bwithin \d+ (?:working |business )?(?:days?|weeks?|months?)",
            r"\d+\s*(?:個)?(?:工作天|工作日|天|日|週|周|星期)內",
            r"\d+\s*月\s*\d+\s*[日號号]\s*(?:前|之前|以前))",
        ]
    ),
    _I,
)
URGENCY = re.compile(r"(盡快|尽快|越快越好|急件|加急|asap|as soon as possible|urgent|rush)", _I)
INSPECTION = re.compile(
    r"(檢驗|检验|檢測|检测|檢查報告|全檢|全检|抽檢|抽检|材質證明|材质证明|材證|三次元|CMM|"
    r"inspection|inspect|first article|FAI|PPAP|mill cert|material cert|certificate|test report)",
    _I,
)
SPEC = re.compile(
    r"(±\s?\d|公差|tolerance|Ra\s?\d|粗糙度|硬度|HRC\s?\d|HV\s?\d|熱處理|热处理|heat[- ]treat|"
    r"表面處理|表面处理|電鍍|电镀|鍍鋅|镀锌|陽極|阳极|anodi[sz]|plating|passivat|鈍化|钝化|"
    r"螺紋|螺纹|thread|\d+(?:\.\d+)?\s?(?:mm|µm|μm|um)(?![A-Za-z]))",
    _I,
)
PREFERENCE = re.compile(
    r"(偏好|比較喜歡|比较喜欢|喜歡|喜欢|不喜歡|不喜欢|習慣|习惯|傾向|倾向|一律|一向|向來|向来|"
    r"\balways\b|\bprefer(?:s|red)?\b|would rather|\blikes?\b|\bdislikes?\b|n't like|do not like|"
    r"\bnever want)",
    _I,
)
PROFILE = re.compile(
    r"(我們是|我们是|我司是|本公司|敝公司|公司位於|公司位于|總部|总部|工廠在|工厂在|廠區|厂区|"
    r"聯絡人|联系人|聯絡窗口|採購窗口|采购窗口|窗口是|負責人|负责人|採購經理|采购经理|"
    r"ISO\s?\d{4,5}|IATF\s?16949|AS\s?9100|認證|认证|we are an?\b|we're an?\b|based in|"
    r"headquartered|our (?:plant|factory|site)|contact person|purchasing manager|buyer is|"
    r"certified)",
    _I,
)
REMEMBER = re.compile(
    r"^\s*(?:請|请|麻煩|麻烦|please\s+)?(?:務必|务必)?(記住|记住|記得|记得|牢記|牢记|"
    r"remember(?:\s+that)?|note(?:\s+that)?|keep in mind(?:\s+that)?)\s*[：:，,]?\s*",
    _I,
)
FORGET = re.compile(
    r"^\s*(?:請|请|麻煩|麻烦|please\s+)?(忘記|忘记|忘掉|不用再記|不用再记|不要再記|不要再记|"
    r"別再記|别再记|forget(?:\s+about)?(?:\s+that)?|stop remembering|do not remember|"
    r"don't remember)\s*[：:，,]?\s*",
    _I,
)
QUESTION_START = re.compile(
    r"^\s*(請問|请问|是否|能否|可否|可不可以|can you|could you|what|how|when|which|is it|are you)",
    _I,
)
LEADING_FILLER = re.compile(
    r"^\s*(另外|還有|还有|並且|并且|而且|順便|顺便|此外|also|and|plus|btw|by the way)[，,\s]+", _I
)
_CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_SENTENCE = re.compile(r"[^。！？!?\n]+[。！？!?]?|(?<=\n)")
_CLAUSE_SPLIT = re.compile(r"[，；;、]|(?<!\d),|,(?!\d)")
# A full stop ends an English sentence unless it belongs to a number or a short title.
_ENGLISH_STOP = re.compile(
    r"(?<![\d.])(?<!\bMr)(?<!\bMs)(?<!\bDr)(?<!\bNo)(?<!\bCo)(?<!\bMrs)(?<!\bLtd)(?<!\bInc)"
    r"(?<!\bSt)\.(?!\d)"
)

# The slot a material is named in, when the value is not a grade the pattern above knows
# ("the material is Inconel 718", 「材料改為黃銅」): the value is what follows the copula.
MATERIAL_SLOT = re.compile(
    r"(?:\bmaterial\b|材質|材质|材料)\s*(?:now\s+)?(?:(?:is|should be|will be|must be|changes to|"
    r"changed to|to)\b|[:：]|為|为|是|改為|改为|改成|改用)\s*(?P<value>[^,;，；]{2,40})",
    _I,
)

SINGLE_VALUED_KINDS = frozenset({"material", "quantity", "lead_time", "currency", "payment"})


def classify(clause: str) -> list[str]:
    """The task-detail kinds a clause speaks about (also used to aim a 'forget')."""
    kinds = []
    if MATERIAL.search(clause) or MATERIAL_WORDS.search(clause):
        kinds.append("material")
    if QUANTITY.search(clause) or QUANTITY_NAMED.search(clause):
        kinds.append("quantity")
    if LEAD_TIME.search(clause):
        kinds.append("lead_time")
    if INSPECTION.search(clause):
        kinds.append("inspection")
    if SPEC.search(clause):
        kinds.append("spec")
    if PART_NUMBER.search(clause):
        kinds.append("part")
    return kinds


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text))


def sentences(text: str) -> list[tuple[str, bool]]:
    """(sentence, is_question) pairs; decimal points and thousands separators stay inside."""
    found: list[tuple[str, bool]] = []
    for line in text.splitlines():
        if statements.is_header(line):
            continue  # 'Subject: RFQ …' names the message; the body says what is wanted
        for part in _SENTENCE.findall(line):
            for piece in _ENGLISH_STOP.split(part):
                stripped = piece.strip()
                if stripped:
                    found.append((stripped.rstrip("。！!？?.").strip(), stripped[-1] in "？?"))
    return [(s, q) for s, q in found if s]


def clauses(sentence: str) -> list[str]:
    """The sentence cut at commas and semicolons; a fragment that only rejects the old value
    ('…SUS420J2, not 17-4PH', 「…改用美元，不再用歐元」) stays with the clause it corrects."""
    found: list[str] = []
    for piece in _CLAUSE_SPLIT.split(sentence):
        clause = LEADING_FILLER.sub("", piece).strip()
        if not clause:
            continue
        if found and statements.rejects(clause):
            found[-1] = f"{found[-1]}, {clause}"
        else:
            found.append(clause)
    return found


def third_person(fact: str, author: str) -> str:
    """Rewrite first-person wording from the speaker's side ('we prefer' → 'the customer
    prefers'), as Memory Bank's enable_third_person_memories does."""
    zh_subject = {"customer": "客戶", "sales": "業務", "engineer": "工程", "user": "使用者"}.get(
        author, "對方"
    )
    en_subject = {"customer": "the customer", "sales": "the sales user"}.get(author, "the user")
    if is_chinese(fact):
        return re.sub(r"我們|我们|我司|本公司|敝公司|我", zh_subject, fact)
    out = re.sub(r"\b(we|us|I|me)\b", en_subject, fact, flags=_I)
    out = re.sub(r"\b(our|my)\b", f"{en_subject}'s", out, flags=_I)
    adverb = r"(?:(?:always|usually|often|also|really|only|never|still|normally) )?"
    out = re.sub(rf"\b{en_subject} {adverb}({'|'.join(_SINGULAR)})\b", _singular, out, flags=_I)
    return out[:1].upper() + out[1:]


_SINGULAR = {
    "are": "is",
    "have": "has",
    "do": "does",
    "were": "was",
    "prefer": "prefers",
    "want": "wants",
    "need": "needs",
    "like": "likes",
    "use": "uses",
    "require": "requires",
    "work": "works",
    "expect": "expects",
}


def _singular(match: re.Match[str]) -> str:
    verb = _SINGULAR[match.group(1).lower()]
    return match.group(0).rsplit(" ", 1)[0] + " " + verb


@dataclass(frozen=True)
class _Read:
    """One sentence as the patterns read it, before the examples are asked about it."""

    index: int  # of its event
    author: str
    sentence: str
    question: bool
    found: list[ExtractedFact]
    dropped: list[ExtractedFact]


class OfflineExtractor:
    """Deterministic, no network.

    Few-shot examples count too: a sentence equal to one of an example that must yield nothing
    is dropped, and a sentence no pattern matched that is close (embedder similarity at least
    `example_threshold`) to a sentence of an example with memories is kept under that example's
    topic: that is how a custom topic without keywords is learnt from its examples.
    """

    name = "offline"

    def __init__(self, *, embedder: Embedder | None = None, example_threshold: float = 0.85):
        self._embedder = embedder
        self._example_threshold = example_threshold

    def extract(
        self,
        events: Sequence[ConversationEvent],
        *,
        topics: Sequence[Topic],
        examples: Sequence[FewShotExample] = (),
        third_person: bool = False,
    ) -> Extraction:
        enabled = {t.label: t for t in topics if t.enabled}
        silent = {_norm(e.text) for ex in examples if not ex.memories for e in ex.events}
        shown = _ExampleSentences(examples, enabled, self._embedder, self._example_threshold)
        read = self._read(events, enabled, silent)
        # The sentences no pattern explained are compared with the examples in one batch.
        unexplained = [r.sentence for r in read if not (r.found or r.dropped or r.question)]
        taught = dict(zip(unexplained, shown.topics_for(unexplained), strict=True))
        facts: list[ExtractedFact] = []
        forget: list[ExtractedFact] = []
        for r in read:
            found = r.found
            topic = taught.get(r.sentence) if not (found or r.dropped or r.question) else None
            if topic is not None:
                found = [
                    ExtractedFact(topic=topic, kind="example", fact=r.sentence, event_index=r.index)
                ]
            for fact in found:
                text = _phrase(fact.fact, r.author, third_person)
                facts.append(fact.model_copy(update={"fact": text}))
            forget.extend(r.dropped)
        return Extraction(facts=tuple(_unique(facts)), forget=tuple(forget), extractor=self.name)

    def _read(
        self, events: Sequence[ConversationEvent], enabled: dict[str, Topic], silent: set[str]
    ) -> list[_Read]:
        """What the patterns find in each sentence the customer or a person wrote, in order."""
        read: list[_Read] = []
        for index, event in enumerate(events):
            if event.author == "agent" or _norm(event.text) in silent:
                continue  # the agent's own words are not the customer's facts
            for sentence, question in sentences(event.text):
                if _norm(sentence) in silent or looks_like_instruction(sentence):
                    continue  # an order is set aside whole, values and all (as planning does)
                found, dropped = self._sentence(
                    sentence, question, enabled, index, zh=is_chinese(event.text)
                )
                read.append(_Read(index, event.author, sentence, question, found, dropped))
        return read

    def _sentence(
        self, sentence: str, question: bool, enabled: dict[str, Topic], index: int, *, zh: bool
    ) -> tuple[list[ExtractedFact], list[ExtractedFact]]:
        if EXPLICIT_INSTRUCTIONS in enabled:
            forgotten = FORGET.match(sentence)
            if forgotten:
                rest = sentence[forgotten.end() :].strip()
                kind = ",".join(slot_kinds(rest)) or "instruction"
                if rest:
                    fact = ExtractedFact(
                        topic=EXPLICIT_INSTRUCTIONS, kind=kind, fact=rest, event_index=index
                    )
                    return [], [fact]
            remembered = REMEMBER.match(sentence)
            if remembered and sentence[remembered.end() :].strip():
                rest = sentence[remembered.end() :].strip()
                kinds = classify(rest)
                kind = kinds[0] if len(kinds) == 1 else "instruction"
                return [
                    ExtractedFact(
                        topic=EXPLICIT_INSTRUCTIONS, kind=kind, fact=rest, event_index=index
                    )
                ], []
        if question and not re.search(r"\d", sentence):
            return [], []  # a question asks; it states nothing worth remembering
        found: list[ExtractedFact] = []
        forget: list[ExtractedFact] = []
        for clause in clauses(sentence):
            if not question and statements.cancels(clause):
                forget.extend(_cancellation(clause, enabled, index))
                continue
            found.extend(self._clause(clause, enabled, index, zh=zh))
        return found, forget

    def _clause(
        self, clause: str, enabled: dict[str, Topic], index: int, *, zh: bool
    ) -> list[ExtractedFact]:
        if len(clause) < 3 or (QUESTION_START.match(clause) and not re.search(r"\d", clause)):
            return []
        if statements.moves_document(clause):
            return []  # "attached is the drawing", 「圖面已轉給工程」: where a file went

        def fact(topic: str, kind: str, text: str = clause) -> list[ExtractedFact]:
            return [ExtractedFact(topic=topic, kind=kind, fact=text, event_index=index)]

        for topic in enabled.values():
            if not topic.managed and any(k.lower() in clause.lower() for k in topic.keywords):
                return fact(topic.label, "custom")
        task_enabled = KEY_TASK_DETAILS in enabled
        general = statements.standing(clause) or not task_enabled
        valued = _names_task_values(clause)
        if CUSTOMER_PREFERENCES in enabled and PREFERENCE.search(clause):
            return fact(CUSTOMER_PREFERENCES, "preference")
        commercial = statements.commercial_kind(clause)
        if commercial is not None:
            if general and CUSTOMER_PREFERENCES in enabled and not statements.one_off(clause):
                return fact(CUSTOMER_PREFERENCES, commercial)
            if task_enabled:
                return fact(KEY_TASK_DETAILS, commercial)
        if CUSTOMER_PROFILE in enabled and (
            PROFILE.search(clause) or (statements.about_speaker(clause) and not valued)
        ):
            return fact(CUSTOMER_PROFILE, statements.profile_kind(clause))
        if (
            CUSTOMER_PREFERENCES in enabled
            and general
            and not valued
            and statements.requires(clause)
            and not statements.one_off(clause)
        ):
            return fact(CUSTOMER_PREFERENCES, "requirement")  # "every lot needs a CoC"
        if not task_enabled:
            return []
        return self._task_details(clause, index, zh=zh)

    def _task_details(self, clause: str, index: int, *, zh: bool) -> list[ExtractedFact]:
        found: list[ExtractedFact] = []

        def add(kind: str, fact: str) -> None:
            found.append(
                ExtractedFact(topic=KEY_TASK_DETAILS, kind=kind, fact=fact, event_index=index)
            )

        material = _material(clause)
        amount, unit = _amount(clause)
        unit = unit or ("件" if zh else "pcs")
        other = [k for k in classify(clause) if k not in ("material", "quantity")]
        if material:
            add("material", f"材質為 {material}" if zh else f"Material: {material}")
        if amount:
            add("quantity", f"數量 {amount} {unit}" if zh else f"Quantity: {amount} {unit}")
        for kind in ("lead_time", "inspection", "spec", "part"):
            if kind not in other:
                continue
            if kind == "lead_time" and not (re.search(r"\d", clause) or URGENCY.search(clause)):
                continue  # "交期呢" names the subject but requests nothing
            add(kind, clause)
            break
        return found


def _amount(clause: str) -> tuple[str | None, str | None]:
    """The quantity a clause states, and its unit. In a change ("from 1,200 to 3,000 pcs",
    「從 1,200 片改成 3,000 片」) the last amount counted is the new one."""
    counted = list(QUANTITY.finditer(clause))
    if counted and statements.states_change(clause):
        return counted[-1].group(1), counted[-1].group(2)
    named = QUANTITY_NAMED.search(clause)
    unit = counted[0].group(2) if counted else None
    if named:
        return named.group(2), unit
    return (counted[0].group(1), unit) if counted else (None, None)


def _material(clause: str) -> str | None:
    """A material grade the pattern knows, else the value of a 'material is …' slot."""
    known = MATERIAL.search(clause) or MATERIAL_WORDS.search(clause)
    if known:
        return known.group(1)
    slot = MATERIAL_SLOT.search(clause)
    if slot is None or statements.rejects(slot.group("value")):
        return None
    value = slot.group("value").strip(" .。")
    return value if re.search(r"[A-Za-z0-9\u4e00-\u9fff]", value) else None


def slot_kinds(text: str) -> list[str]:
    """The kinds a 'forget' or a cancellation aims at: task details and commercial terms."""
    commercial = statements.commercial_kind(text)
    return [*classify(text), *([commercial] if commercial else [])]


def _names_task_values(clause: str) -> bool:
    """Whether the clause carries one order's values (a quantity, a date, a part number), which
    make it a task detail rather than a description of the customer or a standing rule."""
    kinds = set(classify(clause))
    if "lead_time" in kinds and not (re.search(r"\d", clause) or URGENCY.search(clause)):
        kinds.discard("lead_time")  # "each delivery needs …" names deliveries, not a date
    return bool(kinds & {"quantity", "lead_time", "part", "material"})


def _cancellation(clause: str, enabled: dict[str, Topic], index: int) -> list[ExtractedFact]:
    """'The net 60 term is cancelled', 「不需要 RoHS 報告了」: a request to forget what it names.
    It acts like an explicit 'forget' and goes with that topic (or the first one enabled)."""
    order = (EXPLICIT_INSTRUCTIONS, KEY_TASK_DETAILS, CUSTOMER_PREFERENCES, CUSTOMER_PROFILE)
    topic = next((t for t in order if t in enabled), None)
    if topic is None:
        return []
    kind = ",".join(slot_kinds(clause)) or "instruction"
    return [ExtractedFact(topic=topic, kind=kind, fact=clause, event_index=index)]


class _ExampleSentences:
    """Sentences of the few-shot examples that yield memories, with the topic they teach."""

    def __init__(
        self,
        examples: Sequence[FewShotExample],
        enabled: dict[str, Topic],
        embedder: Embedder | None,
        threshold: float,
    ) -> None:
        self._embedder = embedder
        self._threshold = threshold
        self._topics: list[str] = []
        texts: list[str] = []
        for example in examples:
            topics = [m.topic for m in example.memories if m.topic in enabled]
            if not topics:
                continue
            for event in example.events:
                for sentence, _ in sentences(event.text):
                    texts.append(sentence)
                    self._topics.append(topics[0])
        self._vectors = embedder.embed(texts) if embedder is not None and texts else None

    def topics_for(self, sentences: Sequence[str]) -> list[str | None]:
        """The topic each sentence's closest example teaches, if close enough; the sentences
        are embedded together (one model call for a mail's unexplained sentences)."""
        if self._embedder is None or self._vectors is None or not sentences:
            return [None] * len(sentences)
        found: list[str | None] = []
        for query in embed_queries(self._embedder, sentences):
            row = self._vectors @ query
            best = int(np.argmax(row))
            found.append(self._topics[best] if float(row[best]) >= self._threshold else None)
        return found


def _phrase(fact: str, author: str, third: bool) -> str:
    return third_person(fact, author) if third else fact


def _norm(text: str) -> str:
    return re.sub(r"[\s。！？!?.,，、；;：:]+", "", text).lower()


def _unique(facts: list[ExtractedFact]) -> list[ExtractedFact]:
    seen: set[tuple[str, str]] = set()
    out = []
    for fact in facts:
        key = (fact.topic, _norm(fact.fact))
        if key not in seen:
            seen.add(key)
            out.append(fact)
    return out

"""The offline Analysis agent: deterministic, and every claim quotes the evidence it cites.

It never writes a number of its own: a claim is a label plus a sentence copied verbatim from the
cited quote, so whatever amounts it holds are the evidence's. It follows retrieval's verdict:
conflicting authoritative sources give `source_conflict` with the sources side by side, a
required need without usable evidence gives `insufficient_evidence` naming what is missing.
"""

from __future__ import annotations

from collections.abc import Iterable

from services.agents.ports import Analysis
from services.agents.wording import names
from services.contracts.decision import Claim, DecisionStatus, MemoryDecision, NextAction
from services.contracts.evidence_id import approval_id_of, parse_evidence_id
from services.contracts.memory_input import InputEvidence, MemoryInput, Need
from services.core.principals import Principal
from services.language import answer_types
from services.language.glossary import GLOSSARY, label, mentions, prefers_chinese
from services.language.sentences import (
    char_bigrams,
    looks_like_instruction,
    normalize,
    sentences_with_spans,
)
from services.language.tokens import content_words, script_of
from services.language.tokens import normalize as normalize_text

MODEL_ID = "offline-rules@1"
# Only authoritative facts back a claim: history (past quotes, the customer's own mails) is
# comparable but never a current answer, and an inference is a draft.
_CLAIMABLE = ("fact",)
MIN_SENTENCE = 6  # characters: shorter "sentences" are headings or list numbers


class OfflineAnalyzer:
    name = "offline"
    model = MODEL_ID

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis:
        chinese = prefers_chinese(data.supplement, *(n.label for n in data.needs))
        evidence = {item.evidence_id: item for item in data.evidence}
        if data.conflicts:
            return self._result(
                data,
                DecisionStatus.source_conflict,
                _conflict_claims(data, evidence, chinese),
                missing=[],
                action=NextAction.human_review,
            )
        claims: list[Claim] = []
        missing: list[str] = []
        unanswered: list[str] = []
        engineering = [item for item in data.engineering_items if item.evidence_id in evidence]
        confirmed = _confirmed_engineering(data, chinese)
        # Spans already stated: no two claims cite the same (or an overlapping) span.
        stated = _Stated(evidence[item.evidence_id] for item in engineering)
        for claim in confirmed:
            stated.add(evidence[claim.evidence_ids[0]])
        for need in data.needs:
            found = _need_claims(need, evidence, chinese, stated)
            if found is not None:
                claims += found
                continue
            unanswered.append(_missing_key(need))
            if need.required:
                missing.append(_missing_key(need))
        claims += confirmed
        prefix = "需工程確認：" if chinese else "Engineering to confirm: "
        claims += [
            Claim(text=f"{prefix}{item.text}", evidence_ids=[item.evidence_id])
            for item in engineering
        ]
        if missing or not claims:
            return self._result(
                data,
                DecisionStatus.insufficient_evidence,
                claims,
                missing=missing or unanswered or ["evidence"],
                action=NextAction.request_information,
            )
        return self._result(
            data,
            DecisionStatus.ready_for_review,
            claims,
            missing=[],
            action=NextAction.human_review,
        )

    def _result(
        self,
        data: MemoryInput,
        status: DecisionStatus,
        claims: list[Claim],
        *,
        missing: list[str],
        action: NextAction,
    ) -> Analysis:
        decision = MemoryDecision(
            task_id=data.task.task_id,
            state_revision=data.task.revision,
            status=status,
            claims=claims,
            missing_fields=list(dict.fromkeys(missing)),
            proposed_next_action=action,
        )
        return Analysis(decision=decision, model=MODEL_ID, finish_reason="STOP")


def _confirmed_engineering(data: MemoryInput, chinese: bool) -> list[Claim]:
    """One claim per engineering result handed to this run (an approval record backing one of
    its needs), quoting the record: what a person with the authority confirmed is stated as
    such, cited to that decision, never as a point still to confirm."""
    backing = {eid for need in data.needs for eid in need.evidence_ids}
    claims: list[Claim] = []
    for item in data.evidence:
        if approval_id_of(item.document_id) is None or item.evidence_id not in backing:
            continue
        if item.knowledge_class not in _CLAIMABLE:
            continue
        # A record is people's free text: quoted whole unless part of it reads as an instruction.
        text = _quotable_record(item.quote)
        if text is None:
            continue
        label_text = "工程已確認" if chinese else "Confirmed by engineering"
        claims.append(_claim(label_text, item, text, chinese))
    return claims


def _quotable_record(quote: str) -> str | None:
    spans = sentences_with_spans(quote)
    if not any(looks_like_instruction(quote[start:end]) for start, end in spans):
        return quote.strip() or None
    return best_sentence(quote, quote)


def _missing_key(need: Need) -> str:
    """A confirmed requirement is not asked again: what is missing is its procedure."""
    return f"{need.key}_procedure" if need.answer is True else need.key


class _Stated:
    """The spans a draft already states, by document version and offsets."""

    def __init__(self, items: Iterable[InputEvidence] = ()) -> None:
        self._spans: list[tuple[str, int, int]] = []
        for item in items:
            self.add(item)

    def add(self, item: InputEvidence) -> None:
        parsed = parse_evidence_id(item.evidence_id)
        if parsed is not None:
            document_id, version, start, end = parsed
            self._spans.append((f"{document_id}@{version}", start, end))

    def has(self, item: InputEvidence) -> bool:
        parsed = parse_evidence_id(item.evidence_id)
        if parsed is None:
            return False
        document_id, version, start, end = parsed
        ref = f"{document_id}@{version}"
        return any(r == ref and s < end and start < e for r, s, e in self._spans)


def _need_claims(
    need: Need, evidence: dict[str, InputEvidence], chinese: bool, stated: _Stated
) -> list[Claim] | None:
    """Claims from every eligible span that answers the need, or None when none does.

    Exceptions come first: where a clause of a rule's own document sets the rule aside for
    this task, the draft states that clause and not the rule. A span another claim (or an
    engineering item) already states answers the need without being stated twice."""
    if need.retrieval_status == "insufficient_evidence" and need.required:
        return None
    if not need.required and need.retrieval_status != "ok":
        return None  # context that is missing or contested is left out, not guessed
    claims: list[Claim] = []
    answered = False
    excepted: set[str] = set()
    for item in (evidence[eid] for eid in need.exceptions if eid in evidence):
        answered = True
        excepted.add(f"{item.document_id}@{item.version}")
        if not stated.has(item):
            note = "（例外）" if chinese else " (exception)"
            claims.append(_claim(f"{need.label}{note}", item, item.quote, chinese))
            stated.add(item)
    for item, text in _answering(need, evidence):
        answered = True
        if f"{item.document_id}@{item.version}" in excepted or stated.has(item):
            continue  # a rule its exception sets aside, or a span already stated
        claims.append(_claim(need.label, item, text, chinese))
        stated.add(item)
    return claims if answered else None


def _answering(need: Need, evidence: dict[str, InputEvidence]) -> list[tuple[InputEvidence, str]]:
    """The need's eligible spans (ranked) that answer it, each with the text a claim quotes:
    every span naming the need's topic, else the top-ranked one (retrieval judged it). A topic
    only the task's documents mention is context nobody asked for: it is stated only from spans
    that name it (a supplier-audit SOP is not the procedure of a special inspection because
    retrieval ranked it first)."""
    usable: list[tuple[InputEvidence, str]] = []
    for item in (evidence[eid] for eid in need.evidence_ids if eid in evidence):
        if item.knowledge_class not in _CLAIMABLE:
            continue
        # A question about one spec (SUS304, Ti-6Al-4V) is answered only by text naming it: the
        # span, or the title of the document it belongs to (a procedure for SUS420J2 need not
        # repeat the grade in each sentence).
        folded = normalize(f"{item.title} {item.quote}").lower()
        if any(value.lower() not in folded for value in need.scope):
            continue
        text = _quotable(item.quote, need)
        if text is not None:
            usable.append((item, text))
    # A field that asks for a kind of value (a price, a date, a count) is answered only by a
    # span that states one: "unit price" is not answered by "Complaints per million units".
    kinds = answer_types.asked(need.label)
    if kinds:
        share = answer_types.share_answers_money(need.label)
        usable = [
            (item, text)
            for item, text in usable
            if any(answer_types.states(kind, text, share=share) for kind in kinds)
        ]
    naming = [(item, text) for item, text in usable if names_need(item.quote, need)]
    if need.source == "mentioned":
        return naming
    return naming or usable[:1]


def names_need(quote: str, need: Need) -> bool:
    """Whether a span names what the need asks about: a glossary topic by its phrases; another
    field by its own words, initials or the glossary terms it is made of, or by every content
    word of the task's own phrase it was searched with (「未关闭偏差的处理」)."""
    if need.key in GLOSSARY:
        return mentions(quote, need.key)
    if names(quote, need.key):
        return True
    said = content_words(normalize_text(need.query))
    if not said or script_of(need.query) != "cjk":
        return False
    found = normalize_text(quote)
    return all(word in found for word in said)


def _quotable(quote: str, need: Need) -> str | None:
    """The span whole, unless part of it reads as an instruction: then only its best sentence."""
    if len(quote.strip()) < MIN_SENTENCE:
        return None
    spans = sentences_with_spans(quote)
    if not any(looks_like_instruction(quote[start:end]) for start, end in spans):
        return quote.strip()
    return best_sentence(quote, need.query, topic=need.key)


def _claim(label_text: str, item: InputEvidence, text: str, chinese: bool) -> Claim:
    return Claim(text=_cite(label_text, item, text, chinese), evidence_ids=[item.evidence_id])


def best_sentence(quote: str, query: str, *, topic: str | None = None) -> str | None:
    """The sentence of `quote` that best answers the query: one naming the glossary topic if
    there is one, else the one sharing most words with the query, else the first substantive
    sentence (retrieval already judged the passage relevant). Instructions never qualify."""
    wanted = char_bigrams(query)
    candidates = [
        (start, end)
        for start, end in sentences_with_spans(quote)
        if not looks_like_instruction(quote[start:end]) and end - start >= MIN_SENTENCE
    ]
    if not candidates:
        return None
    if topic is not None and topic in GLOSSARY:
        naming = [span for span in candidates if mentions(quote[span[0] : span[1]], topic)]
        candidates = naming or candidates

    def overlap(span: tuple[int, int]) -> int:
        return len(char_bigrams(quote[span[0] : span[1]]) & wanted)

    start, end = max(candidates, key=lambda span: (overlap(span), -span[0]))
    return quote[start:end]


def _cite(need_label: str, item: InputEvidence, sentence: str, chinese: bool) -> str:
    if chinese:
        history = "（歷史紀錄，非現行承諾）" if item.knowledge_class == "history" else ""
        return f"{need_label}{history}：依 {item.document_id} v{item.version}「{sentence}」"
    history = " (history, not a current commitment)" if item.knowledge_class == "history" else ""
    return f'{need_label}{history}: per {item.document_id} v{item.version}, "{sentence}"'


def _conflict_claims(
    data: MemoryInput, evidence: dict[str, InputEvidence], chinese: bool
) -> list[Claim]:
    claims: list[Claim] = []
    for conflict in data.conflicts:
        for value in conflict.values:
            item = evidence.get(str(value.get("evidence_id")))
            if item is None:
                continue
            sentence = best_sentence(item.quote, f"{conflict.fact} {value.get('value', '')}")
            if sentence is None:
                continue
            topic = label(conflict.need, chinese=chinese) if conflict.need else conflict.fact
            note = "來源不一致" if chinese else "sources disagree"
            claims.append(
                Claim(
                    text=_cite(
                        f"{topic}（{note}）" if chinese else f"{topic} ({note})",
                        item,
                        sentence,
                        chinese,
                    ),
                    evidence_ids=[item.evidence_id],
                )
            )
    return claims

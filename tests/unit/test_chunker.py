"""Chunks follow sentence/paragraph boundaries and their offsets always re-slice the body."""

from __future__ import annotations

import itertools
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.retrieval.chunker import CHUNKER_VERSION, MAX_CHARS, chunk_text

CHINESE = (
    "新版：標準交期 15 日；特殊檢驗另評估。\n\n一、適用範圍：本程序適用於本公司一般 CNC 切削件、"
    "車削件與鈑金件之報價與接單。交期自收到客戶正式訂單之次一工作日起算。" * 4
)
ENGLISH = (
    "1. Scope: all shipments leaving Taiwan by sea or air. The gross weight per crate must "
    "not exceed 500 kg. Parts are wrapped in VCI film.\n\n2. Marking: every crate shows the "
    "consignee and the purchase order number. " * 5
)
MIXED = "PN-7731-B 固定座：Ø8H7 定位孔孔距公差 ±0.01 mm. Measured on the CMM every 20 pcs。" * 12


@pytest.mark.parametrize("body", [CHINESE, ENGLISH, MIXED], ids=["zh", "en", "mixed"])
def test_offsets_slice_the_body_to_exactly_the_chunk(body: str) -> None:
    chunks = chunk_text(body)
    assert len(chunks) > 1
    for chunk in chunks:
        assert body[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip()
        assert len(chunk.text) <= MAX_CHARS


@pytest.mark.parametrize("body", [CHINESE, ENGLISH, MIXED], ids=["zh", "en", "mixed"])
def test_chunks_are_in_order_and_cover_every_sentence(body: str) -> None:
    chunks = chunk_text(body)
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert all(a.end <= b.start for a, b in itertools.pairwise(chunks))
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(body.split())


def test_chinese_chunks_end_at_sentence_punctuation() -> None:
    for chunk in chunk_text(CHINESE)[:-1]:
        assert chunk.text[-1] in "。；！？", chunk.text[-10:]


def test_english_chunks_do_not_split_inside_a_sentence() -> None:
    for chunk in chunk_text(ENGLISH)[:-1]:
        assert chunk.text.endswith("."), chunk.text[-20:]


def test_a_sentence_longer_than_a_chunk_is_cut_at_a_clause_boundary() -> None:
    body = "，".join(["量測不確定度超過該尺寸公差十分之一者須提出替代量測方法"] * 20) + "。"
    chunks = chunk_text(body)
    assert len(chunks) > 1
    assert all(body[c.start : c.end] == c.text for c in chunks)
    assert all(c.text.endswith("，") or c is chunks[-1] for c in chunks)


def test_combining_marks_and_emoji_sequences_are_never_split() -> None:
    body = ("e\u0301" * 200) + "👩\u200d🔬" * 100 + "a\u0308" * 200
    for chunk in chunk_text(body, max_chars=50):
        assert body[chunk.start : chunk.end] == chunk.text
        assert not _attaches(chunk.text[0]), repr(chunk.text[:3])
        assert chunk.text[-1] != "\u200d"


def test_empty_and_blank_bodies_have_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n \t") == []


def test_the_chunker_names_its_version() -> None:
    assert str(MAX_CHARS) in CHUNKER_VERSION


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("標準交期日。；，！？ \n.?!abcXYZ0123456789-é\u0301👩\u200d")
        ),
        max_size=900,
    )
)
def test_any_text_re_slices_and_never_splits_a_character(body: str) -> None:
    for chunk in chunk_text(body, max_chars=40):
        assert body[chunk.start : chunk.end] == chunk.text
        assert chunk.text.strip()
        for boundary in (chunk.start, chunk.end):
            # A boundary may not fall between a character and a mark that attaches to it.
            splits = 0 < boundary < len(body) and _attaches(body[boundary])
            assert not (splits and not body[boundary - 1].isspace()), (boundary, body)


def _attaches(ch: str) -> bool:
    return unicodedata.combining(ch) != 0 or ch in "\u200d\ufe0f"


def test_a_mark_after_sentence_punctuation_stays_with_it() -> None:
    body = "0" * 39 + "!\u0301"  # the sentence is longer than a chunk by its mark
    for chunk in chunk_text(body, max_chars=40):
        assert chunk.end == len(body) or not _attaches(body[chunk.end])
        assert not _attaches(body[chunk.start])

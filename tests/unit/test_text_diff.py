"""The owner's diff: side-by-side rows pair changed lines, the inline diff works per character."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.publishing.diff import diff_texts


def test_a_changed_line_is_paired_with_its_replacement() -> None:
    diff = diff_texts("標準交期 15 日\n特殊檢驗另評估", "標準交期 18 日\n特殊檢驗另評估")
    assert [(r.kind, r.left_no, r.right_no) for r in diff.rows] == [
        ("replace", 1, 1),
        ("equal", 2, 2),
    ]
    assert [(s.kind, s.text) for s in diff.inline] == [
        ("equal", "標準交期 1"),
        ("delete", "5"),
        ("insert", "8"),
        ("equal", " 日\n特殊檢驗另評估"),
    ]
    assert (diff.added_chars, diff.removed_chars, diff.changed) == (1, 1, True)


@pytest.mark.parametrize(
    ("current", "proposed", "kinds"),
    [
        ("a\nb", "a\nb\nc", ["equal", "equal", "insert"]),
        ("a\nb\nc", "a\nc", ["equal", "delete", "equal"]),
        ("a\nb", "x\ny\nz", ["replace", "replace", "insert"]),
        ("", "新文件", ["insert"]),
    ],
)
def test_rows_cover_both_texts_line_by_line(current: str, proposed: str, kinds: list[str]) -> None:
    diff = diff_texts(current, proposed)
    assert [r.kind for r in diff.rows] == kinds
    assert [r.left for r in diff.rows if r.left is not None] == current.splitlines()
    assert [r.right for r in diff.rows if r.right is not None] == proposed.splitlines()


def test_the_inline_diff_rebuilds_both_texts() -> None:
    current, proposed = "交期 10 日，需確認。", "標準交期 15 日，需工程確認。"
    diff = diff_texts(current, proposed)
    assert "".join(s.text for s in diff.inline if s.kind != "insert") == current
    assert "".join(s.text for s in diff.inline if s.kind != "delete") == proposed
    assert not diff_texts(current, current).changed


@settings(max_examples=60, deadline=None)
@given(
    current=st.text(alphabet="交期15日\n特殊檢驗ab ", max_size=40),
    proposed=st.text(alphabet="交期18日\n特殊檢驗ac ", max_size=40),
)
def test_any_pair_of_texts_is_rebuilt_from_its_diff(current: str, proposed: str) -> None:
    diff = diff_texts(current, proposed)
    assert "".join(s.text for s in diff.inline if s.kind != "insert") == current
    assert "".join(s.text for s in diff.inline if s.kind != "delete") == proposed
    assert [r.left for r in diff.rows if r.left is not None] == current.splitlines()
    assert [r.right for r in diff.rows if r.right is not None] == proposed.splitlines()
    assert diff.changed == (current != proposed)

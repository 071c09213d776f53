"""English words in the Chinese a task writes, by a general dictionary (CC-CEDICT): texts from
the museum (Traditional), hrlegal and pharma (Simplified) blind sets."""

from __future__ import annotations

import pytest

from services.language import bilingual


def test_a_word_is_rendered_by_words_of_two_characters_or_more():
    assert {"保险", "投保"} <= set(bilingual.renderings("insurance"))
    assert "手套" in bilingual.renderings("gloves")  # stemmed, as the name's words are
    assert all(len(word) >= 2 for word in bilingual.renderings("fee"))  # never 費 alone
    assert bilingual.renderings("qwertyuiop") == ()
    assert "rest" in bilingual.meanings("休息") and "shift" in bilingual.meanings("輪班")


def test_the_texts_pick_the_rendering_they_use():
    museum = "南港登錄組來電要我們確認 LH-1932-017 的保險金額"  # Traditional, folded
    assert bilingual.rendered_in(["insurance", "value"], [museum]) == {
        "insurance": "保险",
        "value": "金额",
    }
    hrlegal = "请帮我确认住宿上限"  # a cap is not an upper limit in the dictionary
    assert bilingual.rendered_in(["lodging", "cap"], [hrlegal]) == {"lodging": "住宿"}
    pharma = "QA要求补充稳定性数据"
    assert bilingual.rendered_in(["stability", "data"], [pharma]) == {
        "stability": "稳定性",
        "data": "数据",
    }


def test_the_first_text_that_renders_a_word_decides():
    person, document = "请补充样品数量", "抽样计划见附件"
    assert bilingual.rendered_in(["sample"], [person, document]) == {"sample": "样品"}
    assert bilingual.rendered_in(["sample"], [document, person]) == {"sample": "抽样"}


def test_a_chinese_name_is_romanized_as_pinyin_run_together():
    # itdesk's and hrlegal's customers, written in English documents as Bohai, Huayang
    assert "bohai" in bilingual.romanizations("渤海")
    assert "huayang" in bilingual.romanizations("華陽")  # any script
    assert bilingual.romanizations("嘉") == frozenset()  # one character names too much


def test_a_name_is_found_where_a_text_spells_it_in_characters():
    assert bilingual.spelled_in("huayang", "华阳科技新竹二厂机电工程")
    assert bilingual.spelled_in("bohai", "客户:渤海零售")
    assert not bilingual.spelled_in("huayang", "华信科技")
    assert not bilingual.spelled_in("hua", "华信")  # one character names too much


@pytest.mark.parametrize(
    ("name", "text", "found"),
    [
        ("赖索托", "世界杯外围赛莱索托在第一圈", True),  # Lesotho, Taiwan / mainland
        ("狄更斯", "迪更斯的小说", True),  # Dickens
        ("藏传佛教", "汉传佛教禅宗的禅", False),  # another school: 藏 and 汉 sound apart
        ("华阳", "华洋贸易", False),  # two characters: too short to tell a name by its sound
    ],
)
def test_a_name_is_heard_in_other_characters_of_the_same_sound(
    name: str, text: str, found: bool
) -> None:
    assert bilingual.homophone_in(name, text) is found

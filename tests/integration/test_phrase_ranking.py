"""With the real embedder (USE multilingual, retrieval's default), the task's own phrases are
ranked against an item's name across languages, on texts of the blind and demo sets: which
phrase searches for a field of a Chinese task, and which topics a supplement raises beside its
pending work."""

from __future__ import annotations

import pytest

from services.agents.planning import plan_needs, read_supplement
from services.agents.similarity import EmbeddingSimilarity
from services.agents.wording import TaskWording
from services.contracts.task_state import TaskState
from services.retrieval.embedders import UseEmbedder


@pytest.fixture(scope="module")
def similarity() -> EmbeddingSimilarity:
    return EmbeddingSimilarity(UseEmbedder())


@pytest.mark.parametrize(
    ("supplement", "key", "phrase"),
    [
        # pharma STB-2026-021
        (
            "注册部确认这个品种只在国内申报，不出口。请按这个继续把稳定性方案的条件、取样计划和"
            "样品量排出来。",
            "pull_schedule",
            "取样计划",
        ),
        # pharma SCR-2026-009
        (
            "恒澜又来邮件说新场地2027年3月投产，催我们给结论。请继续评估：注册上按什么类别申报、"
            "要补哪些稳定性数据、要不要去现场审计。",
            "onsite_audit_requirement",
            "要不要去现场审计",
        ),
    ],
)
def test_the_embedding_picks_the_tasks_phrase_for_a_field_across_languages(
    similarity, supplement, key, phrase
):
    words = TaskWording([supplement], [], similarity).words_for(key, chinese=True)
    assert words.pick == phrase


def test_the_name_in_the_tasks_own_words_comes_before_the_embeddings_pick(similarity):
    # pharma CV-2026-006: the embedding would pick 「残留限度定下来」; the dictionary says which of
    # the person's words are the name's (residue → 残留, limit → 限度)
    supplement = (
        "生产部确认TP-03是多品种共用设备，不是专用线。请把脏设备保持时间和残留限度定下来，"
        "继续出验证方案。"
    )
    words = TaskWording([supplement], [], similarity).words_for(
        "residue_acceptance_limit", chinese=True
    )
    assert (words.phrase, words.pick) == ("残留 限度", None)


def state(pending: list[str], confirmed: dict | None = None) -> TaskState:
    return TaskState.model_validate(
        {
            "tenant_id": "T",
            "task_id": "T-1",
            "revision": 1,
            "status": "waiting_input",
            "confirmed": confirmed or {},
            "pending": pending,
        }
    )


@pytest.mark.parametrize(
    ("task", "supplement", "keys"),
    [
        # freight Q-BRX-1120: "finish the quote" asks for no surface finish
        (
            state(
                [
                    "dg_documentation",
                    "dg_handling_charge",
                    "lhr_delivery_cutoff",
                    "air_freight_rate",
                    "collection_charge",
                ]
            ),
            "Hannah at Brixtec came back: the RT-10 battery is 56 Wh, one per tablet, and their "
            "supplier confirms it ships Section II under PI 967. Can you finish the Chicago quote "
            "and tell me what paperwork, fees and drop-off time apply?",
            [
                "dg_documentation",
                "dg_handling_charge",
                "lhr_delivery_cutoff",
                "air_freight_rate",
                "collection_charge",
                "RT-10",
            ],
        ),
        # freight Q-HAL-1104: "price the freight" is the pending freight rate
        (
            state(["ocean_freight_rate", "customs_clearance_fee"]),
            "Mark confirmed Halden want us to do the import entry as well - two commodity codes "
            "on the invoice. Please carry on and price the freight and clearance.",
            ["ocean_freight_rate", "customs_clearance_fee"],
        ),
        # demo Q43: 膜厚 is asked beside the pending surface treatment
        (
            state(["surface_treatment"], {"material": "A6061-T6"}),
            "陳先生回覆：表面處理確定改成黑色硬陽極，請依我們公司的標準確認膜厚後繼續準備報價。",
            ["surface_treatment", "film_thickness"],
        ),
    ],
)
def test_topics_named_about_pending_work_are_that_work(similarity, task, supplement, keys):
    needs = plan_needs(
        task, read_supplement(task, supplement), supplement, [], similarity=similarity
    )
    assert [n.key for n in needs] == keys

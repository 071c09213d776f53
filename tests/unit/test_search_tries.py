"""Searching for one need: its queries in order, and once more in the evidence's own words."""

from __future__ import annotations

from datetime import date

from services.agents.gathering import search_tries, standing
from services.agents.planning import Search
from services.contracts.memory_input import Need
from services.retrieval.types import Evidence, RetrievalResult, RetrievalStatus


def span(evidence_id: str, quote: str) -> Evidence:
    document_id, _, rest = evidence_id.partition("@")
    start, end = (int(x) for x in rest.split(":")[1].split("-"))
    return Evidence(
        evidence_id=evidence_id,
        document_id=document_id,
        version=int(rest.split(":")[0]),
        chunk_id=f"{document_id}-c0",
        knowledge_class="fact",
        doc_type="sop",
        title=document_id,
        start=start,
        end=end,
        quote=quote,
        content_hash="h",
    )


class Answers:
    """A retriever's verdicts by query; every query it is asked is kept."""

    def __init__(self, table: dict[str, tuple[RetrievalStatus, list[Evidence]]]) -> None:
        self._table = table
        self.asked: list[str] = []

    def __call__(self, query: str) -> RetrievalResult:
        self.asked.append(query)
        status, found = self._table.get(query, ("insufficient_evidence", []))
        return RetrievalResult(status=status, query=query, as_of=date(2026, 11, 29), evidence=found)


def search(key: str, *queries: str, by_name: str, native: str | None = None) -> Search:
    first, *rest = queries
    need = Need(key=key, label=key, query=first, required=True, source="pending")
    return Search(need=need, fallbacks=tuple(rest), by_name=by_name, native=native)


def test_a_name_the_procedures_spell_otherwise_is_searched_as_they_spell_it():
    # freight: the SOPs write "Cut-off at LHR shed"; "delivery" is in none of them
    found = [span("SOP-AIR-EXPORT@1:401-423", "3. Cut-off at LHR shed")]
    answers = Answers(
        {
            "lhr delivery cutoff": ("insufficient_evidence", found),
            "lhr cut-off": ("ok", found),
        }
    )
    wanted = search("lhr_delivery_cutoff", "lhr delivery cutoff", by_name="lhr delivery cutoff")
    tries = search_tries(wanted, answers, [])
    assert answers.asked == ["lhr delivery cutoff", "lhr cut-off"]
    assert tries[-1][1].status == "ok"


def test_knowledge_in_another_language_is_searched_by_the_tasks_own_phrase():
    # pharma: the English name finds only Chinese spans, none in its words
    found = [span("SOP-QA-021@3:425-430", "5. 延期")]
    answers = Answers(
        {
            "open deviation disposition": ("insufficient_evidence", found),
            "未关闭偏差的处理": ("ok", [span("SOP-QA-012@2:419-430", "5. 未关闭偏差的处理")]),
        }
    )
    wanted = search(
        "open_deviation_disposition",
        "open deviation disposition",
        by_name="open deviation disposition",
        native="未关闭偏差的处理",
    )
    search_tries(wanted, answers, [])
    assert answers.asked == ["open deviation disposition", "未关闭偏差的处理"]


def test_knowledge_that_writes_the_name_is_not_searched_by_a_guess():
    # distributor: "EUS" is in the export SOP; the embedding's pick is not tried
    found = [span("SOP-EXPORT@1:437-462", "3. Classification and EUS")]
    answers = Answers({"eus requirement": ("insufficient_evidence", found)})
    wanted = search(
        "eus_requirement", "eus requirement", by_name="eus requirement", native="周雅婷"
    )
    tries = search_tries(wanted, answers, [])
    assert answers.asked == ["eus requirement"]
    assert tries[0][1].status == "insufficient_evidence"


def test_the_first_query_that_finds_enough_ends_the_search():
    # distributor: the task's phrase naming DR finds the registration; the name is not asked
    answers = Answers({"TI 那邊 DR 已經報過": ("ok", [span("DR-NEXPWR-TPS@1:32-59", "DR no.")])})
    wanted = search(
        "design_registration_check",
        "TI 那邊 DR 已經報過",
        "design registration check",
        by_name="design registration check",
    )
    search_tries(wanted, answers, [])
    assert answers.asked == ["TI 那邊 DR 已經報過"]


def test_a_name_judged_by_the_embedding_alone_gives_way_to_the_tasks_phrase():
    # pharma: "long term condition" is "ok" on a Chinese heading none of its words are in
    found = [span("CONTRACT-KC-2025@1:74-81", "1. 委托项目")]
    condition = [span("SOP-QC-008@2:147-154", "2. 试验条件")]
    answers = Answers({"long term condition": ("ok", found), "稳定性方案的条件": ("ok", condition)})
    wanted = search(
        "long_term_condition",
        "long term condition",
        by_name="long term condition",
        native="稳定性方案的条件",
    )
    assert standing(search_tries(wanted, answers, []))[0] == "稳定性方案的条件"
    # distributor: a name the evidence writes is kept, the pick is not tried
    answers = Answers({"eccn classification": ("ok", [span("SOP-EXPORT@1:437-509", "ECCN")])})
    wanted = search(
        "eccn_classification", "eccn classification", by_name="eccn classification", native="周雅婷"
    )
    assert standing(search_tries(wanted, answers, []))[0] == "eccn classification"
    assert answers.asked == ["eccn classification"]


def test_a_conflict_the_name_finds_stands_whatever_other_words_would_find():
    found = [span("SOP-QA-050@1:331-366", "最长48小时"), span("SOP-PRD-015@1:142-180", "24小时")]
    answers = Answers({"dirty hold time": ("source_conflict", found)})
    wanted = search(
        "dirty_hold_time", "dirty hold time", by_name="dirty hold time", native="脏设备保持时间"
    )
    tries = search_tries(wanted, answers, [])
    assert answers.asked == ["dirty hold time"]
    assert standing(tries)[1].status == "source_conflict"

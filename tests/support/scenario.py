"""The Q42 scenario on the small test corpus plus an inspection procedure with an engineering
list, and a task service that dies at a chosen write (a crashed process, not an exception
anyone handles)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from services.agents.runs import RunView
from services.bootstrap import Services
from services.contracts.task_state import TaskStatus
from services.records.tasks import TaskRecord, TaskService
from tests.support.corpus import corpus_dict, doc, write_corpus

SUPPLEMENT = "客戶確認需要特殊檢驗，請接著處理。"
INSPECTION_SOP = (
    "客戶要求特殊檢驗時，業務應於報價前開立確認單。工程部確認下列事項後，業務方可回覆交期：\n"
    "1. 檢驗項目：尺寸全檢或材質分析，逐項列明。\n"
    "2. 抽樣標準：採用 AQL 或客戶指定之抽樣計畫。\n"
    "3. 第三方見證：是否需要第三方機構到廠見證。\n"
    "未經工程確認之特殊檢驗案件，報價單交期欄標示「待工程確認」。"
)


def scenario_corpus(**overrides: Any) -> dict[str, Any]:
    corpus = corpus_dict()
    corpus["documents"].append(
        doc("SOP-INSPECTION", 1, valid_from="2025-07-01", body=INSPECTION_SOP)
    )
    corpus.update(overrides)
    return corpus


def load_scenario(services: Services, tmp_path: Path, **overrides: Any) -> Services:
    services.importer.import_file(
        write_corpus(tmp_path / "scenario.json", scenario_corpus(**overrides))
    )
    return services


def resume_q42(services: Services, supplement: str | None = SUPPLEMENT) -> RunView:
    sales = services.directory.principal("a.sales")
    run = services.runs.enqueue(sales, "Q42", supplement=supplement)
    return services.worker.drain(run.run_id)


class SimulatedCrash(BaseException):
    """The process dies here: nothing catches it, nothing after it runs."""


class CrashingTasks(TaskService):
    """The real task service, except that the first move into `crash_on` kills the process."""

    def __init__(self, inner: TaskService, *, crash_on: TaskStatus) -> None:
        self.__dict__.update(inner.__dict__)
        self.crash_on = crash_on
        self.crashed = False

    def update(self, principal: Any, task_id: str, **kwargs: Any) -> TaskRecord:
        if kwargs.get("status") == self.crash_on and not self.crashed:
            self.crashed = True
            raise SimulatedCrash(f"process died before moving {task_id} to {self.crash_on}")
        return super().update(principal, task_id, **kwargs)

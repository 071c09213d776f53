"""Per-tenant rate limit and token budget under a burst: one tenant hammering the queue from many
threads gets exactly its allowance, its runs stop calling the model once its budget is spent,
and another tenant's runs are queued, run and call the model as if nothing happened."""

from __future__ import annotations

import threading
from collections import Counter

import pytest

from services.agents.analysis_offline import OfflineAnalyzer
from services.agents.ports import Analysis
from services.contracts.memory_input import MemoryInput
from services.core.errors import BudgetExceeded
from services.core.principals import Principal
from services.llm.ports import ModelUsage
from tests.support.agents import rebuild_agents
from tests.support.scenario import load_scenario

RATE = 4  # runs per tenant per minute
BUDGET = 1_000  # tokens per tenant per day
TOKENS = 400  # what one model call costs here
BURST = 12


class MeteredModel:
    """The offline analysis, billed like a model: every call costs TOKENS (so the supervisor's
    budget check applies, as it does for Gemini)."""

    name = "stub-metered"
    model = "stub-metered@1"

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def analyze(self, principal: Principal, data: MemoryInput, *, run_id: str) -> Analysis:
        with self._lock:
            self.calls[principal.tenant_id] += 1
        analysis = OfflineAnalyzer().analyze(principal, data, run_id=run_id)
        usage = ModelUsage(model_calls=1, tokens_in=TOKENS - 50, tokens_out=50)
        return analysis.model_copy(update={"usage": usage, "model": self.model})


@pytest.fixture
def limited(services, settings, tmp_path):
    load_scenario(services, tmp_path)
    a_sales = services.directory.principal("a.sales")
    b_sales = services.directory.principal("b.sales")
    for i in range(BURST):
        services.tasks.create(a_sales, task_id=f"R{i}", pending=["special_inspection"])
    for i in range(3):
        services.tasks.create(b_sales, task_id=f"BR{i}", pending=["special_inspection"])
    tight = settings.model_copy(
        update={"tenant_runs_per_minute": RATE, "tenant_daily_token_budget": BUDGET}
    )
    model = MeteredModel()
    return services, rebuild_agents(services, settings=tight, analyzer=model), model


def _burst(agents, requests: list[tuple[Principal, str]]) -> dict[str, list]:
    """Every request at once from its own thread; what each got back."""
    start = threading.Barrier(len(requests))
    outcome: dict[str, list] = {"accepted": [], "refused": []}
    lock = threading.Lock()

    def enqueue(principal: Principal, task_id: str) -> None:
        start.wait()
        try:
            run = agents.runs.enqueue(principal, task_id, supplement="客戶確認需要特殊檢驗")
            result = ("accepted", run)
        except BudgetExceeded as exc:
            result = ("refused", (principal.tenant_id, str(exc)))
        with lock:
            outcome[result[0]].append(result[1])

    threads = [threading.Thread(target=enqueue, args=r) for r in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcome


def test_a_burst_gets_its_allowance_and_the_other_tenant_proceeds(limited):
    services, agents, model = limited
    a_sales = services.directory.principal("a.sales")
    b_sales = services.directory.principal("b.sales")
    requests = [(a_sales, f"R{i}") for i in range(BURST)] + [(b_sales, "BR0"), (b_sales, "BR1")]
    outcome = _burst(agents, requests)

    accepted = Counter(run.tenant_id for run in outcome["accepted"])
    assert accepted == {"A": RATE, "B": 2}  # exactly the allowance, on every backend
    refused = outcome["refused"]
    assert len(refused) == BURST - RATE
    assert all(tenant == "A" and "rate limit" in message for tenant, message in refused)

    # Draining: A's budget runs out after three calls; the fourth run never calls the model.
    finished = [agents.worker.drain(run.run_id) for run in outcome["accepted"]]
    a_runs = [run for run in finished if run.tenant_id == "A"]
    assert model.calls["A"] == 3  # 400 + 400 + 400 ≥ 1,000: no fourth call
    assert (
        sum(run.status == "failed" and "token budget" in (run.error or "") for run in a_runs) == 1
    )
    assert agents.runs.tokens_used_today("A") == 3 * TOKENS
    # B never noticed: both its runs ran to the end and called the model.
    b_runs = [run for run in finished if run.tenant_id == "B"]
    assert [run.status for run in b_runs] == ["succeeded", "succeeded"]
    assert model.calls["B"] == 2

    # A minute later the rate window is clear, but A's budget is spent for today; B goes on.
    services.clock.advance(seconds=61)
    with pytest.raises(BudgetExceeded, match="token budget"):
        agents.runs.enqueue(a_sales, f"R{BURST - 1}")
    b_run = agents.worker.drain(agents.runs.enqueue(b_sales, "BR2").run_id)
    assert b_run.status == "succeeded"
    assert model.calls["B"] == 3

    # Tomorrow A may work again.
    services.clock.advance(days=1)
    assert agents.runs.enqueue(a_sales, f"R{BURST - 1}").status == "queued"


def test_the_rate_window_slides(limited):
    services, agents, _ = limited
    a_sales = services.directory.principal("a.sales")
    for i in range(RATE):
        agents.runs.enqueue(a_sales, f"R{i}")
    with pytest.raises(BudgetExceeded, match="rate limit"):
        agents.runs.enqueue(a_sales, f"R{RATE}")
    services.clock.advance(seconds=30)
    with pytest.raises(BudgetExceeded, match="rate limit"):
        agents.runs.enqueue(a_sales, f"R{RATE}")
    services.clock.advance(seconds=31)
    assert agents.runs.enqueue(a_sales, f"R{RATE}").status == "queued"

"""How long a strategy may think."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest

from sdk.agent_log import AgentLog
from sdk.timeutil import utc_now
from strategies import Classifier, MoveView, Say, Strategy, build_strategy
from strategies.runner import MIN_BUDGET_SEC, StrategyRunner


@pytest.mark.parametrize(
    ("deadline_in", "low", "high"),
    [
        (10.0, 8.9, 9.0),
        (100.0, 29.0, 29.0),
        (-5.0, MIN_BUDGET_SEC, MIN_BUDGET_SEC),
    ],
)
def test_the_budget_is_the_deadline_less_the_margin_within_bounds(
    tmp_path: Path, deadline_in: float, low: float, high: float
) -> None:
    log = AgentLog(tmp_path / "P01.log.jsonl", "P01")
    runner = StrategyRunner(build_strategy("random"), log, margin_sec=1.0, max_budget_sec=30.0)
    view = MoveView(
        match_id="R1M1",
        player_id="P01",
        opponent_id="P02",
        deadline=utc_now() + timedelta(seconds=deadline_in),
    )

    budget = runner.budget(view)

    log.close()
    assert low <= budget <= high


async def test_shipped_strategies_decide_on_the_event_loop_others_in_a_thread(
    tmp_path: Path,
) -> None:
    seen: list[str] = []

    class Quick(Strategy):
        classifier = Classifier(inline=True)

        def choose(self, view: MoveView) -> str:
            seen.append(threading.current_thread().name)
            return "odd"

    class Careful(Quick):
        classifier = Classifier()

    log = AgentLog(tmp_path / "P01.log.jsonl", "P01")
    view = MoveView(
        match_id="R1M1",
        player_id="P01",
        opponent_id="P02",
        deadline=utc_now() + timedelta(seconds=10),
    )
    for strategy in (Quick(), Careful()):
        runner = StrategyRunner(strategy, log, margin_sec=0.1, max_budget_sec=5)
        decision = await runner.choose(view)
        assert decision.choice == "odd" and decision.fallback is None
    log.close()
    assert seen[0] == threading.main_thread().name, "an inline strategy runs on the loop"
    assert seen[1] != threading.main_thread().name, "any other strategy runs in a thread"


async def test_a_strategys_own_default_is_one_fallback_of_the_host(tmp_path: Path) -> None:
    """A strategy that says its move is its default (``Say.fallback``) is counted once
    among the host's fallbacks, as ``strategy:<why>``; its move is sent as it is."""

    class Unsure(Strategy):
        def choose(self, view: MoveView) -> Say:
            return Say("even", fallback="unsure")

    log = AgentLog(tmp_path / "P01.log.jsonl", "P01")
    runner = StrategyRunner(Unsure(), log, margin_sec=0.1, max_budget_sec=5)
    view = MoveView(
        match_id="R1M1",
        player_id="P01",
        opponent_id="P02",
        deadline=utc_now() + timedelta(seconds=10),
    )
    decision = await runner.choose(view)
    log.close()
    assert (decision.choice, decision.fallback) == ("even", "strategy:unsure")
    assert (runner.stats.fallbacks, runner.stats.fallbacks_by_reason) == (
        1,
        {"strategy:unsure": 1},
    )

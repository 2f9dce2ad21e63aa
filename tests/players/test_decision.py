"""How long a strategy may think."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from players.decision import MIN_BUDGET_SEC, StrategyRunner
from players.strategies import MoveView, build_strategy
from sdk.agent_log import AgentLog
from sdk.timeutil import utc_now


@pytest.mark.parametrize(("deadline_in", "low", "high"), [
    (10.0, 8.9, 9.0),
    (100.0, 29.0, 29.0),
    (-5.0, MIN_BUDGET_SEC, MIN_BUDGET_SEC),
])
def test_the_budget_is_the_deadline_less_the_margin_within_bounds(
    tmp_path: Path, deadline_in: float, low: float, high: float
) -> None:
    log = AgentLog(tmp_path / "P01.log.jsonl", "P01")
    runner = StrategyRunner(build_strategy("random"), log, margin_sec=1.0, max_budget_sec=30.0)
    view = MoveView(match_id="R1M1", player_id="P01", opponent_id="P02",
                    deadline=utc_now() + timedelta(seconds=deadline_in))

    budget = runner.budget(view)

    log.close()
    assert low <= budget <= high

"""bench/evaluation.py's remote suite: the shipped suite, its agents at the benchmark's
endpoints, read by the same loader as ``league evaluate``."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.evaluation import REMOTE_PLAYERS, SUITE, remote_suite_file
from league_cli.evaluation.suite_file import load_suite

ENDPOINTS = {"candidate": "http://127.0.0.1:9101/mcp", "tft": "http://127.0.0.1:9102/mcp"}


@pytest.mark.parametrize("mode", ["remote", "mixed"])
def test_the_remote_suite_is_the_shipped_one_with_its_agents_at_the_endpoints(
    tmp_path: Path, mode: str
) -> None:
    shipped = load_suite(SUITE)
    suite = load_suite(remote_suite_file(ENDPOINTS, tmp_path, mode))

    assert [agent.id for agent in suite.agents] == [player for player, _ in REMOTE_PLAYERS]
    expected = [
        (None, strategy) if mode == "mixed" and index == 0 else (ENDPOINTS[player], None)
        for index, (player, strategy) in enumerate(REMOTE_PLAYERS)
    ]
    assert [(agent.endpoint, agent.strategy) for agent in suite.agents] == expected
    assert suite.game == shipped.game
    assert [m.name for m in suite.metrics] == [
        m.name for m in shipped.metrics if m.name != "exploitability"
    ]
    assert "exploitability" in [m.name for m in shipped.metrics], "the suite still has one to drop"
    assert [t.metric for t in suite.thresholds] == [
        t.metric for t in shipped.thresholds if t.metric != "exploitability"
    ]
    assert len(suite.thresholds) >= 3

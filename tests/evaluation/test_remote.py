"""A suite whose agent under test is a real player process, called over HTTP by the
referee's own match runner; and one whose remote agent is not there."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from league_cli.launcher import AgentProcess, Launcher
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir
from tests.evaluation.conftest import base_suite, evaluate

pytestmark = pytest.mark.e2e

PLAYER_ID = "candidate"


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def player(shared: SharedDir) -> Iterator[AgentProcess]:
    """A standalone tit-for-tat player (no League Manager), stopped by its pid."""
    launcher = Launcher(shared.root)
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"  # a standalone player never calls it
    try:
        process = launcher.player("Candidate", free_port(), unused_lm, strategy="tit_for_tat",
                                  game_type="prisoners_dilemma", player_id=PLAYER_ID,
                                  standalone=True)
        launcher.wait_healthy(process)
        yield process
    finally:
        launcher.stop_all()


def _remote_suite(endpoint: str) -> dict[str, object]:
    return base_suite(
        agents=[{"id": PLAYER_ID, "endpoint": endpoint},
                {"id": "defector", "strategy": "always_defect"}],
        under_test=PLAYER_ID, episodes=3, parallel=3,
        metrics=[{"name": "average_payoff"}, {"name": "cooperation_rate"}],
        thresholds=[{"metric": "cooperation_rate", "max": 0.5}])


def test_a_remote_player_is_evaluated_over_http(
        player: AgentProcess, shared: SharedDir, write_suite: Callable[..., Path],
        tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    run = evaluate(str(write_suite(_remote_suite(player.mcp_url))), "--shared-dir",
                   str(shared.root), "--json", str(out))
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    assert report["failures"] == [] and report["finished_episodes"] == 3
    metrics = {m["id"]: m["mean"] for m in report["metrics"]}
    # tit for tat against always defect over 10 rounds: C then D nine times, 0 + 9 × 1
    assert metrics == pytest.approx({"average_payoff": 0.9, "cooperation_rate": 0.1})
    log = (shared.root / "logs" / "agents").glob("*.log.jsonl")
    assert any("GAME_MOVE_CALL" in path.read_text() for path in log), \
        "no GAME_MOVE_CALL went over the wire"


def test_an_unreachable_remote_agent_fails_every_episode_and_exits_1(
        shared: SharedDir, write_suite: Callable[..., Path], tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    endpoint = f"http://127.0.0.1:{free_port()}/mcp"
    run = evaluate(str(write_suite(_remote_suite(endpoint))), "--shared-dir",
                   str(shared.root), "--json", str(out))
    assert run.exit_code == 1, run.output
    report = json.loads(out.read_text())
    assert report["finished_episodes"] == 0 and report["verdict"] == "fail"
    assert len(report["failures"]) == 3
    assert "technical loss" in report["failures"][0]["reason"], report["failures"][0]

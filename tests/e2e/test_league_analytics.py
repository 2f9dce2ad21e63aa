"""A real 4-player prisoner's dilemma league, then its analytics over HTTP and its report."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_manager.analytics import LeagueAnalysis
from tests.e2e.test_league import launcher, league_command, play_league
from tests.league_cli.test_report import check_report

__all__ = ["launcher"]  # the fixture, imported to be used here

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_prisoners_dilemma"


def test_a_prisoners_dilemma_league_is_analysed(launcher: Launcher, tmp_path: Path) -> None:
    strategies = ["tit_for_tat", "always_defect", "always_cooperate", "grim_trigger"]
    lm_url, standings = play_league(launcher, 4, LEAGUE, "prisoners_dilemma", strategies)
    with httpx.Client(timeout=60) as client:
        response = client.get(f"{lm_url}/analysis")
        assert response.status_code == 200, response.text
        analysis = LeagueAnalysis.model_validate(response.json())
        again = client.get(f"{lm_url}/analysis").json()
    players = {row["player_id"] for row in standings["standings"]}
    assert analysis.version == standings["version"] == 6 and again["seconds"] == analysis.seconds, (
        "the second answer comes from the cache"
    )
    meta = analysis.meta_game
    assert set(meta.players) == players and meta.measure == "payoffs"
    for i, row in enumerate(meta.cells):
        for j, cell in enumerate(row):
            if i == j:
                assert cell.matches == 0 and cell.mean is None, "no match against itself"
            else:
                assert cell.matches == 1 and cell.mean is not None and cell.lower is None
    solution = analysis.solution
    assert solution.reason and "observed against itself" in solution.reason
    assert solution.equilibria == [] and solution.population is None
    defector = next(
        row["player_id"] for row in standings["standings"] if row["display_name"] == "Player2"
    )
    cooperator = next(
        row["player_id"] for row in standings["standings"] if row["display_name"] == "Player3"
    )
    index = {p: i for i, p in enumerate(meta.players)}
    assert meta.cells[index[defector]][index[cooperator]].mean == 50.0, "5 a turn for 10 turns"
    assert analysis.metrics[defector].cooperation == 0.0
    assert analysis.metrics[cooperator].cooperation == 1.0
    assert set(analysis.ratings.elo) == players == set(analysis.ratings.bayesian)
    assert len(analysis.cooperation_by_stage) == 10

    output = tmp_path / "report.html"
    written = league_command(launcher, "report", "--lm-url", lm_url, "-o", str(output))
    assert written.returncode == 0, written.stdout + written.stderr
    check_report(output.read_text(), analysis)

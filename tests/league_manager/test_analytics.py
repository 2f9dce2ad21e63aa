"""League analytics on hand-made match files whose meta-game is known, and the route."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from league_manager.analytics import (
    AnalysisUnavailable,
    LeagueAnalysis,
    analyse_folder,
    analyse_league,
    read_match_files,
)
from tests.analytics_matches import (
    even_odd_match,
    pd_match,
    standings_for,
    synthetic_pd_league,
    write_matches,
)
from tests.league_manager.conftest import World

CYCLE = ["P01", "P02", "P03", "P04"]


def cycle_league() -> list[dict[str, object]]:
    """P01 beats P02, P02 beats P03, P03 beats P01 (rock-paper-scissors) and all three beat
    P04: the only symmetric equilibrium is a third each of P01–P03."""
    return [
        even_odd_match("R1M1", 1, "P01", "P02", "P01"),
        even_odd_match("R1M2", 1, "P03", "P04", "P03"),
        even_odd_match("R2M1", 2, "P02", "P03", "P02"),
        even_odd_match("R2M2", 2, "P04", "P01", "P01"),
        even_odd_match("R3M1", 3, "P03", "P01", "P03"),
        even_odd_match("R3M2", 3, "P02", "P04", "P02"),
    ]


def assert_symmetric_equilibrium(analysis: LeagueAnalysis) -> None:
    matrix = np.array(analysis.meta_game.payoffs)
    for equilibrium in analysis.equilibria:
        shares = np.array([equilibrium.shares[p] for p in analysis.meta_game.players])
        fitness = matrix @ shares
        assert fitness.max() - shares @ fitness < 1e-6, f"{equilibrium} can be invaded"


def test_a_cyclic_even_odd_league_has_the_cycle_as_its_equilibrium() -> None:
    documents = cycle_league()
    analysis = analyse_league("league_test", "even_odd", standings_for(CYCLE, documents), documents)
    meta = analysis.meta_game
    assert meta.measure == "win_draw_loss" and meta.players[0] == "P01"
    index = {p: i for i, p in enumerate(meta.players)}
    assert meta.payoffs[index["P01"]][index["P02"]] == 1.0
    assert meta.payoffs[index["P02"]][index["P01"]] == 0.0
    assert meta.payoffs[index["P04"]][index["P04"]] == 0.5 and not meta.observed[3][3]
    assert [e.support for e in analysis.equilibria] == [["P01", "P02", "P03"]]
    assert analysis.support == ["P01", "P02", "P03"]
    assert all(abs(analysis.equilibria[0].shares[p] - 1 / 3) < 1e-6 for p in CYCLE[:3])
    assert analysis.equilibrium_method == "enummixed"
    assert_symmetric_equilibrium(analysis)
    assert analysis.population.final["P04"] < 0.01, "the population drops the loser"
    assert len(analysis.population.times) == len(analysis.population.shares) == 51
    assert set(analysis.ratings.elo) == set(CYCLE) == set(analysis.ratings.bayesian)
    assert list(analysis.ratings.elo)[-1] == "P04", "the player who lost every match is last"
    assert analysis.cooperation_by_stage == [] and analysis.cooperation_meaning is None
    assert analysis.matches_analysed == 6 and analysis.skipped == {}


def test_a_prisoners_dilemma_league_measures_payoffs_and_cooperation() -> None:
    players = ["AC", "AD", "TFT"]
    documents = [
        pd_match("R1M1", 1, "AC", "AD", "CCCC", "DDDD"),
        pd_match("R2M1", 2, "AC", "TFT", "CCCC", "CCCC"),
        pd_match("R3M1", 3, "AD", "TFT", "DDDD", "CDDD"),
    ]
    analysis = analyse_league(
        "league_test", "prisoners_dilemma", standings_for(players, documents), documents
    )
    meta = analysis.meta_game
    index = {p: i for i, p in enumerate(meta.players)}
    assert meta.measure == "payoffs"
    assert meta.payoffs[index["AD"]][index["AC"]] == 20.0
    assert meta.payoffs[index["TFT"]][index["AD"]] == 3.0
    assert analysis.support == ["AD"], "against itself always-defect cannot be invaded"
    assert_symmetric_equilibrium(analysis)
    assert analysis.metrics["AC"].cooperation == 1.0 and analysis.metrics["AD"].cooperation == 0
    assert analysis.metrics["AC"].payoff_per_match == 6.0
    assert analysis.cooperation_by_stage == [4 / 6, 3 / 6, 3 / 6, 3 / 6]
    assert analysis.population.final["AD"] > 0.99


def test_a_technical_loss_is_rated_but_left_out_of_the_payoffs() -> None:
    played = [
        pd_match("R1M1", 1, "P01", "P02", "CC", "DD"),
        pd_match("R2M1", 2, "P02", "P03", "DD", "CD"),
    ]
    forfeit = pd_match("R3M1", 3, "P03", "P01", "CC", "DD")
    forfeit["result"]["report"]["details"]["payoffs"] = {"P03": 10.0}
    forfeit["result"]["game_result"]["status"] = "TECHNICAL_LOSS"
    documents = [*played, forfeit]
    analysis = analyse_league(
        "league_test", "prisoners_dilemma", standings_for(CYCLE[:3], documents), documents
    )
    assert list(analysis.skipped) == ["R3M1"] and analysis.matches_analysed == 2
    index = {p: i for i, p in enumerate(analysis.meta_game.players)}
    assert analysis.meta_game.matches[index["P01"]][index["P03"]] == 0, (
        "the forfeit is not a payoff observation"
    )
    assert analysis.ratings.elo["P01"].matches == 2, "but it is rated"


def test_nothing_to_analyse_is_said_plainly(tmp_path: Path) -> None:
    with pytest.raises(AnalysisUnavailable, match="no results"):
        analyse_folder(tmp_path, "league_test", "even_odd", {"version": 0, "standings": []})


def test_only_accepted_and_readable_files_are_read(tmp_path: Path) -> None:
    folder = write_matches(tmp_path, cycle_league())
    (folder / "R4M1.json").write_text("{half a file")
    documents, unreadable = read_match_files(folder, accepted=["R1M1", "R2M1", "R4M1"])
    assert [d["match_id"] for d in documents] == ["R1M1", "R2M1"]
    assert list(unreadable) == ["R4M1"] and "JSONDecodeError" in unreadable["R4M1"]


def test_a_large_league_gets_one_equilibrium_quickly() -> None:
    players, documents = synthetic_pd_league(32)
    analysis = analyse_league(
        "league_test", "prisoners_dilemma", standings_for(players, documents), documents
    )
    assert analysis.equilibrium_method == "lemke_howson" and len(analysis.equilibria) == 1
    assert analysis.support and set(analysis.support) <= set(players)
    assert_symmetric_equilibrium(analysis)
    assert analysis.seconds < 10


async def test_the_route_says_409_before_any_result(world: World) -> None:
    response = await world.lm.get("/analysis")
    assert response.status_code == 409
    assert response.json() == {"error": "no results to analyse yet", "version": 0}

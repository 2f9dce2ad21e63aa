"""League analytics on hand-made match files whose meta-game is known, and the route."""

from __future__ import annotations

from pathlib import Path

import pytest

from league_manager.analytics import (
    AnalysisUnavailable,
    LeagueAnalysis,
    analyse_folder,
    analyse_league,
    read_match_files,
)
from league_manager.meta_game import MetaCell
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
    P04, each pair once: no player against itself."""
    return [
        even_odd_match("R1M1", 1, "P01", "P02", "P01"),
        even_odd_match("R1M2", 1, "P03", "P04", "P03"),
        even_odd_match("R2M1", 2, "P02", "P03", "P02"),
        even_odd_match("R2M2", 2, "P04", "P01", "P01"),
        even_odd_match("R3M1", 3, "P03", "P01", "P03"),
        even_odd_match("R3M2", 3, "P02", "P04", "P02"),
    ]


def cell(analysis: LeagueAnalysis, row: str, column: str) -> MetaCell:
    index = {p: i for i, p in enumerate(analysis.meta_game.players)}
    return analysis.meta_game.cells[index[row]][index[column]]


def test_a_league_without_self_play_has_no_number_on_its_diagonal() -> None:
    documents = cycle_league()
    analysis = analyse_league("league_test", "even_odd", standings_for(CYCLE, documents), documents)
    meta = analysis.meta_game
    assert meta.measure == "win_draw_loss" and meta.players[0] == "P01"
    assert cell(analysis, "P01", "P02") == MetaCell(matches=1, mean=1.0)
    assert cell(analysis, "P02", "P01") == MetaCell(matches=1, mean=0.0)
    for player in CYCLE:
        assert cell(analysis, player, player) == MetaCell(), f"{player} against itself"
    observed = meta.observed()
    assert observed.sum() == 12 and not observed.diagonal().any()
    diagonal = analysis.model_dump(mode="json")["meta_game"]["cells"][3][3]
    assert diagonal == {"matches": 0, "mean": None, "lower": None, "upper": None}


def test_without_self_play_no_equilibrium_nor_dynamics_is_computed_and_it_says_why() -> None:
    documents = cycle_league()
    analysis = analyse_league("league_test", "even_odd", standings_for(CYCLE, documents), documents)
    solution = analysis.solution
    assert solution.reason is not None and "observed against itself" in solution.reason
    assert solution.players == [] and solution.equilibria == [] and solution.support == []
    assert solution.method is None and solution.check is None and solution.population is None
    assert solution.left_out == {p: "never observed against itself" for p in CYCLE}
    assert set(analysis.ratings.elo) == set(CYCLE) == set(analysis.ratings.bayesian)
    assert list(analysis.ratings.elo)[-1] == "P04", "the player who lost every match is last"
    assert analysis.cooperation_by_stage == [] and analysis.cooperation_meaning is None
    assert analysis.matches_analysed == 6 and analysis.skipped == {}


def test_counts_and_intervals_are_those_computed_by_hand() -> None:
    players = ["P01", "P02", "P03"]
    documents = [
        pd_match("R1M1", 1, "P01", "P02", "CC", "CC"),  # P01 6, P02 6
        pd_match("R2M1", 2, "P01", "P02", "CC", "DC"),  # P01 3, P02 8
        pd_match("R3M1", 3, "P01", "P02", "DD", "CC"),  # P01 10, P02 0
        pd_match("R4M1", 4, "P03", "P01", "DC", "CC"),  # P03 8, P01 3
    ]
    analysis = analyse_league(
        "league_test", "prisoners_dilemma", standings_for(players, documents), documents
    )
    # P01 earned 6, 3, 10 against P02: mean 19/3, s = 3.5119, t(0.975, 2) = 4.3027,
    # half-width 4.3027 · 3.5119 / √3 = 8.7240.
    first = cell(analysis, "P01", "P02")
    assert first.matches == 3 and first.mean == pytest.approx(19 / 3)
    assert first.lower == pytest.approx(19 / 3 - 8.7240, abs=1e-4)
    assert first.upper == pytest.approx(19 / 3 + 8.7240, abs=1e-4)
    # P02 earned 6, 8, 0: mean 14/3, s = 4.1633, half-width 4.3027 · 4.1633 / √3 = 10.3423.
    second = cell(analysis, "P02", "P01")
    assert second.matches == 3 and second.mean == pytest.approx(14 / 3)
    assert second.lower == pytest.approx(14 / 3 - 10.3423, abs=1e-4)
    assert second.upper == pytest.approx(14 / 3 + 10.3423, abs=1e-4)
    assert cell(analysis, "P03", "P01") == MetaCell(matches=1, mean=8.0), "one match: no width"
    assert cell(analysis, "P01", "P03") == MetaCell(matches=1, mean=3.0)
    assert cell(analysis, "P02", "P03") == MetaCell() == cell(analysis, "P03", "P02"), (
        "a pair that never met is unobserved"
    )
    for row in analysis.meta_game.cells:
        for one in row:
            assert (one.mean is None) == (one.matches == 0), "no value without a match"
            assert (one.lower is None) == (one.matches < 2), "an interval from two matches on"


def test_a_win_draw_loss_interval_stays_between_0_and_1() -> None:
    documents = [
        even_odd_match("R1M1", 1, "P01", "P02", "P01"),
        even_odd_match("R2M1", 2, "P02", "P01", "P01"),
        even_odd_match("R3M1", 3, "P01", "P02", "P02"),
    ]
    analysis = analyse_league(
        "league_test", "even_odd", standings_for(CYCLE[:2], documents), documents
    )
    # 1, 1, 0: mean 2/3, half-width 4.3027 · 0.5774 / √3 = 1.4342, cut to [0, 1].
    assert cell(analysis, "P01", "P02") == MetaCell(matches=3, mean=2 / 3, lower=0.0, upper=1.0)


def test_a_file_that_seats_a_player_twice_is_left_out_and_measures_no_self_play() -> None:
    documents = [*cycle_league(), even_odd_match("R4M1", 4, "P01", "P01", None)]
    analysis = analyse_league(
        "league_test", "even_odd", standings_for(CYCLE, documents[:6]), documents
    )
    assert "seats P01 more than once" in analysis.skipped["R4M1"]
    assert cell(analysis, "P01", "P01") == MetaCell()
    assert analysis.matches_analysed == 6


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
    assert analysis.meta_game.measure == "payoffs"
    assert cell(analysis, "AD", "AC") == MetaCell(matches=1, mean=20.0)
    assert cell(analysis, "TFT", "AD") == MetaCell(matches=1, mean=3.0)
    assert analysis.solution.reason is not None
    assert analysis.metrics["AC"].cooperation == 1.0 and analysis.metrics["AD"].cooperation == 0
    assert analysis.metrics["AC"].payoff_per_match == 6.0
    assert analysis.cooperation_by_stage == [4 / 6, 3 / 6, 3 / 6, 3 / 6]


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
    assert cell(analysis, "P01", "P03") == MetaCell(), "the forfeit is not a payoff observation"
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


def test_a_large_league_is_analysed_quickly() -> None:
    players, documents = synthetic_pd_league(32)
    analysis = analyse_league(
        "league_test", "prisoners_dilemma", standings_for(players, documents), documents
    )
    assert analysis.meta_game.observed().sum() == 32 * 31
    assert analysis.seconds < 10


async def test_the_route_says_409_before_any_result(world: World) -> None:
    response = await world.lm.get("/analysis")
    assert response.status_code == 409
    assert response.json() == {"error": "no results to analyse yet", "version": 0}

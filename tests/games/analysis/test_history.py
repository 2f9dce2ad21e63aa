"""Histories: in-process episodes and match files give the same typed record, and stage
payoffs are filled only when a replay reproduces the match."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from games import load_game
from games.analysis.errors import AnalysisError
from games.analysis.history import (
    History,
    Stage,
    history_from_match,
    match_players,
    record_episode,
)
from games.episode import play_episode
from games.strategies import build_observed
from tests.games.analysis.matches import Scripted, match_document

PD_MOVES = [{"A": "C", "B": "D"}, {"A": "D", "B": "D"}, {"A": "D", "B": "C"}]


def test_an_episode_records_every_stage_and_sums_to_its_payoffs() -> None:
    spec = load_game("prisoners_dilemma")
    history = record_episode(spec, {"A": Scripted("CDD"), "B": Scripted("DDC")}, seed=1, rounds=3)
    assert [stage.moves for stage in history.stages] == PD_MOVES
    assert [stage.payoffs for stage in history.stages] == [
        {"A": 0.0, "B": 5.0},
        {"A": 1.0, "B": 1.0},
        {"A": 5.0, "B": 0.0},
    ]
    assert history.payoffs == {"A": 6.0, "B": 6.0}
    assert history.parameters["rounds"] == 3 and history.players == ("A", "B")


def test_an_episode_pays_what_play_episode_pays() -> None:
    spec = load_game("public_goods")
    strategies = {
        p: build_observed("public_goods", name)
        for p, name in zip(
            "ABCD",
            ["full_contributor", "free_rider", "conditional_cooperator", "punisher"],
            strict=True,
        )
    }
    history = record_episode(spec, strategies, seed=11, rounds=4)
    assert history.payoffs == play_episode(spec, strategies, seed=11, rounds=4)
    for player in "ABCD":
        total = sum(stage.payoffs[player] for stage in history.stages if stage.payoffs)
        assert total == pytest.approx(history.payoffs[player])


def test_a_match_file_gives_the_episodes_history() -> None:
    document = match_document("prisoners_dilemma", PD_MOVES, rounds=3)
    history = history_from_match(document)
    episode = record_episode(
        load_game("prisoners_dilemma"),
        {"A": Scripted("CDD"), "B": Scripted("DDC")},
        seed=1,
        rounds=3,
    )
    assert history.stages == episode.stages, "the replay fills the same stage payoffs"
    assert history.payoffs == episode.payoffs and history.game_type == "prisoners_dilemma"


def test_a_sequential_game_records_one_mover_per_stage() -> None:
    document = match_document("ultimatum", [{"A": 3}, {"B": "accept"}])
    history = history_from_match(document)
    assert [s.moves for s in history.stages] == [{"A": 3}, {"B": "accept"}]
    assert history.stages[-1].payoffs == {"A": 7.0, "B": 3.0}


def test_a_draw_that_decided_the_payoffs_leaves_the_stage_payoffs_unknown() -> None:
    # Bargaining without a deal pays the private reservation values, drawn at reset.
    moves: list[dict[str, object]] = [{"A": 90}, {"B": "reject"}]
    history = history_from_match(match_document("bargaining", moves, max_rounds=1))
    assert all(stage.payoffs is None for stage in history.stages)
    deal = history_from_match(match_document("bargaining", [{"A": 40}, {"B": "accept"}]))
    assert deal.stages[-1].payoffs == {"A": 60.0, "B": 40.0}, "a deal does not depend on it"


def test_an_even_odd_match_file_is_one_stage_of_two_choices() -> None:
    document = {
        "match_id": "R2M1",
        "game_type": "even_odd",
        "players": [{"player_id": "P1"}, {"player_id": "P2"}],
        "result": {
            "game_result": {
                "status": "WIN",
                "winner_player_id": "P2",
                "drawn_number": 3,
                "choices": {"P1": "even", "P2": "odd"},
            }
        },
    }
    history = history_from_match(document)
    assert history.stages == (
        Stage(moves={"P1": "even", "P2": "odd"}, payoffs={"P1": -1.0, "P2": 1.0}),
    )


def test_a_technical_loss_has_no_history_to_analyse() -> None:
    document = match_document("prisoners_dilemma", PD_MOVES, rounds=3)
    document["result"]["game_result"]["status"] = "TECHNICAL_LOSS"
    with pytest.raises(AnalysisError, match="not played to its end"):
        history_from_match(document)


def test_an_inconsistent_history_is_refused() -> None:
    with pytest.raises(ValidationError, match="payoffs name"):
        History(game_type="prisoners_dilemma", players=("A", "B"), stages=(), payoffs={"A": 1.0})
    with pytest.raises(ValidationError, match="not all players"):
        History(
            game_type="prisoners_dilemma",
            players=("A", "B"),
            stages=(Stage(moves={"Z": "C"}),),
            payoffs={"A": 1.0, "B": 1.0},
        )


def test_a_file_that_seats_a_player_twice_is_refused_with_why() -> None:
    document = match_document("prisoners_dilemma", PD_MOVES, rounds=3)
    document["players"][1]["player_id"] = document["players"][0]["player_id"]
    with pytest.raises(AnalysisError, match="seats A more than once"):
        match_players(document)
    with pytest.raises(AnalysisError, match="cannot be told apart"):
        history_from_match(document)

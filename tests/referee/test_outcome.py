"""Outcomes and the league's points: every status under a non-default scoring."""

from __future__ import annotations

from games import even_odd, load_game
from match_engine.outcome import Fault, played_outcome, technical_outcome
from sdk.config import ScoringConfig

SCORING = ScoringConfig(win=2, draw=0.5, loss=-1, technical_loss=-3)


def test_a_played_win_scores_win_and_loss() -> None:
    state = even_odd.init_state(["P01", "P02"], seed=0)
    state.step({"P01": "even", "P02": "odd"})
    outcome = played_outcome(even_odd.SPEC, state)
    winner = state.winner
    assert winner is not None and outcome.winner == winner and outcome.status == "WIN"
    loser = "P02" if winner == "P01" else "P01"
    assert outcome.points(SCORING) == {winner: 2, loser: -1}
    result = outcome.match_result(SCORING)
    assert result.details["drawn_number"] == state.drawn_number
    assert state.drawn_number is not None
    assert outcome.game_result().number_parity == even_odd.parity_of(state.drawn_number).value


def test_a_played_draw_scores_draw_for_both() -> None:
    state = even_odd.init_state(["P01", "P02"], seed=0)
    state.step({"P01": "odd", "P02": "odd"})
    outcome = played_outcome(even_odd.SPEC, state)
    assert (outcome.status, outcome.winner) == ("DRAW", None)
    assert outcome.points(SCORING) == {"P01": 0.5, "P02": 0.5}
    assert "a draw" in outcome.reason


def test_one_fault_gives_the_other_player_the_win() -> None:
    fault = Fault("P02", "choose_parity", "E001", "no answer")
    outcome = technical_outcome(["P01", "P02"], {"P01": "even"}, [fault])
    assert (outcome.status, outcome.winner) == ("TECHNICAL_LOSS", "P01")
    assert outcome.points(SCORING) == {"P01": 2, "P02": -3}
    assert outcome.choices == {"P01": "even", "P02": None}
    assert outcome.game_result().drawn_number is None
    assert "P02: no answer" in outcome.reason


def test_two_faults_give_nobody_the_win() -> None:
    faults = [
        Fault("P01", "handle_game_invitation", "REFUSED", "refused"),
        Fault("P02", "handle_game_invitation", "E009", "unreachable"),
    ]
    outcome = technical_outcome(["P01", "P02"], {}, faults)
    assert outcome.winner is None and outcome.technical_losers == ["P01", "P02"]
    assert outcome.match_result(SCORING).score == {"P01": -3, "P02": -3}


def test_a_game_without_wire_fields_is_reported_by_its_payoffs_and_state() -> None:
    spec = load_game("prisoners_dilemma")
    state = spec.create(["P01", "P02"], rounds=1)
    state.reset(0)
    state.step({"P01": "C", "P02": "D"})
    outcome = played_outcome(spec, state)
    assert spec.wire_result is None and outcome.result_fields == {}
    assert outcome.game_result().model_dump()["payoffs"] == {"P01": 0.0, "P02": 5.0}
    assert outcome.game_result().drawn_number is None and outcome.game_state is not None
    assert outcome.reason == "payoffs P01 0, P02 5: P02 wins"

"""Normal-form games: every constructor gives the same array, and bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from games import prisoners_dilemma, rock_paper_scissors
from games.analysis.errors import AnalysisError
from games.analysis.normal_form import NormalFormGame, check_strategy
from games.matrix_games import PRISONERS_DILEMMA


def test_a_table_game_and_its_repeated_form_make_the_same_stage_game() -> None:
    from_table = NormalFormGame.from_table(prisoners_dilemma.TABLE)
    from_matrix = NormalFormGame.from_matrix_game(PRISONERS_DILEMMA)
    np.testing.assert_array_equal(from_table.payoffs, from_matrix.payoffs)
    assert from_table.actions == (("C", "D"), ("C", "D"))
    assert from_table.payoffs[1, 0].tolist() == [5.0, 0.0], "D against C: temptation"


def test_rock_paper_scissors_from_its_table_is_zero_sum() -> None:
    game = NormalFormGame.from_table(rock_paper_scissors.TABLE)
    assert np.all(game.payoffs.sum(axis=-1) == 0)
    assert game.actions[0] == rock_paper_scissors.ACTIONS


def test_action_values_and_expected_payoffs_of_three_players() -> None:
    rng = np.random.default_rng(0)
    game = NormalFormGame.from_arrays([rng.random((2, 3, 4)) for _ in range(3)])
    profile = [rng.dirichlet(np.ones(n)) for n in game.shape]
    brute = np.einsum("abcp,a,b,c->p", game.payoffs, *profile)
    np.testing.assert_allclose(game.expected_payoffs(profile), brute)
    np.testing.assert_allclose(
        game.action_values(profile, 1),
        np.einsum("abc,a,c->b", game.payoff_array(1), profile[0], profile[2]),
    )


def test_the_symmetric_game_of_a_population_matrix() -> None:
    game = NormalFormGame.symmetric([[1, 2], [3, 4]], ["x", "y"])
    assert game.payoffs[0, 1].tolist() == [2.0, 3.0]
    assert game.actions == (("x", "y"), ("x", "y"))


def test_the_payoff_array_is_read_only() -> None:
    game = NormalFormGame.zero_sum([[1, -1], [-1, 1]])
    with pytest.raises(ValueError):
        game.payoffs[0, 0, 0] = 5


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: NormalFormGame.bimatrix([[1, 2]], [[1], [2]]), "one shape"),
        (lambda: NormalFormGame.bimatrix([[np.nan]], [[0]]), "finite"),
        (lambda: NormalFormGame(np.zeros((2, 2, 3)), (("a", "b"), ("a", "b"))), "one axis"),
        (lambda: NormalFormGame(np.zeros((2, 2, 2)), (("a",), ("a", "b"))), "do not match"),
        (lambda: NormalFormGame.symmetric([[1, 2, 3]]), "square"),
    ],
)
def test_malformed_games_are_refused_with_a_sentence(build, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        build()


@pytest.mark.parametrize(
    ("strategy", "message"),
    [
        ([0.5, 0.5, 0.0], "needs 2"),
        ([1.5, -0.5], "negative"),
        ([0.2, 0.2], "sum to 0.4"),
    ],
)
def test_strategies_that_are_not_distributions_are_refused(
    strategy: list[float], message: str
) -> None:
    with pytest.raises(AnalysisError, match=message):
        check_strategy(strategy, 2)


def test_a_profile_of_the_wrong_length_or_an_unknown_player_is_refused() -> None:
    game = NormalFormGame.zero_sum([[1, -1], [-1, 1]])
    with pytest.raises(AnalysisError, match="2 strategies"):
        game.expected_payoffs([[1, 0]])
    with pytest.raises(AnalysisError, match="player 2"):
        game.payoff_array(2)


def test_the_normalised_game_puts_each_players_payoffs_on_zero_to_one() -> None:
    game = NormalFormGame.bimatrix([[1e6 + 3, 1e6], [1e6 + 5, 1e6 + 1]], [[7, 7], [7, 7]])
    unit = game.normalised()
    np.testing.assert_allclose(unit.payoff_array(0), [[0.6, 0], [1, 0.2]])
    np.testing.assert_array_equal(unit.payoff_array(1), 0, "an indifferent player: all 0")
    np.testing.assert_array_equal(game.spreads, [5, 1])
    assert unit.actions == game.actions and unit.scale == 1

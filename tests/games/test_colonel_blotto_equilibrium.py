"""Colonel Blotto's exact equilibrium: every allocation, the payoff matrix the game scores,
and a mix that no allocation exploits."""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest

from games import colonel_blotto_equilibrium
from games.colonel_blotto import DEFAULT_PARAMETERS, SPEC
from games.colonel_blotto_equilibrium import (
    MAX_SOLVED_ALLOCATIONS,
    allocation_count,
    allocations,
    payoff_matrix,
    symmetric_equilibrium,
)
from games.spec import ActionSpace

DEFAULT = (DEFAULT_PARAMETERS["battlefields"], DEFAULT_PARAMETERS["troops"])
SMALL_GAMES = [DEFAULT, (3, 6), (4, 8), (5, 5), (2, 7), (1, 4)]


@pytest.mark.parametrize(("battlefields", "troops"), SMALL_GAMES)
def test_allocations_are_every_legal_one_once_in_order(battlefields: int, troops: int) -> None:
    found = allocations(battlefields, troops)
    legal = [
        play
        for play in itertools.product(range(troops + 1), repeat=battlefields)
        if sum(play) == troops
    ]
    assert list(found) == legal, "every allocation, in lexicographic order"
    assert len(found) == allocation_count(battlefields, troops)
    space = ActionSpace.allocation(size=battlefields, total=troops)
    assert all(space.contains(list(play)) for play in found)


def test_the_default_game_has_66_allocations() -> None:
    assert allocation_count(*DEFAULT) == 66


@pytest.mark.parametrize(("battlefields", "troops"), [DEFAULT, (4, 5)])
def test_the_payoff_matrix_is_what_the_game_scores(battlefields: int, troops: int) -> None:
    plays, matrix = allocations(battlefields, troops), payoff_matrix(battlefields, troops)
    np.testing.assert_array_equal(matrix, -matrix.T, "symmetric and zero-sum")
    for i, j in itertools.product(range(0, len(plays), 5), range(0, len(plays), 3)):
        state = SPEC.create(["A", "B"], battlefields=battlefields, troops=troops)
        state.step({"A": list(plays[i]), "B": list(plays[j])})
        assert matrix[i, j] == state.returns()["A"], (plays[i], plays[j])


@pytest.mark.parametrize(("battlefields", "troops"), SMALL_GAMES)
def test_no_allocation_wins_anything_against_the_mix(battlefields: int, troops: int) -> None:
    mix = symmetric_equilibrium(battlefields, troops)
    probabilities = np.array(mix.probabilities)
    assert mix.allocations == allocations(battlefields, troops)
    assert probabilities.min() >= 0 and probabilities.sum() == pytest.approx(1, abs=1e-12)
    # The game's value is 0: the best pure response's gain over it is the exploitability.
    exploitability = float((payoff_matrix(battlefields, troops) @ probabilities).max())
    assert exploitability < 1e-9


def test_the_mix_is_solved_once_per_parameters() -> None:
    assert symmetric_equilibrium(*DEFAULT) is symmetric_equilibrium(*DEFAULT)


def test_games_too_large_to_solve_are_refused() -> None:
    assert allocation_count(4, 21) > MAX_SOLVED_ALLOCATIONS >= allocation_count(4, 20)
    with pytest.raises(ValueError, match="2024 allocations"):
        symmetric_equilibrium(4, 21)


def test_the_module_examples_run() -> None:
    assert doctest.testmod(colonel_blotto_equilibrium).failed == 0

"""Equilibria by pygambit: the known games, the whole set of degenerate ones, the ε-Nash
property on random games, the time bound of every call, and answers that do not depend on
the payoffs' scale."""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from games.analysis.equilibria import (
    Equilibrium,
    EquilibriumSet,
    all_equilibria,
    one_equilibrium,
)
from games.analysis.errors import AnalysisError, SolverTimeoutError
from games.analysis.exploitability import nash_conv
from games.analysis.nash_subsets import distance_to_nash
from games.analysis.normal_form import NormalFormGame
from games.analysis.solver_process import SolverProcess
from tests.games.analysis.conftest import (
    BATTLE_OF_THE_SEXES,
    DEGENERATE,
    MATCHING_PENNIES,
    PRISONERS_DILEMMA,
    REFERENCE_GAMES,
    ROCK_PAPER_SCISSORS,
    SCALINGS,
    affine,
)

F = Fraction


def exact(found: EquilibriumSet) -> list[tuple[tuple[Fraction, ...], ...]]:
    assert all(e.exact is not None for e in found.equilibria), "solved in rational arithmetic"
    return [e.exact for e in found.equilibria if e.exact is not None]


def test_matching_pennies_has_one_equilibrium_half_half(solver: SolverProcess) -> None:
    found = all_equilibria(MATCHING_PENNIES, rational=True, solver=solver)
    assert exact(found) == [((F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)))]
    assert found.isolated and found.equilibria[0].payoffs == (0.0, 0.0)


def test_rock_paper_scissors_has_only_the_uniform_equilibrium(solver: SolverProcess) -> None:
    found = all_equilibria(ROCK_PAPER_SCISSORS, rational=True, solver=solver)
    third = (F(1, 3),) * 3
    assert exact(found) == [(third, third)]


def test_battle_of_the_sexes_has_its_three_equilibria(solver: SolverProcess) -> None:
    found = all_equilibria(BATTLE_OF_THE_SEXES, rational=True, solver=solver)
    assert sorted(exact(found)) == sorted(
        [
            ((F(1), F(0)), (F(1), F(0))),
            ((F(0), F(1)), (F(0), F(1))),
            ((F(3, 5), F(2, 5)), (F(2, 5), F(3, 5))),
        ]
    )
    payoffs = sorted(e.payoffs for e in found.equilibria)
    np.testing.assert_allclose(payoffs, [(1.2, 1.2), (2.0, 3.0), (3.0, 2.0)])
    assert found.isolated and len(found.subsets) == 3


def test_prisoners_dilemma_has_only_mutual_defection(solver: SolverProcess) -> None:
    found = all_equilibria(PRISONERS_DILEMMA, solver=solver)
    assert [e.strategies for e in found.equilibria] == [((0.0, 1.0), (0.0, 1.0))]


def test_a_degenerate_game_gives_its_segment_and_its_isolated_equilibrium(
    solver: SolverProcess,
) -> None:
    found = all_equilibria(DEGENERATE, rational=True, solver=solver)
    assert sorted(exact(found)) == sorted(
        [
            ((F(1), F(0), F(0)), (F(1), F(0))),
            ((F(1), F(0), F(0)), (F(2, 3), F(1, 3))),
            ((F(0), F(1, 3), F(2, 3)), (F(1, 3), F(2, 3))),
        ]
    )
    assert not found.isolated
    segment = [s for s in found.subsets if len(s.columns) == 2]
    assert len(segment) == 1 and segment[0].rows == ((1.0, 0.0, 0.0),)
    # Every point of the segment is an equilibrium, at distance 0 from the set.
    middle = np.mean(np.array(segment[0].columns), axis=0)
    assert nash_conv(DEGENERATE, [[1, 0, 0], middle]).total == pytest.approx(0, abs=1e-12)
    assert distance_to_nash(
        DEGENERATE, [[1, 0, 0], middle], found.subsets
    ).distance == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 2)])
def test_a_constant_game_is_one_subset_of_everything(
    solver: SolverProcess, shape: tuple[int, int]
) -> None:
    game = NormalFormGame.bimatrix(np.full(shape, 2.0), np.full(shape, -1.0))
    found = all_equilibria(game, solver=solver, timeout=10)
    assert len(found.subsets) == 1, "the whole product of simplices is one Nash subset"
    subset = found.subsets[0]
    assert sorted(subset.rows) == sorted(map(tuple, np.eye(shape[0]).tolist()))
    assert sorted(subset.columns) == sorted(map(tuple, np.eye(shape[1]).tolist()))
    anywhere = [np.full(shape[0], 1 / shape[0]), np.full(shape[1], 1 / shape[1])]
    assert distance_to_nash(game, anywhere, found.subsets).distance == pytest.approx(0)


def degenerate_games() -> list[tuple[str, NormalFormGame]]:
    rng = np.random.default_rng(3)
    twice = rng.integers(0, 3, (4, 8))
    return [
        (
            "duplicated rows",
            NormalFormGame.bimatrix(np.vstack([twice, twice]), rng.integers(0, 3, (8, 8))),
        ),
        (
            "payoffs in {0, 1}",
            NormalFormGame.bimatrix(rng.integers(0, 2, (8, 8)), rng.integers(0, 2, (8, 8))),
        ),
        (
            "one player indifferent",
            NormalFormGame.bimatrix(np.ones((6, 6)), rng.integers(0, 4, (6, 6))),
        ),
        ("zero-sum with ties", NormalFormGame.zero_sum(rng.integers(-1, 2, (7, 7)))),
    ]


@pytest.mark.parametrize(
    ("name", "game"), [pytest.param(name, game, id=name) for name, game in degenerate_games()]
)
def test_degenerate_games_finish_within_their_bound_with_valid_equilibria(
    solver: SolverProcess, name: str, game: NormalFormGame
) -> None:
    found = all_equilibria(game, solver=solver, timeout=20)
    assert found.equilibria and found.subsets, name
    for equilibrium in found.equilibria:
        assert nash_conv(game, equilibrium.profile()).epsilon <= 1e-6
    one = one_equilibrium(game, solver=solver, timeout=20)
    assert distance_to_nash(game, one.profile(), found.subsets).distance <= 1e-6, (
        "LCP's equilibrium lies in the set enummixed describes"
    )


def test_lcp_finds_one_of_the_equilibria(solver: SolverProcess) -> None:
    one = one_equilibrium(BATTLE_OF_THE_SEXES, rational=True, solver=solver)
    everything = all_equilibria(BATTLE_OF_THE_SEXES, rational=True, solver=solver)
    assert one.exact in exact(everything)


def test_more_than_two_players_is_refused_with_the_way_out(solver: SolverProcess) -> None:
    three = NormalFormGame.from_arrays([np.zeros((2, 2, 2))] * 3)
    with pytest.raises(AnalysisError, match="approximate_equilibrium"):
        all_equilibria(three, solver=solver)


small_games = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
    lambda shape: st.tuples(
        *(
            st.lists(st.integers(-3, 3), min_size=shape[0] * shape[1], max_size=shape[0] * shape[1])
            for _ in range(2)
        ),
        st.just(shape),
    )
)


@settings(max_examples=40, deadline=None)
@given(small_games)
def test_every_equilibrium_of_a_random_game_is_an_equilibrium_and_holds_every_pure_one(
    solver: SolverProcess, data: tuple[list[int], list[int], tuple[int, int]]
) -> None:
    row, column, shape = data
    game = NormalFormGame.bimatrix(np.reshape(row, shape), np.reshape(column, shape))
    found = all_equilibria(game, solver=solver, timeout=20)
    for equilibrium in found.equilibria:
        gains = nash_conv(game, equilibrium.profile()).gains
        assert max(gains) <= 1e-6, f"a pure deviation gains {gains}"
    # Small integer games are often degenerate: the pure equilibria lie in the set anyway.
    for i, j in itertools.product(range(shape[0]), range(shape[1])):
        pure = [np.eye(shape[0])[i], np.eye(shape[1])[j]]
        if max(nash_conv(game, pure).gains) == 0:
            assert distance_to_nash(game, pure, found.subsets).distance <= 1e-9, (i, j)
    one = one_equilibrium(game, solver=solver, timeout=20)
    assert max(nash_conv(game, one.profile()).gains) <= 1e-6


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1))
@example(84576393)
def test_random_real_games_agree_in_float_and_rational_arithmetic(
    solver: SolverProcess, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    game = NormalFormGame.bimatrix(rng.integers(0, 10, (3, 3)), rng.integers(0, 10, (3, 3)))
    floats = all_equilibria(game, solver=solver)
    rationals = all_equilibria(game, rational=True, solver=solver)
    assert len(floats.equilibria) == len(rationals.equilibria)

    def ordered(found: EquilibriumSet) -> list[np.ndarray]:
        """Sorted on values rounded to 9 decimals: 0.5000000000000001 must not sort after
        (0.5, 0.5, 0) where the exact 0.5 sorts before it (seed 84576393)."""
        profiles = [np.concatenate(e.strategies) for e in found.equilibria]
        return sorted(profiles, key=lambda p: tuple(np.round(p, 9)))

    for a, b in zip(ordered(floats), ordered(rationals), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)


def test_a_call_past_its_bound_is_stopped_and_names_the_bound() -> None:
    rng = np.random.default_rng(7)
    big = NormalFormGame.bimatrix(rng.random((16, 16)), rng.random((16, 16)))
    own = SolverProcess()
    try:
        started = time.monotonic()
        with pytest.raises(SolverTimeoutError, match=r"time bound of 0\.5 s") as caught:
            all_equilibria(big, solver=own, timeout=0.5, rational=True)
        assert caught.value.bound == 0.5
        assert time.monotonic() - started < 60, "the bound holds (start-up aside)"
        # The killed worker is replaced: the next call works.
        found = all_equilibria(MATCHING_PENNIES, solver=own, timeout=30)
        np.testing.assert_allclose(np.concatenate(found.equilibria[0].strategies), 0.5)
    finally:
        own.close()


def test_a_bound_that_is_not_positive_is_refused(solver: SolverProcess) -> None:
    with pytest.raises(AnalysisError, match="positive"):
        all_equilibria(MATCHING_PENNIES, solver=solver, timeout=0)


def assert_same_equilibria(
    found: Sequence[Equilibrium],
    moved: Sequence[Equilibrium],
    factors: Sequence[float],
    shifts: Sequence[float],
) -> None:
    """The same profiles (in any order), and payoffs moved by the same affine map."""

    def ordered(equilibria: Sequence[Equilibrium]) -> list[Equilibrium]:
        return sorted(equilibria, key=lambda e: tuple(np.round(np.concatenate(e.strategies), 6)))

    assert len(found) == len(moved), [e.strategies for e in moved]
    for before, after in zip(ordered(found), ordered(moved), strict=True):
        np.testing.assert_allclose(
            np.concatenate(after.strategies), np.concatenate(before.strategies), atol=1e-9
        )
        expected = np.multiply(before.payoffs, factors) + shifts
        np.testing.assert_allclose(
            after.payoffs, expected, rtol=1e-9, atol=1e-9 * max(factors), err_msg="payoffs"
        )


@pytest.mark.parametrize(("factor", "shift"), SCALINGS)
@pytest.mark.parametrize("name", REFERENCE_GAMES)
def test_the_equilibria_do_not_depend_on_the_payoffs_scale(
    solver: SolverProcess, name: str, factor: float, shift: float
) -> None:
    game = REFERENCE_GAMES[name]
    factors, shifts = (factor, factor), (shift, shift)
    moved = affine(game, factors, shifts)
    assert_same_equilibria(
        all_equilibria(game, solver=solver).equilibria,
        all_equilibria(moved, solver=solver).equilibria,
        factors,
        shifts,
    )
    assert_same_equilibria(
        [one_equilibrium(game, solver=solver)],
        [one_equilibrium(moved, solver=solver)],
        factors,
        shifts,
    )


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(REFERENCE_GAMES)),
    st.lists(st.floats(-6, 6), min_size=2, max_size=2),
    st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=2),
)
def test_each_players_payoffs_may_be_moved_by_its_own_affine_map(
    solver: SolverProcess, name: str, exponents: list[float], offsets: list[float]
) -> None:
    game = REFERENCE_GAMES[name]
    # x ↦ factor·(x + offset): an offset up to 1e6 spreads costs the input 6 of its 16
    # digits, a larger one more than the solvers' tolerances can absorb.
    factors = [10.0**e for e in exponents]
    shifts = [f * o for f, o in zip(factors, offsets, strict=True)]
    moved = affine(game, factors, shifts)
    assert_same_equilibria(
        all_equilibria(game, solver=solver).equilibria,
        all_equilibria(moved, solver=solver).equilibria,
        factors,
        shifts,
    )
    assert_same_equilibria(
        [one_equilibrium(game, solver=solver)],
        [one_equilibrium(moved, solver=solver)],
        factors,
        shifts,
    )


def test_a_player_whose_payoffs_are_all_equal_is_indifferent(solver: SolverProcess) -> None:
    game = NormalFormGame.bimatrix(np.full((2, 2), 1e6), [[1, 0], [1, 0]])
    found = all_equilibria(game, solver=solver)
    assert len(found.subsets) == 1, "the row player may mix anyhow against the first column"
    assert sorted(found.subsets[0].rows) == [(0.0, 1.0), (1.0, 0.0)]
    assert found.subsets[0].columns == ((1.0, 0.0),)

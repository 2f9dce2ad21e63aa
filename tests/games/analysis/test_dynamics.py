"""Population dynamics: the replicator stays on the simplex and finds the known outcomes;
the Moran process keeps its population and fixates as often as the exact formula says."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.analysis.dynamics import fixation_probability, moran_process, replicator_dynamics
from games.analysis.errors import AnalysisError
from games.strategies import build
from games.tournament import round_robin

HAWK_DOVE = [[-1, 2], [0, 1]]  # the mixed state (1/2, 1/2) is stable
PD_POPULATION = [[3, 0], [5, 1]]  # cooperators against defectors


def test_defectors_take_over_a_prisoners_dilemma_population() -> None:
    trajectory = replicator_dynamics(PD_POPULATION, initial=[0.99, 0.01], time=50, names=["C", "D"])
    assert trajectory.final["D"] > 0.999
    assert np.all(np.diff(trajectory.shares[:, 1]) >= -1e-12), "defectors never shrink"


def test_hawk_dove_settles_on_its_mixed_state() -> None:
    trajectory = replicator_dynamics(HAWK_DOVE, initial=[0.1, 0.9], time=40)
    np.testing.assert_allclose(trajectory.shares[-1], [0.5, 0.5], atol=1e-6)
    assert trajectory.times[0] == 0 and trajectory.times[-1] == 40


def test_a_tournament_feeds_the_dynamics_with_its_names() -> None:
    players = [
        build("prisoners_dilemma", name)
        for name in ("always_cooperate", "always_defect", "tit_for_tat")
    ]
    result = round_robin("prisoners_dilemma", players, turns=50, seed=0)
    trajectory = replicator_dynamics(result, time=200)
    assert trajectory.names == result.names
    # Defectors feed on the cooperators first, then die out against tit for tat; the two
    # cooperative strategies are neutral to each other once the defectors are gone.
    assert trajectory.final["always_defect"] < 1e-9
    assert trajectory.final["tit_for_tat"] > trajectory.final["always_cooperate"] > 0.1


matrices = st.integers(2, 4).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-5, 5), min_size=n * n, max_size=n * n).map(
            lambda values: np.reshape(values, (n, n))
        ),
        st.lists(st.floats(0.01, 1), min_size=n, max_size=n),
    )
)


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_the_replicator_trajectory_stays_on_the_simplex(
    data: tuple[np.ndarray, list[float]],
) -> None:
    matrix, weights = data
    start = np.array(weights) / sum(weights)
    trajectory = replicator_dynamics(matrix, initial=start, time=10, steps=50)
    assert np.all(trajectory.shares >= 0)
    np.testing.assert_allclose(trajectory.shares.sum(axis=1), 1.0, atol=1e-12)


def test_the_moran_process_keeps_its_size_and_repeats_with_its_seed() -> None:
    first = moran_process(HAWK_DOVE, [5, 5], seed=3, max_steps=500)
    again = moran_process(HAWK_DOVE, [5, 5], seed=3, max_steps=500)
    np.testing.assert_array_equal(first.counts, again.counts)
    assert np.all(first.counts.sum(axis=1) == 10) and np.all(first.counts >= 0)


def test_without_mutation_the_process_stops_at_fixation() -> None:
    result = moran_process(PD_POPULATION, {"D": 9, "C": 1}, names=["C", "D"], seed=1)
    assert result.fixated is not None and result.final[result.fixated] == 10
    assert result.steps == len(result.counts) - 1


def test_mutation_keeps_the_process_going_to_its_bound() -> None:
    result = moran_process(PD_POPULATION, [9, 1], mutation=0.2, max_steps=300, seed=2)
    assert result.steps == 300


def test_neutral_drift_fixates_one_mutant_with_probability_one_over_n() -> None:
    assert fixation_probability(PD_POPULATION, 0, 1, 8, intensity=0) == pytest.approx(1 / 8)


def test_simulated_fixation_matches_the_exact_probability() -> None:
    matrix = [[2.0, 1.0], [1.5, 1.2]]
    exact = fixation_probability(matrix, 0, 1, 6, intensity=1.0)
    runs = 1500
    rng = np.random.default_rng(0)
    wins = sum(
        moran_process(matrix, [1, 5], seed=int(rng.integers(2**31))).fixated == "0"
        for _ in range(runs)
    )
    assert wins / runs == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / runs))


def test_bad_populations_are_refused() -> None:
    with pytest.raises(AnalysisError, match="at least two"):
        moran_process(HAWK_DOVE, [1, 0])
    with pytest.raises(AnalysisError, match="no strategy Z"):
        moran_process(HAWK_DOVE, {"Z": 3})
    with pytest.raises(AnalysisError, match="square"):
        replicator_dynamics([[1, 2, 3]])
    with pytest.raises(AnalysisError, match="two different"):
        fixation_probability(HAWK_DOVE, 1, 1, 5)

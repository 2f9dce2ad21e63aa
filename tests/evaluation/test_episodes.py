"""Built-in agents play through the match engine: a built-in strategy that fails a move is
treated as a player host treats one (a random legal move in its place, the episode played
to its end), and those draws repeat with the suite's seed."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from games import Action, ActionSpace
from games.strategies import Classifier, ObservationBaseline, observation_registry
from league_cli.evaluation.report import evaluate as run_evaluation
from league_cli.evaluation.suite_file import load_suite
from tests.evaluation.conftest import base_suite

ROUNDS = 6


class Raiser(ObservationBaseline):
    """Fails every move with an exception, as a buggy strategy would."""

    name = "raiser"
    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=False)

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        raise RuntimeError("a bug in the strategy")


class Overspender(ObservationBaseline):
    """Contributes more than it holds: an illegal move every round."""

    name = "overspender"
    classifier: ClassVar[Classifier] = Classifier(memory_depth=0, stochastic=False)

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        return int(space.high) + 1


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The failing strategies play the public goods game for this test only."""
    by_name = observation_registry._BY_GAME["public_goods"]
    for cls in (Raiser, Overspender):
        monkeypatch.setitem(by_name, cls.name, cls)
    yield


@pytest.mark.usefixtures("registered")
@pytest.mark.parametrize("strategy", ["raiser", "overspender"])
def test_a_built_in_agent_that_fails_its_moves_is_given_random_legal_ones(
    strategy: str, write_suite: Callable[..., Path]
) -> None:
    suite = load_suite(
        write_suite(
            base_suite(
                game={"type": "public_goods", "params": {"rounds": ROUNDS}},
                agents=[
                    {"id": "me", "strategy": strategy},
                    {"id": "you", "strategy": "full_contributor"},
                ],
                episodes=4,
                metrics=[{"name": "average_payoff"}],
            )
        )
    )
    found = run_evaluation(suite, "x", parallel=2)
    assert [e.failure for e in found.episodes] == [None] * 4
    assert all(len(h.stages) == ROUNDS for h in found.histories)
    endowment = found.histories[0].parameters["endowment"]
    mine = [stage.moves["me"] for h in found.histories for stage in h.stages]
    assert all(isinstance(m, int) and 0 <= m <= endowment for m in mine), mine
    assert len(set(mine)) > 1, f"drawn at random, not one default move: {mine}"
    theirs = {stage.moves["you"] for h in found.histories for stage in h.stages}
    assert theirs == {endowment}, "the sound agent plays its own strategy"

    again = run_evaluation(suite, "x", parallel=1)
    assert [h.model_dump() for h in again.histories] == [h.model_dump() for h in found.histories]

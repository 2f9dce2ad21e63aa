"""Checks every registered game passes: random legal play ends, seeds repeat, observations
hide what they must, payoffs stay in bounds."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games import GameSpec, GameState, registered_games

SPECS = registered_games()


def _players(spec: GameSpec) -> list[str]:
    return [f"P{index:02d}" for index in range(1, spec.min_players + 1)]


def _random_moves(state: GameState, policy: random.Random) -> dict[str, Any]:
    """A uniform legal move for each acting player, drawn from its action space (choices,
    numbers and allocations alike)."""
    return {p: state.action_space(p).sample(policy) for p in state.acting_players()}


def _play(spec: GameSpec, seed: int, policy_seed: int) -> list[dict[str, Any]]:
    """Random legal play to the end; the trajectory of full states."""
    policy = random.Random(policy_seed)
    players = _players(spec)
    state = spec.create(players)
    state.reset(seed)
    trajectory = [state.to_json()]
    for _ in range(1_000):
        if state.is_terminal():
            return trajectory
        state.step(_random_moves(state, policy))
        trajectory.append(state.to_json())
    raise AssertionError(f"{spec.game_type} did not end within 1000 stages")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.game_type)
def test_random_legal_play_ends_with_payoffs_in_bounds(spec: GameSpec) -> None:
    low, high = spec.payoff_bounds
    for seed in range(25):
        _play(spec, seed, policy_seed=seed)
        state = spec.create(_players(spec))
        state.reset(seed)
        policy = random.Random(seed)
        while not state.is_terminal():
            for player in state.players:
                actions = state.legal_actions(player)
                assert actions == sorted(actions), f"{spec.game_type}: legal actions sorted"
                assert set(actions) <= set(spec.valid_choices), spec.game_type
            state.step(_random_moves(state, policy))
        returns = state.returns()
        assert all(low <= value <= high for value in returns.values()), returns
        if spec.zero_sum:
            assert sum(returns.values()) == 0, f"{spec.game_type} is declared zero-sum"
        json.dumps(state.to_json())


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.game_type)
def test_seeded_runs_repeat_exactly(spec: GameSpec) -> None:
    for seed in range(10):
        assert _play(spec, seed, 7) == _play(spec, seed, 7), f"{spec.game_type} seed {seed}"


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.game_type)
def test_observations_before_the_end_leak_no_chance(spec: GameSpec) -> None:
    """What a player sees before acting is the same whatever the seed: the draw to come
    cannot be read from it. Only the player's own private draw, under ``"private"`` (a
    private value in an auction), may differ: that one is the player's to see."""
    players = _players(spec)
    for player in players:
        views = []
        for seed in range(10):
            state = spec.create(players)
            state.reset(seed)
            view = state.observation(player)
            json.dumps(view)
            view.pop("private", None)
            views.append(view)
        assert all(view == views[0] for view in views), f"{spec.game_type}: {views}"

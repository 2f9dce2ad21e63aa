"""Baseline strategies of the congestion game (``congestion``): selfish_router,
social_optimum and epsilon_greedy.

The legal routes are the space's choices; their latency polynomials come from the
observation's ``routes``, the public loads and latencies of past rounds from its
``history``, this player's own past routes from ``own_choices``. Ties go to the route that
comes first by name.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.congestion import latency
from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline

__all__ = ["EpsilonGreedy", "SelfishRouter", "SocialOptimum", "optimal_loads"]

GAME_TYPES = ("congestion",)


def _best(costs: Mapping[str, float]) -> str:
    """The route of lowest cost, the first by name among equals."""
    return min(sorted(costs), key=lambda route: costs[route])


class SelfishRouter(ObservationBaseline):
    """Takes the route that would have been fastest for it last round, the others' loads
    unchanged: its own route at last round's load, any other at that load plus itself. In
    round 1 the route fastest with itself alone on it (latency at load 1).

    Known as myopic best response, the "selfish routing" of Roughgarden & Tardos (2002,
    "How bad is selfish routing?"). Congestion games have pure equilibria and one player
    improving at a time reaches one (Rosenthal 1973; Monderer & Shapley 1996); when every
    player responds at once, as here, the loads may oscillate instead.
    """

    name = "selfish_router"
    classifier = Classifier(memory_depth=1, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        routes = observation["routes"]
        history = observation.get("history") or []
        if not history:
            return _best({route: latency(routes[route], 1) for route in space.choices})
        loads, own = history[-1]["loads"], observation["own_choices"][-1]
        return _best(
            {
                route: latency(routes[route], loads[route] + int(route != own))
                for route in space.choices
            }
        )


def optimal_loads(routes: Mapping[str, Sequence[float]], players: int) -> dict[str, int]:
    """The loads that minimise the total latency Σ load·latency(load) of ``players``.

    Players are added one at a time to the route whose total grows least (ties: first by
    name). Each route's total is convex in its load (its coefficients are non-negative), so
    this greedy split is optimal.
    """
    loads = dict.fromkeys(sorted(routes), 0)
    for _ in range(players):
        growth = {
            route: (load + 1) * latency(routes[route], load + 1)
            - load * latency(routes[route], load)
            for route, load in loads.items()
        }
        loads[_best(growth)] += 1
    return loads


class SocialOptimum(ObservationBaseline):
    """Plays its part of the socially optimal split: computes the loads that minimise the
    total latency of ``num_players`` players (``optimal_loads``), lays them out over the
    routes in name order, and takes the route at its own seat. When every player runs it
    the loads are optimal exactly (Pigou's default network, 10 players: 5 and 5, total 75);
    it never adapts to players who do not.

    Known as the social (system) optimum, which selfish routing misses (Pigou 1920, "The
    Economics of Welfare"; Roughgarden & Tardos 2002 bound the loss by 4/3 for linear
    latencies).
    """

    name = "social_optimum"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        routes = {route: observation["routes"][route] for route in space.choices}
        loads = optimal_loads(routes, observation["num_players"])
        by_seat = [route for route, load in loads.items() for _ in range(load)]
        return by_seat[observation["seat"]]


class EpsilonGreedy(ObservationBaseline):
    """With probability ``epsilon`` takes a route uniformly at random; otherwise the route
    with the lowest average latency it experienced so far. Routes it has not taken yet come
    first (an optimistic start: each is tried once, by name).

    Known as ε-greedy action selection with sample averages (Sutton & Barto,
    "Reinforcement Learning: An Introduction", 2nd ed. 2018, §2.2–2.4).

    Args:
        epsilon: the exploration probability, from 0 to 1 (default 0.1).
    """

    name = "epsilon_greedy"
    classifier = Classifier(memory_depth=None, stochastic=True)
    game_types = GAME_TYPES

    def __init__(self, epsilon: float = 0.1):
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(
                f"epsilon_greedy: epsilon is a probability from 0 to 1, not {epsilon!r}"
            )
        self.epsilon = float(epsilon)

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if rng.random() < self.epsilon:
            return rng.choice(space.choices)
        experienced: dict[str, list[float]] = {route: [] for route in space.choices}
        for route, past in zip(
            observation.get("own_choices") or [], observation.get("history") or [], strict=False
        ):
            if route in experienced:
                experienced[route].append(past["latencies"][route])
        return _best(
            {
                route: sum(seen) / len(seen) if seen else float("-inf")
                for route, seen in experienced.items()
            }
        )

    def __repr__(self) -> str:
        return f"EpsilonGreedy(epsilon={self.epsilon})"

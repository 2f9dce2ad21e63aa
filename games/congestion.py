"""A congestion (routing) game (``congestion``, version 1): the more take a route, the slower.

Rules
    2 to 20 players each choose one route, all at the same time. A route's latency depends
    on its load (the number of players who chose it) through a polynomial with
    non-negative coefficients ``[c0, c1, c2, ...]``: ``latency(load) = c0 + c1·load +
    c2·load² + ...``. Each player's payoff is minus the latency of its own route. The game
    lasts ``rounds`` rounds; after each, every player sees the load and latency of every
    route (who chose what is never shown).

    The default network is Pigou's example for ten players: route ``"a"`` costs its load
    (``[0, 1]``), route ``"b"`` a constant 10 (``[10, 0]``). With ten players everyone on
    ``"a"`` is an equilibrium (latency 10 each, total 100), while five and five would cost
    5·5 + 5·10 = 75: selfish routing is a third worse than the optimum.

Actions
    A route name, exactly as in ``routes`` (``"a"``, ``"b"`` by default);
    ``legal_actions`` gives them sorted until the game is over, then ``[]``. The registry's
    ``valid_choices`` list the default network's routes.

Observation (``observation(player)``)
    ``player_id``, ``seat``, ``num_players``, ``routes`` (every latency polynomial),
    ``round`` (rounds played), ``rounds``, ``legal_actions``, ``history`` (per round played
    the ``loads`` and ``latencies`` by route), ``own_choices``, ``own_return``,
    ``terminal``. The other players' choices of the round are never shown, not even after
    it, only the loads.

Payoffs
    ``rewards()``: minus the latency of each player's route in the last round.
    ``returns()``: their sum over the rounds. General-sum. Bounds [-20, 0] with the default
    network and one round (twenty players on ``"a"``); in general ``rounds`` times the
    worst latency at full load.

Parameters (defaults)
    ``routes`` ``{"a": [0, 1], "b": [10, 0]}`` (1 to 20 routes, 1 to 5 coefficients each,
    each from 0 to 1000); ``rounds`` 1 (1 to 1000).

Randomness: none (``reset(seed)`` takes a seed for the common surface).

Version history
    1: polynomial latencies, public loads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide, MoveMeaning
from games.params import check_int, check_number
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_ID",
    "GAME_VERSION",
    "SPEC",
    "VERSIONED_ID",
    "CongestionState",
    "latency",
    "loads_of",
]

GAME_ID = "congestion"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Congestion Game"
MIN_PLAYERS, MAX_PLAYERS = 2, 20
SIMULTANEOUS = True
ZERO_SUM = False
MOVE_TYPE = "route_choice"
MAX_ROUTES, MAX_COEFFICIENTS, MAX_COEFFICIENT, MAX_ROUNDS = 20, 5, 1000.0, 1000
DEFAULT_ROUTES: dict[str, list[float]] = {"a": [0, 1], "b": [10, 0]}
DEFAULT_PARAMETERS: dict[str, Any] = {"routes": DEFAULT_ROUTES, "rounds": 1}


def latency(coefficients: Sequence[float], load: int) -> float:
    """``c0 + c1·load + c2·load² + ...``."""
    return float(sum(c * load**power for power, c in enumerate(coefficients)))


PAYOFF_BOUNDS = (-max(latency(c, MAX_PLAYERS) for c in DEFAULT_ROUTES.values()), 0.0)


def loads_of(choices: Sequence[str], routes: Sequence[str]) -> dict[str, int]:
    """How many players chose each route (0 for a route nobody took)."""
    counts = Counter(choices)
    return {route: counts[route] for route in routes}


def _check_routes(routes: object) -> dict[str, list[float]]:
    """The network as route → coefficients, if well formed.

    Raises:
        ValueError: not a mapping of 1 to 20 named routes to 1 to 5 numbers in 0..1000.
    """
    if not isinstance(routes, Mapping) or not 1 <= len(routes) <= MAX_ROUTES:
        raise ValueError(
            f"the parameter routes must map 1 to {MAX_ROUTES} route names to "
            f"latency coefficients, not {routes!r}"
        )
    checked: dict[str, list[float]] = {}
    for name, coefficients in routes.items():
        if not isinstance(name, str) or not name:
            raise ValueError(f"a route name must be a non-empty string, not {name!r}")
        if not isinstance(coefficients, (list, tuple)) or not (
            1 <= len(coefficients) <= MAX_COEFFICIENTS
        ):
            raise ValueError(
                f"route {name!r} needs a list of 1 to {MAX_COEFFICIENTS} "
                f"latency coefficients, not {coefficients!r}"
            )
        checked[name] = [
            check_number(f"routes[{name!r}]", c, 0.0, MAX_COEFFICIENT) for c in coefficients
        ]
    return checked


class CongestionState(Game):
    """One congestion game: players named by their ids choose routes, round after round."""

    def __init__(
        self,
        player_ids: Sequence[str],
        *,
        routes: Mapping[str, Sequence[float]] = DEFAULT_PARAMETERS["routes"],
        rounds: int = DEFAULT_PARAMETERS["rounds"],
    ):
        self._players = check_players(player_ids, MIN_PLAYERS, MAX_PLAYERS)
        self.routes = _check_routes(routes)
        self.rounds = check_int("rounds", rounds, 1, MAX_ROUNDS)
        self._space = ActionSpace.of_choices(sorted(self.routes))
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Round 1 with no history (no chance move: the seed changes nothing)."""
        self._choices: list[dict[str, str]] = []
        self._loads: list[dict[str, int]] = []

    def is_terminal(self) -> bool:
        return len(self._choices) == self.rounds

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        return NO_MOVE if self.is_terminal() else self._space

    def step(self, actions: Mapping[str, str]) -> None:
        """Every route choice of a round at once; then the loads.

        Raises:
            ValueError: the game is over, a player is missing or unknown, or a route is not
                in the network.
        """
        self._check_joint_action(actions)
        choices = {player: actions[player] for player in self._players}
        self._loads.append(loads_of(list(choices.values()), list(self.routes)))
        self._choices.append(choices)

    def _latencies(self, loads: Mapping[str, int]) -> dict[str, float]:
        return {route: latency(self.routes[route], load) for route, load in loads.items()}

    def _round_rewards(self, index: int) -> dict[str, float]:
        latencies = self._latencies(self._loads[index])
        return {p: 0.0 - latencies[route] for p, route in self._choices[index].items()}

    def rewards(self) -> dict[str, float]:
        if not self._choices:
            return dict.fromkeys(self._players, 0.0)
        return self._round_rewards(len(self._choices) - 1)

    def returns(self) -> dict[str, float]:
        totals = dict.fromkeys(self._players, 0.0)
        for index in range(len(self._choices)):
            for player, reward in self._round_rewards(index).items():
                totals[player] += reward
        return totals

    def _history(self) -> list[dict[str, Any]]:
        return [
            {"loads": dict(loads), "latencies": self._latencies(loads)} for loads in self._loads
        ]

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: the public loads, its own choices, never another's choice."""
        self._check_player(player)
        return {
            "player_id": player,
            "seat": self._players.index(player),
            "num_players": len(self._players),
            "routes": {route: list(c) for route, c in self.routes.items()},
            "round": len(self._choices),
            "rounds": self.rounds,
            "legal_actions": self.legal_actions(player),
            "history": self._history(),
            "own_choices": [choices[player] for choices in self._choices],
            "own_return": self.returns()[player],
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: every choice of every round, the loads, the returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "routes": {route: list(c) for route, c in self.routes.items()},
            "rounds": self.rounds,
            "choices": [dict(choices) for choices in self._choices],
            "history": self._history(),
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


GUIDE = Guide(
    rules=(
        "Each player chooses a route at the same time; the more players take a route, the "
        "longer it takes. By default route a takes as long as the number of players on it "
        "and route b always takes 10. Your payoff is minus the time your route takes, so "
        "higher (closer to 0) is better. After each round everyone sees how many took each "
        "route, never who."
    ),
    moves=(
        MoveMeaning("a", "route a", "by default its time is the number of players who take it."),
        MoveMeaning("b", "route b", "by default it always takes 10, however many take it."),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = GameSpec(
    game_type=GAME_ID,
    versioned_id=VERSIONED_ID,
    display_name=DISPLAY_NAME,
    rules_module=__name__,
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    simultaneous=SIMULTANEOUS,
    zero_sum=ZERO_SUM,
    move_types=(MOVE_TYPE,),
    valid_choices=tuple(sorted(DEFAULT_ROUTES)),
    payoff_bounds=PAYOFF_BOUNDS,
    new_state=CongestionState,
    parameters=DEFAULT_PARAMETERS,
    guide=GUIDE,
)

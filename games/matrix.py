"""Normal-form games (``matrix``, version 1): any payoff table, played once or repeated.

The machinery behind the two-by-two classics (``stag_hunt``, ``chicken``,
``battle_of_the_sexes``), ``rock_paper_scissors`` and ``prisoners_dilemma``: each of those
fixes a table here and registers itself; a table of your own goes through
``parse_table`` and ``MatrixState``.

Rules
    Every player picks one of its actions at the same time, without seeing the others'. The
    joint action is looked up in the payoff table. With ``rounds`` > 1 the stage repeats and
    everyone sees the history of earlier rounds. With ``noise`` p > 0 each chosen action is,
    with probability p, replaced by an action drawn uniformly from the player's *other*
    actions (a trembling hand): the table is read with what was actually played.

Parameters
    ``actions``
        Per player, its protocol strings: a list of lists in seat order, or one list that
        every player shares. Non-empty, distinct, no commas.
    ``payoffs``
        A mapping of comma-joined action profiles in seat order to a list of one payoff per
        player (``{"C,D": [0, 5], ...}``), or nested lists indexed by each player's action
        index, the innermost a payoff list (``payoffs[i][j] == [p1, p2]`` for 2 players).
        Every profile exactly once; payoffs are finite numbers.
    ``rounds`` (default 1)
        Stages to play, an integer ≥ 1.
    ``noise`` (default 0.0)
        The probability p in [0, 1] that a chosen action is replaced; draws come from the
        state's generator (seeded by ``reset``), players in seat order.
    ``discount`` (default 1.0)
        δ in (0, 1]: ``returns()`` is Σ δ^t · r_t over rounds t = 0, 1, …

Actions
    The player's protocol strings; ``legal_actions`` lists them sorted until the game is
    over, then ``[]``.

Observation (``observation(player)``, a dict)
    ``player_id``, ``seat``, ``players``, ``round`` (1-based round to play now, ``None``
    once over), ``rounds_played``, ``legal_actions``, ``history`` (one entry per finished
    round: ``actions``, what every player actually played after noise, by id; ``rewards``,
    that round's undiscounted payoffs by id; ``own_intended``, what this player chose),
    ``returns`` (everyone's, public since the table and the actions are), ``parameters``,
    ``terminal``. Nobody sees another player's intended action, and a round's moves are
    only seen once the round is resolved. The ``history`` list is new at every call; its
    entries are made once, when their round resolves, and shared by that player's later
    observations (read them, do not change them).

Payoffs
    ``rewards()``: the last round's payoffs, undiscounted. ``returns()``: Σ δ^t · r_t.
    ``payoff_bounds`` of a state: the table's bounds times Σ δ^t over its rounds.

Version history
    1: tables as mappings or nested lists, rounds, noise, discount.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.guide import Guide
from games.params import check_int, check_number, rng_for
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "GAME_ID",
    "GAME_VERSION",
    "MOVE_TYPE",
    "REPEAT_DEFAULTS",
    "VERSIONED_ID",
    "MatrixState",
    "PayoffTable",
    "parse_table",
    "table_game_spec",
    "two_player_table",
]

GAME_ID = "matrix"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
MOVE_TYPE = "action"
REPEAT_DEFAULTS: Mapping[str, Any] = {"rounds": 1, "noise": 0.0, "discount": 1.0}
"""The parameters every game built on this module takes, with their defaults."""

Profile = tuple[str, ...]


@dataclass(frozen=True)
class PayoffTable:
    """A validated normal-form table: each seat's actions, and the payoffs of every profile."""

    actions: tuple[tuple[str, ...], ...]
    payoffs: Mapping[Profile, tuple[float, ...]]

    @property
    def num_players(self) -> int:
        return len(self.actions)

    @property
    def bounds(self) -> tuple[float, float]:
        """The smallest and largest payoff anyone can get in one round."""
        values = [value for payoff in self.payoffs.values() for value in payoff]
        return min(values), max(values)

    @property
    def zero_sum(self) -> bool:
        return all(sum(payoff) == 0 for payoff in self.payoffs.values())

    def to_json(self) -> dict[str, Any]:
        """The table in the mapping form ``parse_table`` takes back."""
        return {
            "actions": [list(acts) for acts in self.actions],
            "payoffs": {
                ",".join(profile): list(payoff) for profile, payoff in self.payoffs.items()
            },
        }


def _parse_actions(actions: Any, num_players: int) -> tuple[tuple[str, ...], ...]:
    if not isinstance(actions, (list, tuple)) or not actions:
        raise ValueError(f"actions must be a non-empty list, got {actions!r}")
    per_seat = (
        [actions] * num_players if all(isinstance(a, str) for a in actions) else list(actions)
    )
    if len(per_seat) != num_players:
        raise ValueError(f"actions are given for {len(per_seat)} players, but {num_players} play")
    parsed = []
    for seat, acts in enumerate(per_seat):
        if (
            not isinstance(acts, (list, tuple))
            or not acts
            or not all(isinstance(a, str) and a and "," not in a for a in acts)
        ):
            raise ValueError(
                f"the actions of seat {seat} must be a non-empty list of "
                f"non-empty strings without commas, got {acts!r}"
            )
        if len(set(acts)) != len(acts):
            raise ValueError(f"the actions of seat {seat} repeat: {acts!r}")
        parsed.append(tuple(acts))
    return tuple(parsed)


def _parse_payoff(value: Any, profile: Profile, num_players: int) -> tuple[float, ...]:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != num_players
        or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            for x in value
        )
    ):
        raise ValueError(
            f"the payoff of {','.join(profile)} must be a list of "
            f"{num_players} finite numbers, got {value!r}"
        )
    return tuple(value)


def _from_nested(payoffs: Any, actions: tuple[tuple[str, ...], ...]) -> dict[str, Any]:
    """Nested lists (one level per seat) to the mapping form."""
    flat: dict[str, Any] = {}

    def walk(node: Any, prefix: Profile) -> None:
        if len(prefix) == len(actions):
            flat[",".join(prefix)] = node
            return
        seat_actions = actions[len(prefix)]
        if not isinstance(node, (list, tuple)) or len(node) != len(seat_actions):
            raise ValueError(
                f"the nested payoffs at {list(prefix)} must list "
                f"{len(seat_actions)} entries, one per action of seat "
                f"{len(prefix)}, got {node!r}"
            )
        for action, child in zip(seat_actions, node, strict=True):
            walk(child, (*prefix, action))

    walk(payoffs, ())
    return flat


def parse_table(actions: Any, payoffs: Any, num_players: int) -> PayoffTable:
    """A checked table from the ``actions`` and ``payoffs`` parameters (see the module doc).

    Raises:
        ValueError: malformed actions, a payoff that is not one finite number per player,
            an unknown profile, or a profile missing.
    """
    parsed_actions = _parse_actions(actions, num_players)
    if isinstance(payoffs, (list, tuple)):
        payoffs = _from_nested(payoffs, parsed_actions)
    if not isinstance(payoffs, Mapping):
        raise ValueError(f"payoffs must be a mapping or nested lists, got {payoffs!r}")
    table: dict[Profile, tuple[float, ...]] = {}
    for key, value in payoffs.items():
        profile = tuple(part.strip() for part in str(key).split(","))
        if len(profile) != num_players or not all(
            action in parsed_actions[seat] for seat, action in enumerate(profile)
        ):
            raise ValueError(
                f"{key!r} is not a profile of {num_players} actions, one per "
                f"seat from {[list(a) for a in parsed_actions]}"
            )
        if profile in table:
            raise ValueError(f"the payoff of {','.join(profile)} is given twice")
        table[profile] = _parse_payoff(value, profile, num_players)
    missing = [",".join(p) for p in itertools.product(*parsed_actions) if p not in table]
    if missing:
        raise ValueError(f"the payoffs of {', '.join(missing)} are missing")
    ordered = {p: table[p] for p in itertools.product(*parsed_actions)}
    return PayoffTable(parsed_actions, ordered)


def _check_discount(discount: object) -> float:
    value = check_number("discount", discount, 0.0, 1.0)
    if value == 0:
        raise ValueError(
            "the parameter discount must be above 0: a zero discount would "
            "ignore every round after the first"
        )
    return value


class MatrixState(Game):
    """One play of a normal-form table, once or repeated, between players named by id."""

    def __init__(
        self,
        player_ids: Sequence[str],
        table: PayoffTable,
        *,
        versioned_id: str = VERSIONED_ID,
        rounds: int = 1,
        noise: float = 0.0,
        discount: float = 1.0,
    ):
        self._players = check_players(player_ids, table.num_players, table.num_players)
        self._table, self._versioned_id = table, versioned_id
        self._rounds = check_int("rounds", rounds, 1)
        self._noise = check_number("noise", noise, 0.0, 1.0)
        self._discount = _check_discount(discount)
        # Made once: the engine asks for a seat's space several times a move.
        self._spaces = {
            player: ActionSpace.of_choices(table.actions[seat])
            for seat, player in enumerate(self._players)
        }
        self.reset()

    @property
    def table(self) -> PayoffTable:
        return self._table

    @property
    def payoff_bounds(self) -> tuple[float, float]:
        """Bounds of ``returns()`` for this state's table, rounds and discount."""
        weight = sum(self._discount**t for t in range(self._rounds))
        low, high = self._table.bounds
        return low * weight, high * weight

    def reset(self, seed: int | None = None) -> None:
        """A fresh game; ``None`` → cryptographic randomness, a seed → exact repetition."""
        self._rng = rng_for(seed)
        self._intended: list[dict[str, str]] = []
        self._played: list[dict[str, str]] = []
        self._rewards: list[dict[str, float]] = []
        self._returns = dict.fromkeys(self._players, 0.0)
        # Each player's history entries, made once as its round resolves: an observation
        # lists them (a repeated game's every move would otherwise copy the whole history
        # again, the most of an episode's cost). Each player's entries are its own.
        self._seen: dict[str, list[dict[str, Any]]] = {p: [] for p in self._players}

    def is_terminal(self) -> bool:
        return len(self._played) >= self._rounds

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        if self.is_terminal():
            return NO_MOVE
        return self._spaces[player]

    def _tremble(self, seat: int, action: str) -> str:
        """``action``, or with probability ``noise`` one of the seat's other actions."""
        others = [a for a in self._table.actions[seat] if a != action]
        if self._noise > 0 and others and self._rng.random() < self._noise:
            return self._rng.choice(others)
        return action

    def step(self, actions: Mapping[str, str]) -> None:
        """Everyone's action at once; noise applied in seat order, then the table read.

        Raises:
            ValueError: the game is over, a player is missing or unknown, or an action is
                not one of that player's.
        """
        self._check_joint_action(actions)
        intended = {p: actions[p] for p in self._players}
        played = {p: self._tremble(seat, intended[p]) for seat, p in enumerate(self._players)}
        payoff = self._table.payoffs[tuple(played[p] for p in self._players)]
        rewards = dict(zip(self._players, map(float, payoff), strict=True))
        weight = self._discount ** len(self._played)
        for player, reward in rewards.items():
            self._returns[player] += weight * reward
        self._intended.append(intended)
        self._played.append(played)
        self._rewards.append(rewards)
        for player, seen in self._seen.items():
            seen.append(
                {
                    "actions": dict(played),
                    "rewards": dict(rewards),
                    "own_intended": intended[player],
                }
            )

    def rewards(self) -> dict[str, float]:
        return dict(self._rewards[-1]) if self._rewards else dict.fromkeys(self._players, 0.0)

    def returns(self) -> dict[str, float]:
        return dict(self._returns)

    def parameters(self) -> dict[str, Any]:
        """The parameters this state was built with, JSON-ready."""
        return {
            **self._table.to_json(),
            "rounds": self._rounds,
            "noise": self._noise,
            "discount": self._discount,
        }

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: resolved rounds as played, its own intentions, no one else's."""
        self._check_player(player)
        played = len(self._played)
        return {
            "player_id": player,
            "seat": self._players.index(player),
            "players": list(self._players),
            "round": None if self.is_terminal() else played + 1,
            "rounds_played": played,
            "legal_actions": self.legal_actions(player),
            "history": list(self._seen[player]),
            "returns": self.returns(),
            "parameters": self.parameters(),
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: every intended and played action, rewards, returns."""
        return {
            "game_id": self._versioned_id,
            "players": list(self._players),
            "parameters": self.parameters(),
            "history": [
                {"intended": dict(i), "actions": dict(a), "rewards": dict(r)}
                for i, a, r in zip(self._intended, self._played, self._rewards, strict=True)
            ],
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


def table_game_spec(
    table: PayoffTable,
    *,
    game_type: str,
    version: int,
    display_name: str,
    rules_module: str,
    guide: Guide | None = None,
) -> GameSpec:
    """The spec of a game that fixes ``table`` and takes only the repeat parameters, so a
    classic is one table and one line of registration."""
    versioned_id = f"{game_type}_v{version}"

    def new_state(
        player_ids: Sequence[str], *, rounds: int, noise: float, discount: float
    ) -> MatrixState:
        return MatrixState(
            player_ids,
            table,
            versioned_id=versioned_id,
            rounds=rounds,
            noise=noise,
            discount=discount,
        )

    return GameSpec(
        game_type=game_type,
        versioned_id=versioned_id,
        display_name=display_name,
        rules_module=rules_module,
        min_players=table.num_players,
        max_players=table.num_players,
        simultaneous=True,
        zero_sum=table.zero_sum,
        move_types=(MOVE_TYPE,),
        valid_choices=tuple(sorted({a for acts in table.actions for a in acts})),
        payoff_bounds=table.bounds,
        new_state=new_state,
        parameters=dict(REPEAT_DEFAULTS),
        guide=guide,
    )


def two_player_table(spec: GameSpec, params: Mapping[str, Any] | None = None) -> PayoffTable | None:
    """The payoff table ``spec`` plays with ``params``, if it is a two-player matrix game
    (None for any other game).

    Raises:
        ValueError: ``params`` are refused by the game.
    """
    if not spec.min_players <= 2 <= spec.max_players:
        return None
    state = spec.create(["first", "second"], **(params or {}))
    if isinstance(state, MatrixState) and state.table.num_players == 2:
        return state.table
    return None

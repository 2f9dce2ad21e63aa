"""What every game module declares about itself, and the state surface every game offers.

A referee or a batch runner needs only these types: ``GameSpec`` says what the game is
(players, moves, parameters, payoff bounds) and builds states; ``GameState`` is the small
surface of one episode, in the style of OpenSpiel and PettingZoo's parallel environments;
``ActionSpace`` says what a player may play now: one of finite choices, a number (a bid, an
offer), or an allocation (troops over battlefields). ``Game`` gives a game's class the parts
that are the same everywhere. ``WireResult`` is how a game whose GAME_OVER the protocol
itself defines (even/odd) states its end in the protocol's fields.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from games.guide import Guide

__all__ = [
    "NO_MOVE",
    "Action",
    "ActionSpace",
    "Game",
    "GameSpec",
    "GameState",
    "WireResult",
    "check_players",
]

Action = Any
"""A move as it travels: a protocol string ("even", "C"), a number (a bid) or a JSON list (an
allocation). Names appear in logs; the wire carries these values."""


@dataclass(frozen=True)
class ActionSpace:
    """What one player may play at the current stage."""

    kind: Literal["choice", "number", "allocation"]
    choices: tuple[Action, ...] = ()
    low: float = 0.0
    high: float = 0.0
    integer: bool = False
    size: int = 0
    total: int = 0

    @classmethod
    def of_choices(cls, choices: Sequence[Action]) -> ActionSpace:
        return cls("choice", choices=tuple(choices))

    @classmethod
    def number(cls, low: float, high: float, *, integer: bool = False) -> ActionSpace:
        if low > high:
            raise ValueError(f"an empty range of numbers: {low} > {high}")
        return cls("number", low=low, high=high, integer=integer)

    @classmethod
    def allocation(cls, size: int, total: int) -> ActionSpace:
        """``size`` non-negative integers that sum to ``total``."""
        if size < 1 or total < 0:
            raise ValueError(f"an allocation needs a size ≥ 1 and a total ≥ 0, got {size}, {total}")
        return cls("allocation", size=size, total=total)

    @property
    def empty(self) -> bool:
        return self.kind == "choice" and not self.choices

    def contains(self, action: Action) -> bool:
        """Whether ``action`` is a legal move here (types checked: True is not 1)."""
        if self.kind == "choice":
            return any(type(action) is type(choice) and action == choice for choice in self.choices)
        if self.kind == "number":
            if isinstance(action, bool) or not isinstance(action, (int, float)):
                return False
            if self.integer and not float(action).is_integer():
                return False
            return self.low <= action <= self.high
        return (
            isinstance(action, list)
            and len(action) == self.size
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in action)
            and sum(action) == self.total
        )

    @classmethod
    def from_description(cls, description: Mapping[str, Any]) -> ActionSpace:
        """The space ``describe`` wrote (as a player reads it from a move call).

        Raises:
            ValueError: not a description of a space.
        """
        kind = description.get("kind")
        try:
            if kind == "choice":
                return cls.of_choices(description["choices"])
            if kind == "number":
                return cls.number(
                    description["low"],
                    description["high"],
                    integer=bool(description.get("integer", False)),
                )
            if kind == "allocation":
                return cls.allocation(int(description["size"]), int(description["total"]))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"an incomplete {kind} space: {exc}") from None
        raise ValueError(f"{kind!r} is not a kind of action space")

    def describe(self) -> dict[str, Any]:
        """The space as JSON, for a move call's ``valid_options`` and for observations."""
        if self.kind == "choice":
            return {"kind": "choice", "choices": list(self.choices)}
        if self.kind == "number":
            return {"kind": "number", "low": self.low, "high": self.high, "integer": self.integer}
        return {"kind": "allocation", "size": self.size, "total": self.total}

    def sample(self, rng: random.Random) -> Action:
        """A uniformly drawn legal move (allocations: uniform over compositions)."""
        if self.kind == "choice":
            if not self.choices:
                raise ValueError("no move is legal now")
            return rng.choice(self.choices)
        if self.kind == "number":
            if self.integer:
                return rng.randint(int(self.low), int(self.high))
            return rng.uniform(self.low, self.high)
        cuts = sorted(rng.sample(range(self.total + self.size - 1), self.size - 1))
        bounds = [-1, *cuts, self.total + self.size - 1]
        return [bounds[i + 1] - bounds[i] - 1 for i in range(self.size)]


NO_MOVE = ActionSpace.of_choices(())
"""The space of a player who does not act now (or once the game is over)."""


class GameState(Protocol):
    """One episode of a game, between players named by their ids."""

    @property
    def players(self) -> tuple[str, ...]:
        """The player ids, in seat order (PLAYER_A first)."""
        ...

    def reset(self, seed: int | None = None) -> None:
        """Start over; ``None`` draws from a cryptographic source, a seed repeats exactly."""
        ...

    def acting_players(self) -> tuple[str, ...]:
        """Who moves at the current stage: everyone in a simultaneous stage, one player in a
        sequential one, nobody once the game is over."""
        ...

    def action_space(self, player: str) -> ActionSpace:
        """What ``player`` may play now (an empty choice when it does not act)."""
        ...

    def legal_actions(self, player: str) -> list[Action]:
        """The finite actions ``player`` may take now, sorted; empty for a number or an
        allocation space, and once the game is over."""
        ...

    def step(self, actions: Mapping[str, Action]) -> None:
        """Apply the joint action of one stage, by player id (the acting players only)."""
        ...

    def is_terminal(self) -> bool: ...

    def rewards(self) -> dict[str, float]:
        """Each player's payoff from the last stage."""
        ...

    def returns(self) -> dict[str, float]:
        """Each player's cumulative (discounted, where the game discounts) payoff."""
        ...

    def payoffs(self) -> dict[str, float]:
        """The payoffs of the game: its returns."""
        ...

    def observation(self, player: str) -> dict[str, Any]:
        """What ``player`` may see now, and nothing more: its own private values, the public
        history, nothing of the others' hidden state."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The whole state, JSON-ready (for the referee's record, never for a player)."""
        ...


def check_players(player_ids: Sequence[str], low: int, high: int) -> tuple[str, ...]:
    """The player ids as a tuple, if there are ``low`` to ``high`` distinct non-empty ones.

    Raises:
        ValueError: a wrong count, an empty or non-string id, or an id given twice.
    """
    players = tuple(player_ids)
    if not low <= len(players) <= high:
        count = str(low) if low == high else f"{low} to {high}"
        raise ValueError(f"this game is played by {count} players, not {len(players)}")
    if not all(isinstance(p, str) and p for p in players):
        raise ValueError(f"player ids must be non-empty strings, got {players!r}")
    if len(set(players)) != len(players):
        raise ValueError(f"every player must be distinct, got {players!r}")
    return players


class Game:
    """The parts every game's state class shares; a game defines the rest of GameState."""

    _players: tuple[str, ...]

    @property
    def players(self) -> tuple[str, ...]:
        return self._players

    # Every game defines these four (see GameState); the methods below build on them.
    def acting_players(self) -> tuple[str, ...]:
        raise NotImplementedError

    def action_space(self, player: str) -> ActionSpace:
        raise NotImplementedError

    def is_terminal(self) -> bool:
        raise NotImplementedError

    def returns(self) -> dict[str, float]:
        raise NotImplementedError

    def _check_player(self, player: str) -> None:
        if player not in self._players:
            raise ValueError(
                f"{player!r} does not play this game; the players are {', '.join(self._players)}"
            )

    def legal_actions(self, player: str) -> list[Action]:
        space = self.action_space(player)
        return sorted(space.choices) if space.kind == "choice" else []

    def payoffs(self) -> dict[str, float]:
        return self.returns()

    def _check_joint_action(self, actions: Mapping[str, Action]) -> None:
        """Every acting player and nobody else, each with a legal move.

        Raises:
            ValueError: the game is over, a player is missing, unknown or not acting, or a
                move is not in its space.
        """
        if self.is_terminal():
            raise ValueError("the game is over; reset it to play again")
        acting = self.acting_players()
        unknown = sorted(set(actions) - set(acting))
        if unknown:
            raise ValueError(
                f"{', '.join(map(str, unknown))} does not move now; acting: {', '.join(acting)}"
            )
        missing = [player for player in acting if player not in actions]
        if missing:
            raise ValueError(f"the move of {', '.join(missing)} is missing")
        for player in acting:
            space = self.action_space(player)
            if not space.contains(actions[player]):
                raise ValueError(
                    f"{actions[player]!r} is not a legal move for {player}: {space.describe()}"
                )


@dataclass(frozen=True)
class WireResult:
    """A finished game as the protocol's own GAME_OVER states it, for a game league.v2
    defines (even/odd): in place of payoffs and a final state, the players' choices, the
    other fields of ``game_result``, and how the game ended, for the result's reason."""

    choices: dict[str, str | None]
    fields: dict[str, Any]
    """The other fields of ``game_result`` (even/odd: ``drawn_number``, ``number_parity``)."""
    account: str
    """How the game ended, in words ("drawn number 7 is odd; A chose even, B chose odd")."""


@dataclass(frozen=True)
class GameSpec:
    """The facts of one game, stated once by its module and listed by the registry."""

    game_type: str
    versioned_id: str
    display_name: str
    rules_module: str
    min_players: int
    max_players: int
    simultaneous: bool
    zero_sum: bool
    move_types: tuple[str, ...]
    valid_choices: tuple[Action, ...]
    payoff_bounds: tuple[float, float]
    new_state: Callable[..., GameState]
    """Called as ``new_state(player_ids, **parameters)``."""
    parameters: Mapping[str, Any] = field(default_factory=dict)
    """Every parameter the game takes, with its default."""
    wire_result: Callable[[GameState], WireResult] | None = None
    """How a finished game is stated in GAME_OVER's result, for a game whose result the
    protocol defines; None: by its payoffs and final state."""
    guide: Guide | None = None
    """Its rules and moves in words, for a newcomer (``games.guide``)."""

    def create(self, player_ids: Sequence[str], **parameters: Any) -> GameState:
        """A state for ``player_ids`` with the defaults overridden by ``parameters``.

        Raises:
            ValueError: a parameter the game does not take.
        """
        unknown = sorted(set(parameters) - set(self.parameters))
        if unknown:
            raise ValueError(
                f"{self.game_type} takes no parameter {', '.join(unknown)}; it "
                f"takes: {', '.join(sorted(self.parameters)) or 'none'}"
            )
        return self.new_state(player_ids, **{**self.parameters, **parameters})

"""Public Goods (``public_goods``, version 1): n-player contributions, optional punishment.

Rules
    2 to 20 players each hold an endowment E and choose at the same time how much of it to
    put in a common pot. The pot is multiplied by m and shared equally by all, contributors
    or not. With 1 < m < n it is a social dilemma: every unit kept pays 1, every unit given
    pays back only m/n to the giver, yet everyone giving all beats everyone giving nothing.
    With ``punishment`` on, each round has a second stage (Fehr & Gächter 2000): once the
    contributions are revealed, every player at the same time may assign punishment points
    to the others, up to ``punishment_budget`` points; each point costs the punisher 1 and
    the punished ``punishment_factor``. ``rounds`` repeats the whole round.

Parameters (defaults in ``DEFAULT_PARAMETERS``)
    ``endowment`` (20, an integer ≥ 1), ``multiplier`` (1.6, any number > 0: the dilemma
    needs 1 < m < n), ``rounds`` (1, an integer ≥ 1), ``punishment`` (false),
    ``punishment_factor`` (3, a number ≥ 0), ``punishment_budget`` (10, an integer ≥ 0).

Actions
    Contribution stage: an integer from 0 to E (``ActionSpace.number(0, E, integer=True)``;
    ``5.0`` counts as 5). Punishment stage: a list of n non-negative integers in seat order
    that sums to exactly ``punishment_budget`` (``ActionSpace.allocation(n, budget)``):
    the entry at another player's seat is the points assigned to that player, the entry at
    the player's own seat is the points left unused (they cost nothing). So with a budget
    of 10, seat 0 of three punishing seat 2 by 4 sends ``[6, 0, 4]``. ``legal_actions`` is
    always ``[]``: neither space is a finite choice; ``action_space`` describes it.

Observation (``observation(player)``, a dict)
    ``player_id``, ``seat``, ``players``, ``endowment`` (the player's own), ``round``
    (1-based, ``None`` once over), ``rounds_played``, ``stage`` (``"contribute"``,
    ``"punish"`` or ``None`` once over), ``action_space`` (``describe()`` of the player's
    space), ``legal_actions``, ``revealed_contributions`` (this round's, by id, during the
    punishment stage, else ``None``), ``history`` (per finished round: ``contributions``
    by id, ``punishments`` (punisher id → target id → points, ``None`` without
    punishment) and ``payoffs`` by id), ``returns`` (everyone's: all of it is public),
    ``parameters``, ``terminal``. A stage's moves are seen only once the stage resolves.

Payoffs (per round, player i, C = Σ contributions)
    E − c_i + m·C/n − (points i assigned) − factor·(points i received). ``rewards()`` is
    the last stage's part: E − c_i + m·C/n after contributions, −given − factor·received
    after punishment; ``returns()`` adds every stage up (no discounting). Total welfare per
    round: n·E + (m − 1)·C − (1 + factor)·(all points assigned). General-sum;
    ``payoff_bounds`` (module function) gives the bounds for any n and parameters.

Version history
    1: contributions, multiplier, rounds, optional punishment with a budget.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide, MoveMeaning
from games.params import check_int, check_number
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_ID",
    "GAME_VERSION",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SPEC",
    "VERSIONED_ID",
    "PublicGoodsState",
    "payoff_bounds",
]

GAME_ID = "public_goods"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Public Goods"
MIN_PLAYERS, MAX_PLAYERS = 2, 20
CONTRIBUTE, PUNISH = "contribute", "punish"
MOVE_TYPES = ("contribution", "punishment")
DEFAULT_PARAMETERS: Mapping[str, Any] = {
    "endowment": 20,
    "multiplier": 1.6,
    "rounds": 1,
    "punishment": False,
    "punishment_factor": 3,
    "punishment_budget": 10,
}


def payoff_bounds(
    num_players: int,
    *,
    endowment: int,
    multiplier: float,
    rounds: int,
    punishment: bool,
    punishment_factor: float,
    punishment_budget: int,
) -> tuple[float, float]:
    """The lowest and highest return of one player over the whole game.

    Per round, i's payoff is E + c_i·(m/n − 1) + m·C₋ᵢ/n − punishment: lowest when the
    others give nothing and i gives all when m < n (else nothing), and i spends its budget
    while every other player spends theirs on i; highest when the others give all.
    """
    gain = endowment * (multiplier / num_players - 1)
    low = endowment + min(0.0, gain)
    high = endowment + max(0.0, gain) + multiplier * (num_players - 1) * endowment / num_players
    if punishment:
        low -= punishment_budget * (1 + punishment_factor * (num_players - 1))
    return low * rounds, high * rounds


class PublicGoodsState(Game):
    """One public goods game between 2 to 20 players named by id, in seat order."""

    def __init__(
        self,
        player_ids: Sequence[str],
        *,
        endowment: int,
        multiplier: float,
        rounds: int,
        punishment: bool,
        punishment_factor: float,
        punishment_budget: int,
    ):
        self._players = check_players(player_ids, MIN_PLAYERS, MAX_PLAYERS)
        self._endowment = check_int("endowment", endowment, 1)
        self._multiplier = check_number("multiplier", multiplier, 0.0, sys.float_info.max)
        if self._multiplier == 0:
            raise ValueError("the parameter multiplier must be above 0")
        self._rounds = check_int("rounds", rounds, 1)
        if not isinstance(punishment, bool):
            raise ValueError(f"the parameter punishment must be true or false, not {punishment!r}")
        self._punishment = punishment
        self._factor = check_number("punishment_factor", punishment_factor, 0.0, sys.float_info.max)
        self._budget = check_int("punishment_budget", punishment_budget, 0)
        self.reset()

    @property
    def payoff_bounds(self) -> tuple[float, float]:
        """Bounds of ``returns()`` for this state's players and parameters."""
        return payoff_bounds(len(self._players), **self._parameters_for_bounds())

    def _parameters_for_bounds(self) -> dict[str, Any]:
        return {
            "endowment": self._endowment,
            "multiplier": self._multiplier,
            "rounds": self._rounds,
            "punishment": self._punishment,
            "punishment_factor": self._factor,
            "punishment_budget": self._budget,
        }

    def reset(self, seed: int | None = None) -> None:
        """A fresh game. Nothing in it is random, so the seed changes nothing."""
        self._stage: str | None = CONTRIBUTE
        self._revealed: dict[str, int] = {}
        self._history: list[dict[str, Any]] = []
        self._rewards = dict.fromkeys(self._players, 0.0)
        self._returns = dict.fromkeys(self._players, 0.0)

    def is_terminal(self) -> bool:
        return self._stage is None

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        if self._stage == CONTRIBUTE:
            return ActionSpace.number(0, self._endowment, integer=True)
        if self._stage == PUNISH:
            return ActionSpace.allocation(len(self._players), self._budget)
        return NO_MOVE

    def step(self, actions: Mapping[str, Any]) -> None:
        """Everyone's contribution, or everyone's punishment list, at once.

        Raises:
            ValueError: the game is over, a player is missing or unknown, or a move is not
                in its space (a contribution out of 0..E, a list of the wrong length or
                sum).
        """
        self._check_joint_action(actions)
        if self._stage == CONTRIBUTE:
            self._contribute({p: int(actions[p]) for p in self._players})
        else:
            self._punish(self._revealed, {p: list(actions[p]) for p in self._players})

    def _contribute(self, contributions: dict[str, int]) -> None:
        share = self._multiplier * sum(contributions.values()) / len(self._players)
        self._rewards = {p: self._endowment - c + share for p, c in contributions.items()}
        self._add_rewards()
        if self._punishment:
            self._revealed, self._stage = contributions, PUNISH
        else:
            self._end_round(contributions, None, self._rewards)

    def _punish(self, contributions: dict[str, int], allocations: dict[str, list[int]]) -> None:
        points = {
            punisher: {
                target: allocations[punisher][seat]
                for seat, target in enumerate(self._players)
                if target != punisher
            }
            for punisher in self._players
        }
        given = {p: sum(points[p].values()) for p in self._players}
        received = {p: sum(points[q].get(p, 0) for q in self._players) for p in self._players}
        share = self._multiplier * sum(contributions.values()) / len(self._players)
        totals = {
            p: self._endowment - c + share - given[p] - self._factor * received[p]
            for p, c in contributions.items()
        }
        self._rewards = {p: -given[p] - self._factor * received[p] for p in self._players}
        self._add_rewards()
        self._end_round(contributions, points, totals)

    def _add_rewards(self) -> None:
        for player, reward in self._rewards.items():
            self._returns[player] += reward

    def _end_round(
        self,
        contributions: dict[str, int],
        punishments: dict[str, dict[str, int]] | None,
        payoffs: dict[str, float],
    ) -> None:
        self._history.append(
            {"contributions": contributions, "punishments": punishments, "payoffs": dict(payoffs)}
        )
        self._revealed = {}
        self._stage = None if len(self._history) >= self._rounds else CONTRIBUTE

    def rewards(self) -> dict[str, float]:
        return dict(self._rewards)

    def returns(self) -> dict[str, float]:
        return dict(self._returns)

    def parameters(self) -> dict[str, Any]:
        """The parameters this state was built with, JSON-ready."""
        return self._parameters_for_bounds()

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: resolved stages only, which are public to everyone."""
        self._check_player(player)
        played = len(self._history)
        return {
            "player_id": player,
            "seat": self._players.index(player),
            "players": list(self._players),
            "endowment": self._endowment,
            "round": None if self.is_terminal() else played + 1,
            "rounds_played": played,
            "stage": self._stage,
            "action_space": self.action_space(player).describe(),
            "legal_actions": self.legal_actions(player),
            "revealed_contributions": dict(self._revealed) if self._stage == PUNISH else None,
            "history": [_copy_round(entry) for entry in self._history],
            "returns": self.returns(),
            "parameters": self.parameters(),
            "terminal": self.is_terminal(),
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state (all of it is public once resolved)."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "parameters": self.parameters(),
            "stage": self._stage,
            "revealed_contributions": dict(self._revealed) if self._stage == PUNISH else None,
            "history": [_copy_round(entry) for entry in self._history],
            "rewards": self.rewards(),
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


def _copy_round(entry: dict[str, Any]) -> dict[str, Any]:
    """A round of the history that a caller may change without changing the state."""
    punishments = entry["punishments"]
    return {
        "contributions": dict(entry["contributions"]),
        "punishments": None
        if punishments is None
        else {p: dict(points) for p, points in punishments.items()},
        "payoffs": dict(entry["payoffs"]),
    }


def _spec_bounds() -> tuple[float, float]:
    """Bounds that hold for the default parameters whatever the number of players."""
    bounds = [payoff_bounds(n, **DEFAULT_PARAMETERS) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
    return min(low for low, _ in bounds), max(high for _, high in bounds)


GUIDE = Guide(
    rules=(
        "Each player holds an endowment (20 by default) and chooses at the same time how "
        "much of it to put in a common pot. The pot is multiplied (by 1.6 by default) and "
        "shared equally by every player, contributors or not: what you keep is yours, what "
        "you give comes back only in part, yet everyone giving all beats everyone giving "
        "nothing. With punishment on, once the contributions are shown each player may "
        "spend points to punish others."
    ),
    moves=(
        MoveMeaning(
            "contribution",
            "contribution",
            "how much of your endowment you put in the common pot; you keep the rest.",
        ),
        MoveMeaning(
            "punishment",
            "punishment points",
            "points for each player in seat order, adding up to your budget: points at "
            "another player's place punish it (each costs you 1 and it the punishment "
            "factor), points at your own place go unused.",
        ),
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
    simultaneous=True,
    zero_sum=False,
    move_types=MOVE_TYPES,
    valid_choices=(),
    payoff_bounds=_spec_bounds(),
    new_state=PublicGoodsState,
    parameters=DEFAULT_PARAMETERS,
    guide=GUIDE,
)

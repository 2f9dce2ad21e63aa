"""Colonel Blotto (``colonel_blotto``, version 1): two generals split troops over battlefields.

Rules
    Two players each allocate exactly ``troops`` troops over ``battlefields`` battlefields,
    at the same time and without seeing the other's allocation. Each battlefield goes to the
    player who sent more troops to it; equal troops (zero included) win it for nobody. One
    stage, then the game is over.

Actions
    An allocation (``ActionSpace.allocation(size=battlefields, total=troops)``): a JSON list
    of ``battlefields`` non-negative integers summing to ``troops``, e.g. ``[3, 3, 4]``.
    A list with the wrong length or sum, a negative or non-integer entry (``True``
    included) is refused. ``legal_actions`` is ``[]`` (an allocation space).

Observation (``observation(player)``)
    ``player_id``, ``role``, ``opponent_id``, ``battlefields``, ``troops``,
    ``action_space``, ``legal_actions``, ``terminal``; once the game is over also
    ``own_allocation``, ``opponent_allocation``, ``battlefield_winners`` (a player id or
    ``None`` per battlefield) and ``returns``. Nothing of the other's allocation before.

Payoffs (``rewards()`` = ``returns()``, one stage)
    Battlefields won minus battlefields lost: zero-sum, bounds [-3, 3] with the defaults
    (in general ±battlefields). Examples with 3 battlefields, 10 troops:

    ==============  ==============  =======  =======
    PLAYER_A        PLAYER_B        A        B
    ==============  ==============  =======  =======
    [4, 4, 2]       [2, 2, 6]         +1       -1
    [10, 0, 0]      [3, 3, 4]         -1       +1
    [5, 5, 0]       [5, 5, 0]          0        0
    ==============  ==============  =======  =======

Parameters (defaults)
    ``battlefields`` 3 (1 to 100), ``troops`` 10 (each player; 1 to 10000).

Randomness
    None: ``reset(seed)`` takes a seed for the common surface and has nothing to draw.

Version history
    1: the classic symmetric game, ties win nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide, MoveMeaning
from games.params import check_int
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, check_players

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_ID",
    "GAME_VERSION",
    "SPEC",
    "VERSIONED_ID",
    "BlottoState",
    "battle",
]

GAME_ID = "colonel_blotto"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Colonel Blotto"
NUM_PLAYERS = 2
PLAYER_ROLES = ("PLAYER_A", "PLAYER_B")
SIMULTANEOUS = True
ZERO_SUM = True
MOVE_TYPE = "allocation"
DEFAULT_PARAMETERS: dict[str, Any] = {"battlefields": 3, "troops": 10}
PAYOFF_BOUNDS = (
    -float(DEFAULT_PARAMETERS["battlefields"]),
    float(DEFAULT_PARAMETERS["battlefields"]),
)
MAX_BATTLEFIELDS, MAX_TROOPS = 100, 10_000


def battle(first: Sequence[int], second: Sequence[int]) -> list[int | None]:
    """Who takes each battlefield: 0 (the first), 1 (the second) or ``None`` (a tie).

    Raises:
        ValueError: allocations of different lengths.
    """
    if len(first) != len(second):
        raise ValueError(
            f"both allocations must cover the same battlefields, got {len(first)} and {len(second)}"
        )
    return [0 if a > b else 1 if b > a else None for a, b in zip(first, second, strict=True)]


class BlottoState(Game):
    """One Colonel Blotto game between two players, named by their ids (PLAYER_A first)."""

    def __init__(
        self,
        player_ids: Sequence[str],
        *,
        battlefields: int = DEFAULT_PARAMETERS["battlefields"],
        troops: int = DEFAULT_PARAMETERS["troops"],
    ):
        self._players = check_players(player_ids, NUM_PLAYERS, NUM_PLAYERS)
        self.battlefields = check_int("battlefields", battlefields, 1, MAX_BATTLEFIELDS)
        self.troops = check_int("troops", troops, 1, MAX_TROOPS)
        self._space = ActionSpace.allocation(size=battlefields, total=troops)
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """A fresh game (no chance move: the seed changes nothing)."""
        self._allocations: dict[str, list[int]] = {}
        self._winners: list[int | None] = []

    def is_terminal(self) -> bool:
        return bool(self._allocations)

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        return NO_MOVE if self.is_terminal() else self._space

    def step(self, actions: Mapping[str, list[int]]) -> None:
        """Both allocations at once; then every battlefield is decided.

        Raises:
            ValueError: the game is over, a player is missing or unknown, or an allocation
                has the wrong length or sum, or a negative or non-integer entry.
        """
        self._check_joint_action(actions)
        allocations = {player: list(actions[player]) for player in self._players}
        self._winners = battle(*allocations.values())
        self._allocations = allocations

    def rewards(self) -> dict[str, float]:
        margin = float(self._winners.count(0) - self._winners.count(1))
        return {self._players[0]: margin, self._players[1]: 0.0 - margin}  # never -0.0

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def _winner_ids(self) -> list[str | None]:
        return [None if seat is None else self._players[seat] for seat in self._winners]

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: the other's allocation only once the game is over."""
        self._check_player(player)
        seat = self._players.index(player)
        opponent = self._players[1 - seat]
        view: dict[str, Any] = {
            "player_id": player,
            "role": PLAYER_ROLES[seat],
            "opponent_id": opponent,
            "battlefields": self.battlefields,
            "troops": self.troops,
            "action_space": self.action_space(player).describe(),
            "legal_actions": self.legal_actions(player),
            "terminal": self.is_terminal(),
        }
        if self.is_terminal():
            view.update(
                own_allocation=self._allocations[player],
                opponent_allocation=self._allocations[opponent],
                battlefield_winners=self._winner_ids(),
                returns=self.returns(),
            )
        return view

    def to_json(self) -> dict[str, Any]:
        """The whole state: both allocations, each battlefield's winner, the returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "battlefields": self.battlefields,
            "troops": self.troops,
            "allocations": {p: list(a) for p, a in self._allocations.items()},
            "battlefield_winners": self._winner_ids(),
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


GUIDE = Guide(
    rules=(
        "Each player spreads its troops (10 by default) over the battlefields (3 by "
        "default), at the same time and without seeing the other's. Each battlefield goes "
        "to the player who sent more troops to it (equal troops: to nobody). Your payoff is "
        "the battlefields you win minus the battlefields you lose."
    ),
    moves=(
        MoveMeaning(
            "allocation",
            "troops per battlefield",
            "how many troops you send to each battlefield, in order; they must add up to "
            "all your troops.",
        ),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = GameSpec(
    game_type=GAME_ID,
    versioned_id=VERSIONED_ID,
    display_name=DISPLAY_NAME,
    rules_module=__name__,
    min_players=NUM_PLAYERS,
    max_players=NUM_PLAYERS,
    simultaneous=SIMULTANEOUS,
    zero_sum=ZERO_SUM,
    move_types=(MOVE_TYPE,),
    valid_choices=(),
    payoff_bounds=PAYOFF_BOUNDS,
    new_state=BlottoState,
    parameters=DEFAULT_PARAMETERS,
    guide=GUIDE,
)

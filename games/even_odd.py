"""Even/Odd (``even_odd``, version 1): the game of the league.v2 homework protocol.

Rules
    Two players each choose a parity, ``"even"`` or ``"odd"``, at the same time and without
    seeing the other's choice. The referee then draws an integer uniformly from 1 to 10. A
    player whose choice matches the parity of the drawn number is right. If exactly one
    player is right, that player wins; if both are right or both are wrong, it is a draw.
    One stage, then the game is over.

Actions
    ``Parity.EVEN`` / ``Parity.ODD``; on the wire and in ``step`` the exact lower-case
    strings ``"even"`` and ``"odd"`` (``"EVEN"`` is not a parity). ``legal_actions`` returns
    ``["even", "odd"]`` until the game is over, then ``[]``.

Observation (``observation(player)``, a dict)
    ``player_id``, ``role`` (``PLAYER_A``/``PLAYER_B``), ``opponent_id``, ``legal_actions``,
    ``own_choice``, and once the game is over ``opponent_choice``, ``drawn_number``,
    ``number_parity`` and ``winner`` (all ``None`` before: a player never sees the other's
    choice or the number before the end), ``terminal``.

Payoffs (``rewards()`` = ``returns()``, one stage)
    ============  ======  ======
    outcome       winner  loser
    ============  ======  ======
    one right       +1      -1
    draw             0       0
    ============  ======  ======
    Zero-sum, bounds [-1, +1]. League points (3/1/0) come from the league's config, not
    from here.

GAME_OVER (``wire_result``)
    As the protocol states it: each player's ``choices``, the ``drawn_number`` and its
    ``number_parity``, no payoffs.

Randomness
    ``reset(None)`` draws from ``secrets.SystemRandom()`` (players cannot predict it);
    ``reset(seed)`` uses ``random.Random(seed)`` and repeats exactly.

Version history
    1: the protocol's rules (uniform 1..10, both right or both wrong is a draw).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

from games.guide import Guide, MoveMeaning
from games.spec import NO_MOVE, ActionSpace, Game, GameSpec, GameState, WireResult, check_players

__all__ = [
    "DISPLAY_NAME",
    "GAME_ID",
    "GAME_VERSION",
    "MAX_NUMBER",
    "MIN_NUMBER",
    "MOVE_TYPE",
    "NUM_PLAYERS",
    "PAYOFF_BOUNDS",
    "PLAYER_ROLES",
    "SIMULTANEOUS",
    "SPEC",
    "VERSIONED_ID",
    "ZERO_SUM",
    "EvenOddState",
    "Parity",
    "decide_winner",
    "draw_number",
    "init_state",
    "parity_of",
    "validate_choice",
    "wire_result",
]


class Parity(str, Enum):
    """A player's choice, and the parity of a number."""

    EVEN = "even"
    ODD = "odd"


GAME_ID = "even_odd"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Even/Odd"
NUM_PLAYERS = 2
PLAYER_ROLES = ("PLAYER_A", "PLAYER_B")
SIMULTANEOUS = True
ZERO_SUM = True
MOVE_TYPE = "parity_choice"
MIN_NUMBER, MAX_NUMBER = 1, 10
WIN_REWARD, DRAW_REWARD, LOSS_REWARD = 1.0, 0.0, -1.0
PAYOFF_BOUNDS = (LOSS_REWARD, WIN_REWARD)
_ACTIONS = sorted(parity.value for parity in Parity)
_SPACE = ActionSpace.of_choices(_ACTIONS)


def validate_choice(choice: object) -> Parity:
    """The parity a player chose; exactly ``"even"`` or ``"odd"``.

    Raises:
        ValueError: anything else, ``"EVEN"`` included.
    """
    if isinstance(choice, str):
        for parity in Parity:
            if choice == parity.value:
                return parity
    raise ValueError(f"a parity choice must be exactly 'even' or 'odd', not {choice!r}")


def draw_number(rng: random.Random) -> int:
    """A uniform integer from 1 to 10, from the injected generator."""
    return rng.randint(MIN_NUMBER, MAX_NUMBER)


def parity_of(number: int) -> Parity:
    """The parity of a drawn number.

    Raises:
        ValueError: the number is outside 1..10 (no draw gives it).
    """
    if isinstance(number, bool) or not isinstance(number, int):
        raise ValueError(f"a drawn number must be an integer, not {number!r}")
    if not MIN_NUMBER <= number <= MAX_NUMBER:
        raise ValueError(f"a drawn number is between {MIN_NUMBER} and {MAX_NUMBER}, not {number}")
    return Parity.EVEN if number % 2 == 0 else Parity.ODD


def decide_winner(choices: Mapping[str, str], drawn_number: int) -> str | None:
    """The one player whose choice matches the number's parity; ``None`` for a draw.

    Raises:
        ValueError: not exactly two players, a choice that is not a parity, or a number
            outside 1..10.
    """
    if len(choices) != NUM_PLAYERS:
        raise ValueError(f"even/odd needs the choices of {NUM_PLAYERS} players, got {len(choices)}")
    parity = parity_of(drawn_number)
    right = [player for player, choice in choices.items() if validate_choice(choice) == parity]
    return right[0] if len(right) == 1 else None


class EvenOddState(Game):
    """One even/odd game between two players, named by their ids (PLAYER_A first)."""

    def __init__(self, player_ids: Sequence[str]):
        self._players = check_players(player_ids, NUM_PLAYERS, NUM_PLAYERS)
        self.reset()

    @property
    def drawn_number(self) -> int | None:
        return self._drawn

    @property
    def winner(self) -> str | None:
        return self._winner

    def reset(self, seed: int | None = None) -> None:
        """A fresh game; ``None`` → cryptographic randomness, a seed → exact repetition."""
        self._rng: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)
        self._choices: dict[str, Parity] = {}
        self._drawn: int | None = None
        self._winner: str | None = None

    def is_terminal(self) -> bool:
        return self._drawn is not None

    def acting_players(self) -> tuple[str, ...]:
        return () if self.is_terminal() else self._players

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        return NO_MOVE if self.is_terminal() else _SPACE

    def step(self, actions: Mapping[str, str]) -> None:
        """Both choices at once; then draw the number and decide.

        Raises:
            ValueError: the game is over, a player is missing or unknown, or a choice is not
                a parity.
        """
        self._check_joint_action(actions)
        choices = {player: validate_choice(actions[player]) for player in self._players}
        drawn = draw_number(self._rng)
        self._choices = choices
        self._winner = decide_winner({p: c.value for p, c in choices.items()}, drawn)
        self._drawn = drawn

    def rewards(self) -> dict[str, float]:
        if not self.is_terminal():
            return dict.fromkeys(self._players, 0.0)
        if self._winner is None:
            return dict.fromkeys(self._players, DRAW_REWARD)
        return {p: WIN_REWARD if p == self._winner else LOSS_REWARD for p in self._players}

    def returns(self) -> dict[str, float]:
        return self.rewards()

    def observation(self, player: str) -> dict[str, Any]:
        """``player``'s view: the other's choice and the number only once the game is over."""
        self._check_player(player)
        seat = self._players.index(player)
        opponent = self._players[1 - seat]
        terminal = self.is_terminal()
        own = self._choices.get(player)
        theirs = self._choices.get(opponent) if terminal else None
        return {
            "player_id": player,
            "role": PLAYER_ROLES[seat],
            "opponent_id": opponent,
            "legal_actions": self.legal_actions(player),
            "own_choice": own.value if own else None,
            "opponent_choice": theirs.value if theirs else None,
            "drawn_number": self._drawn,
            "number_parity": parity_of(self._drawn).value if self._drawn else None,
            "winner": self._winner,
            "terminal": terminal,
        }

    def to_json(self) -> dict[str, Any]:
        """The whole state: every choice, the number, the winner, the returns."""
        return {
            "game_id": VERSIONED_ID,
            "players": list(self._players),
            "choices": {p: c.value for p, c in self._choices.items()},
            "drawn_number": self._drawn,
            "number_parity": parity_of(self._drawn).value if self._drawn else None,
            "winner": self._winner,
            "terminal": self.is_terminal(),
            "returns": self.returns(),
        }


def init_state(player_ids: Sequence[str], seed: int | None = None) -> EvenOddState:
    """A new game between ``player_ids`` (PLAYER_A first), reset with ``seed``."""
    state = EvenOddState(player_ids)
    state.reset(seed)
    return state


def wire_result(state: GameState) -> WireResult:
    """A finished game's GAME_OVER fields as the protocol has them: the choices, the drawn
    number and its parity."""
    final = state.to_json()
    choices: dict[str, str | None] = dict(final["choices"])
    number, parity = final["drawn_number"], final["number_parity"]
    picks = ", ".join(f"{player} chose {choice}" for player, choice in choices.items())
    return WireResult(
        choices=choices,
        fields={"drawn_number": number, "number_parity": parity},
        account=f"drawn number {number} is {parity}; {picks}",
    )


GUIDE = Guide(
    rules=(
        "Each player chooses even or odd at the same time; then the referee draws a number "
        "from 1 to 10 at random. If exactly one player's choice matches the parity of the "
        "number, that player wins (1, the other -1); if both or neither match, it is a draw "
        "(0 each)."
    ),
    moves=(
        MoveMeaning("even", "even", "you bet that the drawn number is even (2, 4, 6, 8 or 10)."),
        MoveMeaning("odd", "odd", "you bet that the drawn number is odd (1, 3, 5, 7 or 9)."),
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
    valid_choices=tuple(_ACTIONS),
    payoff_bounds=PAYOFF_BOUNDS,
    new_state=EvenOddState,
    wire_result=wire_result,
    guide=GUIDE,
)

"""Prisoner's Dilemma (``prisoners_dilemma``, version 1): one-shot or iterated, with noise.

Rules
    Two players each choose to cooperate (``"C"``) or defect (``"D"``) at the same time.
    Defecting is better for each whatever the other does, yet both cooperating beats both
    defecting. With ``rounds`` > 1 it is the iterated game: each round is seen by both
    before the next. With ``noise`` p each chosen action is flipped to the other one with
    probability p (a trembling hand); the table is read with what was actually played.

Payoff table (``PAYOFF_TABLE``)
    ``PAYOFF_TABLE[a][b]`` is (row payoff, column payoff) for ``ACTIONS[a]`` against
    ``ACTIONS[b]``: T=5 > R=3 > P=1 > S=0, and 2R > T+S.

    =====  ======  ======
           C       D
    =====  ======  ======
    C      3, 3    0, 5
    D      5, 0    1, 1
    =====  ======  ======
    General-sum; one round's payoffs lie in [0, 5].

Parameters
    ``rounds`` (default 1, an integer ≥ 1), ``noise`` (default 0.0, a probability) and
    ``discount`` δ (default 1.0, in (0, 1]; ``returns()`` is Σ δ^t · r_t). The machinery is
    ``games.matrix``'s.

Actions
    ``Move.C`` / ``Move.D``; on the wire and in ``step`` the strings ``"C"`` and ``"D"``
    (``ACTIONS``). ``legal_actions`` is ``["C", "D"]`` until the game is over, then ``[]``.

Observation (``observation(player)``, a dict)
    No private values. ``round`` (1-based, ``None`` once over), ``rounds_played``,
    ``history``: per finished round the joint action as played (after noise) by player id,
    the round's rewards, and ``own_intended`` (the player's own choice before noise; never
    the other's); ``returns``; ``parameters`` (the table, rounds, noise, discount);
    ``legal_actions``, ``terminal``. See ``games.matrix`` for every field.

Randomness
    Only noise draws: ``reset(None)`` uses ``secrets.SystemRandom()``, ``reset(seed)``
    repeats exactly.

Version history
    1: the standard table, rounds, noise, discount.
"""

from __future__ import annotations

from enum import Enum
from typing import Final

from games.guide import Guide, MoveMeaning
from games.matrix import parse_table, table_game_spec

__all__ = [
    "ACTIONS",
    "DISPLAY_NAME",
    "GAME_ID",
    "GAME_VERSION",
    "PAYOFF_TABLE",
    "SPEC",
    "TABLE",
    "VERSIONED_ID",
    "Move",
]


class Move(str, Enum):
    """A player's choice."""

    C = "C"
    D = "D"


GAME_ID = "prisoners_dilemma"
GAME_VERSION = 1
VERSIONED_ID = f"{GAME_ID}_v{GAME_VERSION}"
DISPLAY_NAME = "Prisoner's Dilemma"
ACTIONS: Final = ("C", "D")
TEMPTATION, REWARD, PUNISHMENT, SUCKER = 5.0, 3.0, 1.0, 0.0
PAYOFF_TABLE: Final[tuple[tuple[tuple[float, float], ...], ...]] = (
    ((REWARD, REWARD), (SUCKER, TEMPTATION)),
    ((TEMPTATION, SUCKER), (PUNISHMENT, PUNISHMENT)),
)
"""``PAYOFF_TABLE[a][b]`` is (row payoff, column payoff) when the row player plays
``ACTIONS[a]`` and the column player ``ACTIONS[b]``: the shape of
``games.matrix_games.MatrixGame.payoffs``."""

TABLE = parse_table(list(ACTIONS), PAYOFF_TABLE, 2)
GUIDE = Guide(
    rules=(
        "You and your opponent each choose, at the same time, to cooperate (C) or to defect "
        "(D). Defecting pays more whatever the other does, yet both cooperating (3 each) "
        "beats both defecting (1 each). With more than one round, each round is shown to "
        "both before the next."
    ),
    moves=(
        MoveMeaning("C", "cooperate", "3 each if both cooperate; 0 for you if the other defects."),
        MoveMeaning("D", "defect", "5 for you if the other cooperates; 1 each if both defect."),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = table_game_spec(
    TABLE,
    game_type=GAME_ID,
    version=GAME_VERSION,
    display_name=DISPLAY_NAME,
    rules_module=__name__,
    guide=GUIDE,
)

"""Chicken (``chicken``, version 1): the anti-coordination game of brinkmanship.

Rules
    Two drivers head for each other and each chooses at the same time to swerve
    (``"swerve"``) or go straight (``"straight"``). Whoever swerves alone loses face; if
    neither swerves they crash. The pure equilibria are the two where exactly one swerves.

Payoff table (``PAYOFFS``, row player first; the usual textbook numbers)
    ========  ======  ==========
              swerve  straight
    ========  ======  ==========
    swerve    0, 0    -1, 1
    straight  1, -1   -10, -10
    ========  ======  ==========
    General-sum (the crash costs both); one round's payoffs lie in [-10, 1].

Parameters, actions, observation
    ``rounds`` (default 1), ``noise`` (default 0.0) and ``discount`` (default 1.0), played
    by ``games.matrix``, whose docstring describes them and the observation. Actions are
    the strings ``"straight"`` and ``"swerve"`` (``Move``); ``legal_actions`` lists them
    sorted.

Version history
    1: the textbook table, rounds, noise, discount.
"""

from __future__ import annotations

from enum import Enum

from games.guide import Guide, MoveMeaning
from games.matrix import parse_table, table_game_spec

__all__ = ["ACTIONS", "GAME_ID", "GAME_VERSION", "PAYOFFS", "SPEC", "TABLE", "Move"]


class Move(str, Enum):
    SWERVE = "swerve"
    STRAIGHT = "straight"


GAME_ID = "chicken"
GAME_VERSION = 1
ACTIONS = ("swerve", "straight")
PAYOFFS = {
    "swerve,swerve": [0, 0],
    "swerve,straight": [-1, 1],
    "straight,swerve": [1, -1],
    "straight,straight": [-10, -10],
}
TABLE = parse_table(list(ACTIONS), PAYOFFS, 2)
GUIDE = Guide(
    rules=(
        "Two drivers race at each other; each chooses, at the same time, to swerve or to go "
        "straight. Going straight wins (1) against one who swerves (-1), but if both go "
        "straight they crash (-10 each); if both swerve, 0 each."
    ),
    moves=(
        MoveMeaning(
            "swerve", "swerve", "0 if the other swerves too; -1 if the other goes straight."
        ),
        MoveMeaning(
            "straight", "go straight", "1 if the other swerves; -10 if the other goes straight too."
        ),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = table_game_spec(
    TABLE,
    game_type=GAME_ID,
    version=GAME_VERSION,
    display_name="Chicken",
    rules_module=__name__,
    guide=GUIDE,
)

"""Stag Hunt (``stag_hunt``, version 1): the coordination game of trust (Rousseau, Skyrms).

Rules
    Two hunters each choose at the same time to hunt the stag (``"stag"``), which needs
    both, or a hare (``"hare"``), which each can catch alone. Both (stag, stag) and
    (hare, hare) are equilibria: the first pays more, the second is safe.

Payoff table (``PAYOFFS``, row player first; Skyrms' numbers)
    =====  ======  ======
           stag    hare
    =====  ======  ======
    stag   4, 4    0, 3
    hare   3, 0    3, 3
    =====  ======  ======
    General-sum; one round's payoffs lie in [0, 4].

Parameters, actions, observation
    ``rounds`` (default 1), ``noise`` (default 0.0) and ``discount`` (default 1.0), played
    by ``games.matrix``, whose docstring describes them and the observation. Actions are
    the strings ``"hare"`` and ``"stag"`` (``Move``); ``legal_actions`` lists them sorted.

Version history
    1: Skyrms' table, rounds, noise, discount.
"""

from __future__ import annotations

from enum import Enum

from games.guide import Guide, MoveMeaning
from games.matrix import parse_table, table_game_spec

__all__ = ["ACTIONS", "GAME_ID", "GAME_VERSION", "PAYOFFS", "SPEC", "TABLE", "Move"]


class Move(str, Enum):
    STAG = "stag"
    HARE = "hare"


GAME_ID = "stag_hunt"
GAME_VERSION = 1
ACTIONS = ("stag", "hare")
PAYOFFS = {"stag,stag": [4, 4], "stag,hare": [0, 3], "hare,stag": [3, 0], "hare,hare": [3, 3]}
TABLE = parse_table(list(ACTIONS), PAYOFFS, 2)
GUIDE = Guide(
    rules=(
        "You and your opponent each choose, at the same time, to hunt the stag or a hare. "
        "The stag pays most (4 each) but only if both hunt it; a hare pays 3 whatever the "
        "other does."
    ),
    moves=(
        MoveMeaning(
            "stag",
            "hunt the stag",
            "4 if the other hunts the stag too; 0 if the other hunts a hare.",
        ),
        MoveMeaning("hare", "hunt a hare", "3 whatever the other does."),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = table_game_spec(
    TABLE,
    game_type=GAME_ID,
    version=GAME_VERSION,
    display_name="Stag Hunt",
    rules_module=__name__,
    guide=GUIDE,
)

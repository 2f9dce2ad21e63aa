"""Battle of the Sexes (``battle_of_the_sexes``, version 1): coordination with a conflict.

Rules
    Two players want to spend the evening together but prefer different events: the row
    player the opera (``"opera"``), the column player football (``"football"``). Each
    chooses at the same time; meeting pays, and meeting at one's own favourite pays more.
    Missing each other pays nothing.

Payoff table (``PAYOFFS``, row player first; the usual textbook numbers)
    ========  ======  ========
              opera   football
    ========  ======  ========
    opera     3, 2    0, 0
    football  0, 0    2, 3
    ========  ======  ========
    General-sum; one round's payoffs lie in [0, 3].

Parameters, actions, observation
    ``rounds`` (default 1), ``noise`` (default 0.0) and ``discount`` (default 1.0), played
    by ``games.matrix``, whose docstring describes them and the observation. Actions are
    the strings ``"football"`` and ``"opera"`` (``Move``); ``legal_actions`` lists them
    sorted. Seat 0 (PLAYER_A) is the row player.

Version history
    1: the textbook table, rounds, noise, discount.
"""

from __future__ import annotations

from enum import Enum

from games.guide import Guide, MoveMeaning
from games.matrix import parse_table, table_game_spec

__all__ = ["ACTIONS", "GAME_ID", "GAME_VERSION", "PAYOFFS", "SPEC", "TABLE", "Move"]


class Move(str, Enum):
    OPERA = "opera"
    FOOTBALL = "football"


GAME_ID = "battle_of_the_sexes"
GAME_VERSION = 1
ACTIONS = ("opera", "football")
PAYOFFS = {
    "opera,opera": [3, 2],
    "opera,football": [0, 0],
    "football,opera": [0, 0],
    "football,football": [2, 3],
}
TABLE = parse_table(list(ACTIONS), PAYOFFS, 2)
GUIDE = Guide(
    rules=(
        "Two friends want to spend the evening together but like different places: the "
        "first player prefers the opera, the second football. Each chooses at the same "
        "time; at the same place, the one who likes it gets 3 and the other 2; at different "
        "places, both get 0."
    ),
    moves=(
        MoveMeaning(
            "opera",
            "go to the opera",
            "the first player's favourite: 3 for the first, 2 for the second if both go.",
        ),
        MoveMeaning(
            "football",
            "go to the football",
            "the second player's favourite: 2 for the first, 3 for the second if both go.",
        ),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = table_game_spec(
    TABLE,
    game_type=GAME_ID,
    version=GAME_VERSION,
    display_name="Battle of the Sexes",
    rules_module=__name__,
    guide=GUIDE,
)

"""Rock, Paper, Scissors (``rock_paper_scissors``, version 1): the zero-sum cycle.

Rules
    Two players each show ``"rock"``, ``"paper"`` or ``"scissors"`` at the same time. Rock
    blunts scissors, scissors cut paper, paper wraps rock; the same sign is a draw. The only
    equilibrium is to play each sign with probability 1/3.

Payoff table (``PAYOFFS``, row player first)
    ========  ========  ========  ========
              rock      paper     scissors
    ========  ========  ========  ========
    rock      0, 0      -1, 1     1, -1
    paper     1, -1     0, 0      -1, 1
    scissors  -1, 1     1, -1     0, 0
    ========  ========  ========  ========
    Zero-sum (win 1, loss -1, draw 0); one round's payoffs lie in [-1, 1], and returns
    sum to 0 whatever the rounds, noise and discount.

Parameters, actions, observation
    ``rounds`` (default 1), ``noise`` (default 0.0: a trembling hand shows one of the two
    other signs) and ``discount`` (default 1.0), played by ``games.matrix``, whose
    docstring describes them and the observation. Actions are the strings ``"paper"``,
    ``"rock"`` and ``"scissors"`` (``Move``); ``legal_actions`` lists them sorted.

Version history
    1: the standard rules, rounds, noise, discount.
"""

from __future__ import annotations

from enum import Enum

from games.guide import Guide, MoveMeaning
from games.matrix import parse_table, table_game_spec

__all__ = ["ACTIONS", "BEATS", "GAME_ID", "GAME_VERSION", "PAYOFFS", "SPEC", "TABLE", "Move"]


class Move(str, Enum):
    ROCK = "rock"
    PAPER = "paper"
    SCISSORS = "scissors"


GAME_ID = "rock_paper_scissors"
GAME_VERSION = 1
ACTIONS = ("rock", "paper", "scissors")
BEATS = {"rock": "scissors", "paper": "rock", "scissors": "paper"}
"""Each sign → the sign it beats."""


def _payoff(mine: str, theirs: str) -> int:
    return 1 if BEATS[mine] == theirs else -1 if BEATS[theirs] == mine else 0


PAYOFFS = {f"{a},{b}": [_payoff(a, b), _payoff(b, a)] for a in ACTIONS for b in ACTIONS}
TABLE = parse_table(list(ACTIONS), PAYOFFS, 2)
GUIDE = Guide(
    rules=(
        "Each player chooses rock, paper or scissors at the same time: rock beats scissors, "
        "scissors beat paper, paper beats rock. A win pays 1, a loss -1, the same choice 0."
    ),
    moves=(
        MoveMeaning("rock", "rock", "beats scissors, loses to paper."),
        MoveMeaning("paper", "paper", "beats rock, loses to scissors."),
        MoveMeaning("scissors", "scissors", "beat paper, lose to rock."),
    ),
)
"""The rules and moves in words (``games.guide``): the /play page and the llm prompt."""

SPEC = table_game_spec(
    TABLE,
    game_type=GAME_ID,
    version=GAME_VERSION,
    display_name="Rock, Paper, Scissors",
    rules_module=__name__,
    guide=GUIDE,
)

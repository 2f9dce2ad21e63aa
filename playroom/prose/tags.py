"""The protocol tags of games written in prose (doc/prose_games.md), as pure functions.

The game master writes ``[PLAYER_TURN]…[/PLAYER_TURN]`` for what the opponent may see,
gets the opponent's answer back inside ``[PLAYER_DECISION]…[/PLAYER_DECISION]`` and ends
the game with ``[GAME_OVER]``. The human sees the game master's text with all of it
removed: a block's content included, and everything after an opening tag left unclosed
(an unfinished block must not leak).

>>> player_turns("Thinking. [PLAYER_TURN]Offer: 4 of 10.[/PLAYER_TURN]")
['Offer: 4 of 10.']
>>> for_human("You offered 4. [PLAYER_TURN]Offer: 4 of 10.[/PLAYER_TURN]Waiting.")
'You offered 4. Waiting.'
>>> is_game_over("Final score: you 6. [GAME_OVER]")
True
"""

from __future__ import annotations

import re

__all__ = [
    "DECISION_CLOSE",
    "DECISION_OPEN",
    "GAME_OVER",
    "TURN_CLOSE",
    "TURN_OPEN",
    "decision_message",
    "for_human",
    "is_game_over",
    "player_turns",
    "without_tags",
]

TURN_OPEN, TURN_CLOSE = "[PLAYER_TURN]", "[/PLAYER_TURN]"
DECISION_OPEN, DECISION_CLOSE = "[PLAYER_DECISION]", "[/PLAYER_DECISION]"
GAME_OVER = "[GAME_OVER]"

_BLOCK = {
    name: re.compile(rf"\[{name}\](.*?)\[/{name}\]", re.DOTALL | re.IGNORECASE)
    for name in ("PLAYER_TURN", "PLAYER_DECISION")
}
_UNCLOSED = re.compile(r"\[(?:PLAYER_TURN|PLAYER_DECISION)\].*", re.DOTALL | re.IGNORECASE)
_ANY_TAG = re.compile(r"\[/?(?:PLAYER_TURN|PLAYER_DECISION|GAME_OVER)\]", re.IGNORECASE)
_BLANK_LINES = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_SPACES = re.compile(r"[ \t]{2,}")


def player_turns(text: str) -> list[str]:
    """The contents of the closed ``[PLAYER_TURN]`` blocks, in order, trimmed; empty
    blocks are dropped."""
    return [found.strip() for found in _BLOCK["PLAYER_TURN"].findall(text) if found.strip()]


def is_game_over(text: str) -> bool:
    """Whether the game master ended the game (``[GAME_OVER]``, any case)."""
    return GAME_OVER.lower() in text.lower()


def for_human(text: str) -> str:
    """The game master's text as the human may see it: no block (with its content), no
    unclosed block's tail, no stray tag, no run of blank lines left behind."""
    for block in _BLOCK.values():
        text = block.sub("", text)
    text = _ANY_TAG.sub("", _UNCLOSED.sub("", text))
    text = _SPACES.sub(" ", _BLANK_LINES.sub("\n\n", text))
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def without_tags(text: str) -> str:
    """``text`` with the tag tokens removed but its words kept: what the human types and
    what the opponent answers cannot forge a block or end the game."""
    return _ANY_TAG.sub("", text).strip()


def decision_message(answer: str) -> str:
    """The opponent's answer as the game master receives it."""
    return f"{DECISION_OPEN}\n{without_tags(answer)}\n{DECISION_CLOSE}"

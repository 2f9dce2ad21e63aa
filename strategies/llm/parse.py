"""Reading a move out of a model's text, and the move played when none can be read.

Models answer ``{"move": "C"}``, ```json fenced blocks, ``C``, ``"C"``, ``I bid 42.`` or
``[30, 30, 40]``; all are read. A reading that is not in the action space is None: the
caller asks again, then falls back (``strategies.llm.careful``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from games.spec import Action, ActionSpace

__all__ = ["parse_move"]

_MOVE_KEYS = ("move", "action", "choice", "bid", "offer", "allocation", "answer")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)
_OBJECT = re.compile(r"\{[^{}]*\}")
_LIST = re.compile(r"\[[^\[\]]*\]")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _candidates(text: str) -> list[Any]:
    """Values the text may mean, most explicit first: JSON (whole, fenced, embedded
    objects' move keys), then the bare text."""
    found: list[Any] = []
    pieces = [text.strip(), *(m.strip() for m in _FENCE.findall(text))]
    pieces += _OBJECT.findall(text)
    for piece in pieces:
        try:
            value = json.loads(piece)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            found += [value[key] for key in _MOVE_KEYS if key in value]
        else:
            found.append(value)
    found.append(text.strip().strip("`'\". \n"))
    return found


def _fit(value: Any, space: ActionSpace) -> Action | None:
    """``value`` as a legal move of ``space`` (``"42"`` → 42, ``"c"`` → ``"C"``), or None."""
    if space.kind == "choice":
        if space.contains(value):
            return value
        text = str(value).strip().strip("`'\".").lower()
        same = [c for c in space.choices if str(c).lower() == text]
        if len(same) == 1:
            return same[0]
        words = set(re.findall(r"[\w-]+", text))
        named = [c for c in space.choices if str(c).lower() in words]
        return named[0] if len(named) == 1 else None
    if space.kind == "number":
        if isinstance(value, str):
            numbers = _NUMBER.findall(value)
            if len(numbers) != 1:
                return None
            value = float(numbers[0])
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if space.integer and float(value).is_integer():
            value = int(value)
        return value if space.contains(value) else None
    if isinstance(value, str):
        lists = _LIST.findall(value)
        if len(lists) != 1:
            return None
        try:
            value = json.loads(lists[0])
        except json.JSONDecodeError:
            return None
    if isinstance(value, list) and all(isinstance(x, (int, float)) for x in value):
        value = [int(x) if float(x).is_integer() else x for x in value]
    return value if space.contains(value) else None


def parse_move(text: str, space: ActionSpace) -> Action | None:
    """The first legal move the text states, or None (nothing legal is stated)."""
    for candidate in _candidates(text):
        move = _fit(candidate, space)
        if move is not None:
            return move
    return None

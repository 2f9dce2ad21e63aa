"""What a person reads of a game they play: their observation in words, the history of its
rounds as a table, and one line of both for the transcript. Never JSON, and never more than
their observation holds; a move is named as the game's guide names it ("defect (D)").

The ``/play`` page shows the rows and the table as they are (``SessionState.seen`` and
``.history``); the transcript records the line (``narrate``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.guide import Guide

__all__ = ["HistoryTable", "history_table", "move_words", "narrate", "seen_rows", "words"]

PERSON = "human"
"""The person's player id in every game they play here (``playroom.session.HUMAN_ID``)."""
HIDDEN = frozenset(
    {
        "player_id",
        "seat",
        "players",
        "num_players",
        "opponent_id",
        "legal_actions",
        "action_space",
        "parameters",
        "history",
        "returns",
        "terminal",
    }
)
"""Keys shown elsewhere (the legal moves, the score, the history, the setup) or that say
nothing to a person (their own id, their seat number)."""
_LABELS = {
    "own_return": "your payoff",
    "own_payoff": "your payoff",
    "to_move": "whose move",
    "number_parity": "parity of the number",
    "rounds_played": "rounds played",
    "max_rounds": "last round",
}
HistoryTable = tuple[list[str], list[list[str]]]
"""Column headings, and one row of cells per round."""


def label(key: str) -> str:
    """An observation key in words: ``own_choice`` → "your choice",
    ``opponent_allocation`` → "opponent's allocation"."""
    if key in _LABELS:
        return _LABELS[key]
    for prefix, said in (("own_", "your "), ("opponent_", "opponent's ")):
        if key.startswith(prefix):
            return said + key.removeprefix(prefix).replace("_", " ")
    return key.replace("_", " ")


def who(player: Any) -> str:
    """A player id as the person reads it: themselves as "you"."""
    return "you" if player == PERSON else str(player)


def words(value: Any) -> str:
    """A value of an observation as text: no braces, no quotes, the person as "you"."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, str):
        return who(value)
    if isinstance(value, Mapping):
        return ", ".join(f"{who(key)} {words(item)}" for key, item in value.items()) or "none"
    if isinstance(value, Sequence):
        return ", ".join(words(item) for item in value) or "none"
    return str(value)


def _board(cells: Sequence[Any]) -> str:
    """A square board, row by row: ``X · O / · X · / · · O``."""
    side = round(len(cells) ** 0.5)
    marks = [str(cell) or "·" for cell in cells]
    return " / ".join(" ".join(marks[row * side : (row + 1) * side]) for row in range(side))


def seen_rows(observation: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The observation as (label, text) rows, in its own order; a private value is marked
    as such ("your private reservation value")."""
    rows: list[tuple[str, str]] = []
    for key, value in observation.items():
        if key in HIDDEN:
            continue
        if key == "private" and isinstance(value, Mapping):
            rows += [(f"your private {label(k)}", words(v)) for k, v in value.items()]
        elif key == "board" and isinstance(value, Sequence) and len(value) in (4, 9, 16):
            rows.append(("board", _board(value)))
        else:
            rows.append((label(key), words(value)))
    return rows


def move_words(move: Any, guide: Guide | None) -> str:
    """A move as the guide names it: "defect (D)"; the move alone when the name is the move."""
    shown = words(move)
    meaning = guide.meaning_of(move) if guide is not None else None
    if meaning is None or meaning.name.lower() == shown.lower():
        return shown
    return f"{meaning.name} ({shown})"


def _matrix_rows(entries: list[Mapping[str, Any]], guide: Guide | None) -> HistoryTable:
    """Rounds of a table game: each player's move, named, and each one's payoff."""
    others = [p for p in entries[0]["actions"] if p != PERSON]
    columns = ["round", "you", *others, "you got", *(f"{p} got" for p in others)]
    rows = []
    for number, entry in enumerate(entries, start=1):
        actions, rewards = entry["actions"], entry.get("rewards") or {}
        rows.append(
            [
                str(number),
                move_words(actions.get(PERSON), guide),
                *(move_words(actions.get(p), guide) for p in others),
                words(rewards.get(PERSON)),
                *(words(rewards.get(p)) for p in others),
            ]
        )
    return columns, rows


def history_table(observation: Mapping[str, Any], guide: Guide | None) -> HistoryTable | None:
    """The rounds played so far, one row each (None: the game keeps no history)."""
    history = observation.get("history")
    entries = [e for e in history if isinstance(e, Mapping)] if isinstance(history, list) else []
    if not entries:
        return None
    if all("actions" in entry for entry in entries):
        return _matrix_rows(entries, guide)
    keys = list(dict.fromkeys(k for entry in entries for k in entry if k != "own_intended"))
    numbered = "round" not in keys
    columns = (["round"] if numbered else []) + [label(key) for key in keys]
    rows = [
        ([str(number)] if numbered else [])
        + [
            move_words(entry.get(key), guide) if key == "response" else words(entry.get(key))
            for key in keys
        ]
        for number, entry in enumerate(entries, start=1)
    ]
    return columns, rows


def narrate(observation: Mapping[str, Any], guide: Guide | None) -> str:
    """The observation as one line of the transcript: its rows, then the last round."""
    said = "; ".join(f"{name} {text}" for name, text in seen_rows(observation))
    table = history_table(observation, guide)
    if table is not None:
        columns, rows = table
        last = ", ".join(f"{column} {cell}" for column, cell in zip(columns, rows[-1], strict=True))
        said = f"{said}; last: {last}" if said else f"last: {last}"
    return said or "nothing yet"

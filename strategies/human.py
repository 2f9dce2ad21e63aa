"""A person as a strategy: the ``human`` player host asks at its terminal when a move is due.

``league player --strategy human`` seats a person in a league: at each move call it shows
that player's observation, the legal moves and the deadline on the host's stdout and reads
the answer from its stdin. The wait ends at the deadline, so the host's own timeout applies
(a random legal move, logged and counted as a fallback) and no stale read is left behind.

``parse_move`` and ``observation_table`` are also what ``league play`` uses, so a move is
typed, checked and shown the same way at a league's table and at ``league play``.
"""

from __future__ import annotations

import io
import json
import os
import select
import sys
from datetime import datetime
from typing import Any, ClassVar, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from games import Action, ActionSpace
from sdk.timeutil import utc_now
from strategies.base import Classifier, Strategy
from strategies.registry import register_strategy
from strategies.view import MoveView

__all__ = [
    "HumanStrategy",
    "NoAnswerError",
    "observation_table",
    "parse_move",
    "read_line",
    "space_hint",
]

_HIDDEN_KEYS = ("legal_actions", "action_space", "parameters")
"""Observation keys shown elsewhere (the legal moves) or too long for the table."""


class NoAnswerError(TimeoutError):
    """The person did not answer before the deadline (or closed the input)."""


def space_hint(space: ActionSpace) -> str:
    """The legal moves as a sentence a person can act on."""
    if space.kind == "choice":
        return "one of: " + ", ".join(str(choice) for choice in space.choices)
    if space.kind == "number":
        low, high = (int(space.low), int(space.high)) if space.integer else (space.low, space.high)
        kind = "a whole number" if space.integer else "a number"
        return f"{kind} from {low} to {high}"
    return (
        f"{space.size} whole numbers ≥ 0 that add up to {space.total}, separated by "
        f"spaces or commas (e.g. {' '.join(['0'] * (space.size - 1) + [str(space.total)])})"
    )


def parse_move(text: str, space: ActionSpace) -> Action:
    """The move a person typed, as the wire carries it (choices match case-insensitively).

    Raises:
        ValueError: not a legal move; the message says what is legal.
    """
    typed = text.strip()
    if not typed:
        raise ValueError(f"no move typed; type {space_hint(space)}")
    move: Action
    if space.kind == "choice":
        by_text = {str(choice).lower(): choice for choice in space.choices}
        if typed.lower() not in by_text:
            raise ValueError(f"{typed!r} is not a legal move; type {space_hint(space)}")
        return by_text[typed.lower()]
    if space.kind == "number":
        try:
            number = float(typed)
        except ValueError:
            raise ValueError(f"{typed!r} is not a number; type {space_hint(space)}") from None
        move = int(number) if space.integer and number.is_integer() else number
    else:
        parts = typed.replace(",", " ").split()
        try:
            move = [int(part) for part in parts]
        except ValueError:
            raise ValueError(
                f"{typed!r} is not a list of whole numbers; type {space_hint(space)}"
            ) from None
        if len(move) != space.size:
            raise ValueError(
                f"{typed!r} has {len(move)} numbers, not {space.size}; type {space_hint(space)}"
            )
        if all(x >= 0 for x in move) and sum(move) != space.total:
            raise ValueError(
                f"{typed!r} adds up to {sum(move)}, not {space.total}; type {space_hint(space)}"
            )
    if not space.contains(move):
        raise ValueError(f"{typed!r} is not a legal move; type {space_hint(space)}")
    return move


def _cell(value: Any) -> str:
    """A value as table text, escaped: a JSON list must not read as rich markup."""
    return escape(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def observation_table(observation: dict[str, Any], title: str = "What you see") -> Table:
    """A player's observation as a two-column table (the legal moves are shown apart)."""
    table = Table(title=title, show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in observation.items():
        if key in _HIDDEN_KEYS or key == "history":
            continue
        table.add_row(key, _cell(value))
    return table


def history_table(history: list[Any], player_id: str) -> Table | None:
    """A repeated game's public history (``{"actions", "rewards"}`` per round), if any."""
    rounds = [entry for entry in history if isinstance(entry, dict) and "actions" in entry]
    if not rounds:
        return None
    others = [p for p in rounds[0]["actions"] if p != player_id]
    table = Table(title="History")
    for heading in ("round", "you", *others, "your payoff"):
        table.add_column(heading)
    for number, entry in enumerate(rounds, start=1):
        actions, rewards = entry["actions"], entry.get("rewards") or {}
        table.add_row(
            str(number),
            _cell(actions.get(player_id)),
            *(_cell(actions.get(p)) for p in others),
            _cell(rewards.get(player_id, "")),
        )
    return table


def read_line(stream: TextIO, deadline: datetime | None) -> str:
    """One line from ``stream``, waiting until ``deadline`` at most.

    A real file is read byte by byte from its descriptor (a buffered reader would hide
    typed lines from ``select``); a stream without one (a test's StringIO) is read as is.

    Raises:
        NoAnswerError: the deadline passed, or the input is closed.
    """
    try:
        descriptor = stream.fileno()
    except (io.UnsupportedOperation, AttributeError, ValueError):
        line = stream.readline()
        if not line:
            raise NoAnswerError("the input is closed") from None
        return line
    data = bytearray()
    while not data.endswith(b"\n"):
        wait = None if deadline is None else (deadline - utc_now()).total_seconds()
        if wait is not None and wait <= 0:
            raise NoAnswerError("no answer before the deadline")
        ready, _, _ = select.select([descriptor], [], [], wait)
        if not ready:
            raise NoAnswerError("no answer before the deadline")
        byte = os.read(descriptor, 1)
        if not byte:
            if data:
                break
            raise NoAnswerError("the input is closed")
        data += byte
    return data.decode("utf-8", errors="replace")


@register_strategy("human")
class HumanStrategy(Strategy):
    """A person at the host's terminal: shows the observation, the legal moves and the
    deadline, re-asks on a bad answer, and gives up at the deadline (the host then plays
    its fallback)."""

    classifier: ClassVar[Classifier] = Classifier(memory_depth=None, stochastic=False, inline=False)

    def __init__(self, *, stdin: TextIO | None = None, stdout: TextIO | None = None):
        self._stdin = stdin
        self._console = (
            Console(file=stdout, highlight=False)
            if stdout is not None
            else Console(highlight=False)
        )

    def choose(self, view: MoveView) -> Action:
        """The person's move; ``NoAnswerError`` when the deadline passes first."""
        stdin = self._stdin if self._stdin is not None else sys.stdin
        space = view.space()
        out = self._console
        out.rule(
            f"{view.game_type} · match {view.match_id} · you are {view.player_id}"
            f" against {view.opponent_id or 'an opponent'}"
        )
        if view.observation:
            out.print(observation_table(view.observation))
            table = history_table(view.observation.get("history") or [], view.player_id)
            if table is not None:
                out.print(table)
        for note in view.messages:
            out.print(f"[italic]{note.get('player_id')} says:[/italic] {note.get('text')}")
        seconds = max(0, int((view.deadline - utc_now()).total_seconds()))
        out.print(f"Legal moves: {space_hint(space)}")
        out.print(f"Answer within {seconds} s (deadline {view.deadline:%H:%M:%S} UTC).")
        while True:
            out.print("Your move: ", end="")
            try:
                line = read_line(stdin, view.deadline)
            except NoAnswerError as exc:
                out.print(f"\n[red]{exc}[/red]: the host plays a random legal move for you.")
                raise
            try:
                return parse_move(line, space)
            except ValueError as exc:
                out.print(f"[yellow]{escape(str(exc))}[/yellow]")

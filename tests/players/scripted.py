"""Strategies with known faults, loaded by the host through their dotted paths
(``tests.players.scripted:IllegalStrategy``), as a student's strategy would be."""

from __future__ import annotations

import threading

from players import MoveView, PastMatch, Say, Strategy

RELEASE = threading.Event()
"""Set by the test that used SlowStrategy, so no worker thread outlives it."""


class IllegalStrategy(Strategy):
    """Answers a move that does not exist."""

    def choose(self, view: MoveView) -> str:
        return "maybe"


class RaisingStrategy(Strategy):
    """Crashes on every move."""

    def choose(self, view: MoveView) -> str:
        raise ZeroDivisionError("a student bug")


class SlowStrategy(Strategy):
    """Thinks until the test releases it (at most 5 s)."""

    def choose(self, view: MoveView) -> str:
        RELEASE.wait(5)
        return "odd"


class RecordingStrategy(Strategy):
    """Plays "odd" and keeps every view and result it was given."""

    def __init__(self) -> None:
        self.views: list[MoveView] = []
        self.results: list[PastMatch] = []
        self.resets = 0

    def choose(self, view: MoveView) -> str:
        self.views.append(view)
        return "odd"

    def on_match_over(self, result: PastMatch) -> None:
        self.results.append(result)

    def reset(self) -> None:
        self.resets += 1


def always_odd(view: MoveView) -> str:
    """A function strategy."""
    return "odd"


class BrokenHookStrategy(Strategy):
    """Plays "even" but crashes whenever a match ends."""

    def choose(self, view: MoveView) -> str:
        return "even"

    def on_match_over(self, result: PastMatch) -> None:
        raise RuntimeError("a bug in the hook")


def talker(view: MoveView) -> Say:
    """Cooperates, says how many messages it heard, and keeps a private note."""
    heard = " / ".join(note["text"] for note in view.messages)
    return Say("C", message=f"heard: {heard or 'nothing'}", reasoning="be nice first")

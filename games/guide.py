"""What a newcomer reads before playing a game: its rules in a sentence or two and what each
move means, stated by each game module beside its spec (``GameSpec.guide``), in words for a
person and for a language model alike. The ``/play`` page shows it with the payoff table
of a matrix game (``games.matrix.two_player_table``); the ``llm`` strategy's prompt is
written from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Guide", "MoveMeaning"]


@dataclass(frozen=True)
class MoveMeaning:
    """One move in words."""

    move: str
    """A choice exactly as sent (``"C"``, ``"accept"``), or, for a move that is a number or
    a list of numbers, its move type (``"offer"``, ``"bid"``, ``"allocation"``)."""
    name: str
    """A few words (``"cooperate"``), shown beside the move."""
    meaning: str
    """What playing it does, in one sentence."""


@dataclass(frozen=True)
class Guide:
    """A game's rules for someone who has never played it."""

    rules: str
    """A sentence or three: who moves when, what decides the payoffs (defaults named)."""
    moves: tuple[MoveMeaning, ...]

    def meaning_of(self, move: Any) -> MoveMeaning | None:
        """The meaning of a choice (or of a move type), if the guide states it."""
        return next((m for m in self.moves if m.move == str(move)), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "moves": [{"move": m.move, "name": m.name, "meaning": m.meaning} for m in self.moves],
        }

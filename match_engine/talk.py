"""What the players of a match say to each other, when the league lets them talk.

A move may carry a short ``message`` for the other players and a ``reasoning`` note. The
referee relays each message, cut to the league's bound, to the other players in their next
move call, and keeps the reasoning for the match file only: it is never relayed, so a
player cannot read another's plans.
"""

from __future__ import annotations

from typing import Any

from sdk.messages import Communication, MoveData

__all__ = ["Talk"]


class Talk:
    """The messages of one match, and who has been shown which."""

    def __init__(self, communication: Communication):
        self._rules = communication
        self._said: list[dict[str, Any]] = []
        self._shown: dict[str, int] = {}

    def unseen_by(self, player: str) -> list[dict[str, Any]]:
        """The others' messages this player has not been shown yet (marked shown now)."""
        if not self._rules.enabled:
            return []
        start = self._shown.get(player, 0)
        self._shown[player] = len(self._said)
        return [note for note in self._said[start:] if note["player_id"] != player]

    def hear(self, stage: int, moves: dict[str, MoveData]) -> dict[str, Any]:
        """Take in what the players said with their moves of ``stage``: the messages (cut
        to the bound) to relay, and the reasoning to record. Nothing when talk is off."""
        if not self._rules.enabled:
            return {"messages": [], "reasoning": {}}
        limit = self._rules.max_message_chars
        messages = []
        for player, move in moves.items():
            if move.message:
                note = {
                    "player_id": player,
                    "stage": stage,
                    "text": move.message[:limit],
                    "truncated": len(move.message) > limit,
                }
                messages.append(note)
        self._said.extend(messages)
        reasoning = {player: move.reasoning for player, move in moves.items() if move.reasoning}
        return {"messages": messages, "reasoning": reasoning}

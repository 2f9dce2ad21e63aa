"""Match records for the analysis tests: a scripted observation strategy and a match file
built as the referee builds one."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games import ActionSpace, load_game
from games.spec import Action
from games.strategies import ObservationBaseline

__all__ = ["Scripted", "match_document"]


class Scripted(ObservationBaseline):
    """Plays its list of moves in order, one per call (a test double)."""

    name = "scripted"

    def __init__(self, moves: Sequence[Action]):
        self.moves = list(moves)
        self.calls = 0

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        move = self.moves[self.calls]
        self.calls += 1
        return move


def match_document(
    game_type: str,
    moves: Sequence[dict[str, Any]],
    seed: int = 3,
    players: Sequence[str] = ("A", "B"),
    **parameters: Any,
) -> dict[str, Any]:
    """A match file as the referee writes it: stages of moves, the result with payoffs and
    the final state (only the fields the readers use)."""
    players = list(players)
    state = load_game(game_type).create(players, **parameters)
    state.reset(seed)
    for joint in moves:
        state.step(joint)
    payoffs = state.payoffs()
    best = max(payoffs.values())
    leaders = [p for p, v in payoffs.items() if v == best]
    return {
        "match_id": "R1M1",
        "game_type": game_type,
        "players": [{"player_id": p, "role": f"PLAYER_{'ABCD'[i]}"} for i, p in enumerate(players)],
        "stages": [
            {"stage": i + 1, "at": "2025-01-01T00:00:00Z", "moves": m} for i, m in enumerate(moves)
        ],
        "result": {
            "game_result": {"status": "WIN" if len(leaders) == 1 else "DRAW", "payoffs": payoffs},
            "report": {
                "score": {p: 3.0 if [p] == leaders else 1.0 for p in players},
                "details": {"payoffs": payoffs},
            },
            "game_state": state.to_json(),
        },
    }

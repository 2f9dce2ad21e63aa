"""Hand-made match files in the referees' format, for the analytics and report tests: an
even/odd league whose meta-game is known, and repeated prisoner's dilemma leagues."""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

__all__ = [
    "PD_PAYOFFS",
    "even_odd_match",
    "pd_match",
    "standings_for",
    "synthetic_pd_league",
    "write_matches",
]

PD_PAYOFFS = {
    ("C", "C"): (3.0, 3.0),
    ("C", "D"): (0.0, 5.0),
    ("D", "C"): (5.0, 0.0),
    ("D", "D"): (1.0, 1.0),
}
_POINTS = {"win": 3.0, "draw": 1.0, "loss": 0.0}


def _seats(a: str, b: str) -> list[dict[str, str]]:
    return [
        {"player_id": a, "display_name": f"Name {a}", "role": "PLAYER_A"},
        {"player_id": b, "display_name": f"Name {b}", "role": "PLAYER_B"},
    ]


def _score(a: str, b: str, winner: str | None) -> dict[str, float]:
    if winner is None:
        return {a: _POINTS["draw"], b: _POINTS["draw"]}
    return {p: _POINTS["win"] if p == winner else _POINTS["loss"] for p in (a, b)}


def even_odd_match(
    match_id: str, round_id: int, a: str, b: str, winner: str | None
) -> dict[str, Any]:
    """An even/odd match ``winner`` won (a draw when None)."""
    choices = {a: "even", b: "odd"}
    status = "DRAW" if winner is None else "WIN"
    details = {
        "status": status,
        "drawn_number": 4,
        "number_parity": "even",
        "choices": choices,
        "technical_losers": [],
        "reason": "hand-made",
    }
    return {
        "match_id": match_id,
        "league_id": "league_test",
        "round_id": round_id,
        "game_type": "even_odd",
        "players": _seats(a, b),
        "stages": [],
        "result": {
            "game_result": {**details, "winner_player_id": winner},
            "report": {"winner": winner, "score": _score(a, b, winner), "details": details},
        },
    }


def pd_match(
    match_id: str, round_id: int, a: str, b: str, moves_a: str, moves_b: str
) -> dict[str, Any]:
    """A repeated prisoner's dilemma match of ``len(moves_a)`` rounds ("C"/"D" per round)."""
    totals = {a: 0.0, b: 0.0}
    history = []
    for move_a, move_b in zip(moves_a, moves_b, strict=True):
        pay_a, pay_b = PD_PAYOFFS[(move_a, move_b)]
        totals[a] += pay_a
        totals[b] += pay_b
        moves = {a: move_a, b: move_b}
        history.append({"intended": moves, "actions": moves, "rewards": {a: pay_a, b: pay_b}})
    best = max(totals.values())
    leaders = [p for p, v in totals.items() if v == best]
    winner = leaders[0] if len(leaders) == 1 else None
    details = {
        "status": "WIN" if winner else "DRAW",
        "technical_losers": [],
        "reason": "hand-made",
        "payoffs": totals,
    }
    parameters = {
        "actions": [["C", "D"], ["C", "D"]],
        "payoffs": {f"{x},{y}": list(v) for (x, y), v in PD_PAYOFFS.items()},
        "rounds": len(moves_a),
        "noise": 0.0,
        "discount": 1.0,
    }
    return {
        "match_id": match_id,
        "league_id": "league_test",
        "round_id": round_id,
        "game_type": "prisoners_dilemma",
        "players": _seats(a, b),
        "stages": [
            {"stage": i + 1, "moves": {a: x, b: y}}
            for i, (x, y) in enumerate(zip(moves_a, moves_b, strict=True))
        ],
        "result": {
            "game_result": {**details, "winner_player_id": winner, "payoffs": totals},
            "report": {"winner": winner, "score": _score(a, b, winner), "details": details},
            "game_state": {
                "game_id": "prisoners_dilemma_v1",
                "players": [a, b],
                "parameters": parameters,
                "history": history,
            },
        },
    }


def standings_for(players: list[str], documents: list[dict[str, Any]]) -> dict[str, Any]:
    """A standings document (the League Manager's shape) from the matches' points."""
    rows = {
        p: {
            "player_id": p,
            "display_name": f"Name {p}",
            "played": 0,
            "wins": 0,
            "draws": 0,
            "losses": 0,
            "points": 0.0,
            "technical_losses": 0,
        }
        for p in players
    }
    for document in documents:
        winner = document["result"]["report"]["winner"]
        for player, points in document["result"]["report"]["score"].items():
            row = rows[player]
            row["played"] += 1
            row["points"] += points
            key = "draws" if winner is None else "wins" if winner == player else "losses"
            row[key] += 1
    ranked = sorted(rows.values(), key=lambda r: (-r["points"], r["player_id"]))
    return {
        "league_id": "league_test",
        "version": len(documents),
        "standings": [{"rank": i + 1, **row} for i, row in enumerate(ranked)],
    }


def synthetic_pd_league(
    players: int, rounds: int = 10, seed: int = 0
) -> tuple[list[str], list[dict[str, Any]]]:
    """A round robin of ``players`` players, each cooperating with its own probability."""
    rng = random.Random(seed)
    ids = [f"P{i + 1:02d}" for i in range(players)]
    kindness = {p: rng.random() for p in ids}

    def moves(player: str) -> str:
        return "".join("C" if rng.random() < kindness[player] else "D" for _ in range(rounds))

    documents = [
        pd_match(f"M{n:04d}", 1 + n // max(1, players // 2), a, b, moves(a), moves(b))
        for n, (a, b) in enumerate(combinations(ids, 2))
    ]
    return ids, documents


def write_matches(folder: Path, documents: list[dict[str, Any]]) -> Path:
    """The documents as match files ``<match_id>.json`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for document in documents:
        (folder / f"{document['match_id']}.json").write_text(json.dumps(document))
    return folder

"""What the referees' match files of a league say, for end-to-end tests to check the League
Manager's standings against."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from league_manager.pg.leader_store import read_schedule_before_serving
from league_manager.scheduler import ScheduledRound, make_schedule
from match_engine.decisions import DECIDED_FOLDER
from sdk.config import SharedDir

__all__ = ["match_files", "recompute_standings", "schedule_document", "scheduled_rounds"]


def schedule_document(
    shared: SharedDir, league_id: str, store_url: str | None = None
) -> dict[str, Any]:
    """rounds.json's content, or the schedule's rows in the PostgreSQL store at ``store_url``."""
    if store_url is None:
        loaded: dict[str, Any] = json.loads(
            (shared.league_dir(league_id) / "rounds.json").read_text()
        )
        return loaded
    document, _ = read_schedule_before_serving(store_url, league_id)
    assert document is not None, f"the store holds no league {league_id}"
    return document


def scheduled_rounds(
    shared: SharedDir, league_id: str, store_url: str | None = None
) -> list[ScheduledRound]:
    """The league's whole schedule, made from what ``rounds.json`` (or the store) holds (its
    players in order, the match size and the rounds: the schedule is deterministic in them)."""
    document = schedule_document(shared, league_id, store_url)
    players = [player["player_id"] for player in document["players"]]
    return make_schedule(players, document["players_per_match"], document["total_rounds"]).rounds()


SETTLE_SEC = 15.0
"""How long a referee may take to write a match file after the League Manager took its
report (it tells its players first, then writes the file)."""


def match_files(shared: SharedDir, league_id: str) -> list[dict[str, Any]]:
    """Every match file the referees wrote for ``league_id``, by match id, once no decided
    match waits for its file: a referee reports a result, then tells the players, then
    writes the file (until then the decided record is in its decisions journal, emptied
    once every file is written), so a league can be COMPLETED while its last GAME_OVERs are
    on their way and their files not yet written."""
    folder = shared.data_dir / "matches" / league_id
    deadline = time.monotonic() + SETTLE_SEC
    while True:
        waiting = [
            journal.name
            for journal in sorted(folder.glob(f"{DECIDED_FOLDER}/*.jsonl"))
            if _size(journal)
        ]
        documents = [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]
        pending = [d["match_id"] for d in documents if d.get("report_status") == "pending"]
        if not pending and not waiting:
            return documents
        if time.monotonic() > deadline:
            raise AssertionError(
                f"after {SETTLE_SEC:g} s, match files still pending: {pending}, "
                f"decided matches waiting for their files in {waiting}"
            )
        time.sleep(0.05)


def _size(path: Path) -> int:
    """0 for a file removed meanwhile (a referee that stopped)."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def recompute_standings(
    shared: SharedDir, league_id: str, matches: list[dict[str, Any]]
) -> dict[str, Counter[str]]:
    """Played, wins, draws, losses and points per player, from the match files and the
    league's scoring (a technical loss counts as a loss; with no winner, the sound players
    with the best payoff draw and the others lose)."""
    scoring = shared.league(league_id).scoring
    table: dict[str, Counter[str]] = {}
    for match in matches:
        report = match["result"]["report"]
        losers = set(report["details"].get("technical_losers", []))
        payoffs = report["details"].get("payoffs") or {}
        sound = [seat["player_id"] for seat in match["players"] if seat["player_id"] not in losers]
        best = max((payoffs[player] for player in sound), default=None) if payoffs else None
        for seat in match["players"]:
            player = seat["player_id"]
            row = table.setdefault(player, Counter())
            row["played"] += 1
            if player in losers:
                row["losses"] += 1
                row["points"] += scoring.technical_loss
            elif report["winner"] is None and best is not None and payoffs[player] < best:
                row["losses"] += 1
                row["points"] += scoring.loss
            elif report["winner"] is None:
                row["draws"] += 1
                row["points"] += scoring.draw
            elif report["winner"] == player:
                row["wins"] += 1
                row["points"] += scoring.win
            else:
                row["losses"] += 1
                row["points"] += scoring.loss
    return table

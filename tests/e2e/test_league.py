"""Whole leagues with every agent a real process on free loopback ports, checked against the
files they leave: the schedule, each match file and the standings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import LeaguePlan, start_processes, wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir
from tests.match_files import match_files, recompute_standings, schedule_document, scheduled_rounds
from tests.postgres import accepted_rows

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"
STRATEGIES = ["random", "history", "fixed"]


@pytest.fixture
def launcher(tmp_path: Path) -> Iterator[Launcher]:
    shared = make_shared_dir(tmp_path / "SHARED")
    launched = Launcher(shared.root)
    try:
        yield launched
    finally:
        launched.stop_all()


def play_league(
    launcher: Launcher,
    players: int,
    league_id: str = LEAGUE,
    game_type: str | None = None,
    strategies: list[str] = STRATEGIES,
    store_url: str | None = None,
) -> tuple[str, dict[str, Any]]:
    plan = LeaguePlan(
        shared_dir=launcher.shared_dir,
        players=[
            (f"Player{i + 1}", free_port(), strategies[i % len(strategies)]) for i in range(players)
        ],
        referees=[(f"Ref{i + 1}", free_port(), 2) for i in range(2)],
        lm_port=free_port(),
        league_id=league_id,
        game_type=game_type,
        store_url=store_url,
    )
    with httpx.Client(timeout=10) as client:
        lm_url = start_processes(plan, launcher, client)
        started = league_command(launcher, "start", "--lm-url", lm_url, "--league-id", league_id)
        assert started.returncode == 0, started.stdout + started.stderr
        assert f"{players} players" in started.stdout
        wait_for(
            lambda: client.get(f"{lm_url}/status").json()["state"] == "COMPLETED",
            90,
            "the league to complete",
        )
        return lm_url, client.get(f"{lm_url}/standings").json()


def league_command(launcher: Launcher, *args: str) -> subprocess.CompletedProcess[str]:
    """The ``league`` command as a user runs it (the admin token from the League
    Manager's file, found through --shared-dir)."""
    return subprocess.run(
        [sys.executable, "-m", "league_cli", *args, "--shared-dir", str(launcher.shared_dir)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "COLUMNS": "200"},
    )


def check_transcript(match: dict[str, Any]) -> None:
    states = [entry["state"] for entry in match["lifecycle"]]
    assert states == ["WAITING_FOR_PLAYERS", "COLLECTING_CHOICES", "DRAWING_NUMBER", "FINISHED"], (
        f"{match['match_id']}: lifecycle {states}"
    )
    assert match["report_status"] == "reported", match["match_id"]
    transcript = match["transcript"]
    for seat in match["players"]:
        seen = [(e["direction"], e["method"]) for e in transcript if e["peer"] == seat["player_id"]]
        for step in [
            ("sent", "handle_game_invitation"),
            ("received", "handle_game_invitation"),
            ("sent", "choose_parity"),
            ("received", "choose_parity"),
            ("sent", "notify_match_result"),
        ]:
            assert step in seen, f"{match['match_id']}: {step} missing for {seat['player_id']}"
    reported = [e for e in transcript if e["method"] == "report_match_result"]
    assert reported, f"{match['match_id']}: no MATCH_RESULT_REPORT in the transcript"
    assert all(
        e.get("message", {}).get("auth_token") in (None, "")
        or str(e["message"]["auth_token"]).startswith("sha256:")
        for e in transcript
    ), "a token appears in full in a match file"


@pytest.mark.parametrize(
    ("players", "store_url"),
    [(4, "files"), (5, "files"), (4, "postgresql")],
    indirect=["store_url"],
)
def test_a_whole_league_over_http(launcher: Launcher, players: int, store_url: str | None) -> None:
    """On either store: on PostgreSQL the results are rows, and the standings are theirs."""
    lm_url, standings = play_league(launcher, players, store_url=store_url)
    shared = SharedDir(launcher.shared_dir)
    schedule = schedule_document(shared, LEAGUE, store_url)
    rounds = scheduled_rounds(shared, LEAGUE, store_url)
    pairs = Counter(frozenset((m.player_A_id, m.player_B_id)) for r in rounds for m in r.matches)
    ids = [p["player_id"] for p in schedule["players"]]
    assert set(pairs) == {frozenset(pair) for pair in combinations(ids, 2)}, "a pair is missing"
    assert set(pairs.values()) == {1}, "a pair met twice"
    assert len(schedule["rounds"]) == (players - 1 if players % 2 == 0 else players)

    matches = match_files(shared, LEAGUE)
    assert sorted(m["match_id"] for m in matches) == sorted(
        m.match_id for r in rounds for m in r.matches
    )
    for match in matches:
        check_transcript(match)

    recomputed = recompute_standings(shared, LEAGUE, matches)
    for row in standings["standings"]:
        mine = recomputed[row["player_id"]]
        assert (row["played"], row["wins"], row["draws"], row["losses"], row["points"]) == (
            mine["played"],
            mine["wins"],
            mine["draws"],
            mine["losses"],
            mine["points"],
        ), f"{row['player_id']}: standings disagree with the match files"
        assert row["played"] == players - 1
    on_disk = json.loads((shared.league_dir(LEAGUE) / "standings.json").read_text())
    assert on_disk["standings"] == standings["standings"]
    if store_url is not None:
        rows = accepted_rows(store_url, LEAGUE)
        assert sorted(row["match_id"] for row in rows) == sorted(m["match_id"] for m in matches)
        assert not (shared.league_dir(LEAGUE) / "journal.jsonl").exists()
        for row in standings["standings"]:
            points = sum(r["points"].get(row["player_id"], 0) for r in rows)
            played = sum(row["player_id"] in r["outcomes"] for r in rows)
            assert (row["points"], row["played"]) == (points, played), row["player_id"]

    shown = league_command(launcher, "standings", "--lm-url", lm_url)
    assert shown.returncode == 0 and "Player1" in shown.stdout, shown.stdout + shown.stderr
    status = league_command(launcher, "status", "--lm-url", lm_url)
    assert status.returncode == 0 and "SHUTDOWN" in status.stdout, status.stdout
    refused = league_command(launcher, "start", "--lm-url", lm_url)
    assert refused.returncode == 1 and "already COMPLETED" in refused.stdout

    with httpx.Client(timeout=10) as client:
        for process in launcher.processes:
            if process.kind == "player":
                status = client.get(f"{process.base_url}/status").json()
                assert status["state"] == "SHUTDOWN", f"{process.name} missed LEAGUE_COMPLETED"
        completed = [
            json.loads(line)
            for path in (shared.logs_dir / "agents").glob("P*.log.jsonl")
            for line in path.read_text().splitlines()
            if '"LEAGUE_COMPLETED"' in line and '"message_received"' in line
        ]
        assert len(completed) == players, "every player logged LEAGUE_COMPLETED once"
        league_log = shared.league_log_path(LEAGUE).read_text()
        assert '"league_completed"' in league_log


def test_a_repeated_prisoners_dilemma_league_over_http(launcher: Launcher) -> None:
    league_id = "league_2025_prisoners_dilemma"
    _, standings = play_league(launcher, 4, league_id, "prisoners_dilemma")
    shared = SharedDir(launcher.shared_dir)
    rounds = shared.league(league_id).game_params["rounds"]
    matches = match_files(shared, league_id)
    assert len(matches) == 6
    for match in matches:
        assert match["report_status"] == "reported", match["match_id"]
        assert len(match["stages"]) == rounds, f"{match['match_id']}: one stage per round"
        assert all(set(stage["moves"].values()) <= {"C", "D"} for stage in match["stages"])
        payoffs = match["result"]["report"]["details"]["payoffs"]
        best = max(payoffs.values())
        leaders = [player for player, value in payoffs.items() if value == best]
        winner = match["result"]["report"]["winner"]
        assert winner == (leaders[0] if len(leaders) == 1 else None), match["match_id"]
        calls = [
            e
            for e in match["transcript"]
            if e["method"] == "make_move" and e["direction"] == "sent"
        ]
        assert len(calls) == 2 * rounds, "a move call per player per round"
    recomputed = recompute_standings(shared, league_id, matches)
    for row in standings["standings"]:
        mine = recomputed[row["player_id"]]
        assert (row["wins"], row["draws"], row["losses"], row["points"]) == (
            mine["wins"],
            mine["draws"],
            mine["losses"],
            mine["points"],
        )


def test_a_public_goods_league_of_four_player_matches_over_http(launcher: Launcher) -> None:
    league_id = "league_2025_public_goods"
    strategies = ["full_contributor", "free_rider", "conditional_cooperator", "random"]
    _, standings = play_league(launcher, 6, league_id, "public_goods", strategies)
    shared = SharedDir(launcher.shared_dir)
    config = shared.league(league_id)
    schedule = json.loads((shared.league_dir(league_id) / "rounds.json").read_text())
    assert len(schedule["rounds"]) == 2, "⌈(6−1)/(4−1)⌉ rounds"
    matches = match_files(shared, league_id)
    assert len(matches) == 2 and all(len(r["byes"]) == 2 for r in schedule["rounds"])
    for match in matches:
        seats = [seat["role"] for seat in match["players"]]
        assert seats == ["PLAYER_A", "PLAYER_B", "PLAYER_C", "PLAYER_D"], match["match_id"]
        assert match["report_status"] == "reported", match["match_id"]
        assert len(match["stages"]) == config.game_params["rounds"]
        assert all(len(stage["moves"]) == 4 for stage in match["stages"])
        invitations = [
            e["message"]
            for e in match["transcript"]
            if e["method"] == "handle_game_invitation" and e["direction"] == "sent"
        ]
        assert all(len(m["opponent_ids"]) == 3 for m in invitations)
        payoffs = match["result"]["report"]["details"]["payoffs"]
        free_riders = [
            seat["player_id"]
            for seat in match["players"]
            if seat["display_name"] in {"Player2", "Player6"}
        ]
        assert all(payoffs[p] == max(payoffs.values()) for p in free_riders), (
            "in public goods nobody earns more than a free rider"
        )
    recomputed = recompute_standings(shared, league_id, matches)
    for row in standings["standings"]:
        mine = recomputed.get(row["player_id"], {})
        assert (row["played"], row["wins"], row["draws"], row["losses"], row["points"]) == (
            mine.get("played", 0),
            mine.get("wins", 0),
            mine.get("draws", 0),
            mine.get("losses", 0),
            mine.get("points", 0),
        ), row["player_id"]

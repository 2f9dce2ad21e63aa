"""Leagues of thousands: the schedule on demand, pages of it, O(1) lookups, rankings that
queries do not redo per result, group commit of the journal, and fan-out that neither
waits for a slow player nor goes out when a league turns broadcasts off."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from league_manager import match_flow as match_flow_module
from league_manager import ranking as ranking_module
from league_manager import schedule_book as schedule_book_module
from league_manager.book import LeagueBook
from league_manager.records import LeagueStatus, ResultRecord
from league_manager.scheduler import CircleSchedule, make_schedule, parse_match_id
from sdk.config import ScoringConfig, SharedDir
from sdk.store import Journal, read_json
from tests.league_manager.conftest import (
    World,
    record_result,
    running_world,
    schedule_league,
    wait_until,
)
from tests.league_manager.test_app import admin, league_of

SCORING = ScoringConfig()


def ids(n: int) -> list[str]:
    return [f"P{i:05d}" for i in range(1, n + 1)]


# --- the schedule on demand ---------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=40))
def test_every_lookup_agrees_with_the_listed_round_robin(n: int) -> None:
    schedule = CircleSchedule(ids(n))
    rounds = schedule.rounds()
    assert schedule.total_rounds == len(rounds)
    assert schedule.total_matches == sum(len(r.matches) for r in rounds) == n * (n - 1) // 2
    for round_ in rounds:
        assert schedule.matches_in(round_.round_id) == len(round_.matches)
        assert schedule.byes(round_.round_id) == round_.byes
        for match in round_.matches:
            assert schedule.match(match.match_id) == match
            assert parse_match_id(match.match_id) == (
                round_.round_id,
                round_.matches.index(match) + 1,
            )
            for player in match.player_ids:
                assert schedule.match_of(player, round_.round_id) == match
        for player in round_.byes:
            assert schedule.match_of(player, round_.round_id) is None


@pytest.mark.parametrize(
    "match_id", ["R0M1", "R1M0", "R8M1", "R1M5", "R01M1", "x", "R1M1 ", "R99999999999M1"]
)
def test_match_ids_outside_the_schedule_are_none(match_id: str) -> None:
    assert CircleSchedule(ids(8)).match(match_id) is None


def test_ten_thousand_players_are_scheduled_without_listing_fifty_million_matches() -> None:
    started = time.perf_counter()
    schedule = make_schedule(ids(10_000))
    last = schedule.round(schedule.total_rounds)
    elapsed = time.perf_counter() - started
    assert schedule.total_matches == 49_995_000 and len(last.matches) == 5_000
    assert elapsed < 2, f"{elapsed:.2f} s"
    pairs = {frozenset(m.player_ids) for r in (1, 777, 9_999) for m in schedule.round(r).matches}
    assert len(pairs) == 15_000, "three rounds share no pair"


# --- the book --------------------------------------------------------------------------------


def result(match_id: str, round_id: int, players: list[str], winner: str | None) -> ResultRecord:
    outcomes: dict[str, Any] = {
        p: "DRAW" if winner is None else ("WIN" if p == winner else "LOSS") for p in players
    }
    points = {
        p: {"WIN": SCORING.win, "DRAW": SCORING.draw, "LOSS": SCORING.loss}[o]
        for p, o in outcomes.items()
    }
    return ResultRecord.of(
        match_id=match_id,
        round_id=round_id,
        referee_id="REF01",
        outcomes=outcomes,
        points=points,
        winner=winner,
        details={},
        recorded_at="2026-01-01T00:00:00Z",
    )


def test_a_kept_result_gives_back_the_line_it_was_read_from() -> None:
    line = result("R1M1", 1, ["P1", "P2"], "P1").to_line() | {
        "details": {"drawn_number": 7, "choices": {"P1": "even", "P2": "odd"}, "note": "é"}
    }
    kept = ResultRecord.from_line(json.loads(json.dumps(line)))
    assert kept.to_line() == line
    assert kept.outcomes == {"P1": "WIN", "P2": "LOSS"} and kept.points["P1"] == SCORING.win
    kept.details["note"] = "changed"
    assert kept.details["note"] == "é", "each read is a copy: the kept result cannot change"


def play_round(book: LeagueBook, index: int) -> None:
    round_record = book.schedule.rounds[index]
    book.schedule.mark_round(round_record, "RUNNING")
    for match in book.schedule.open_round(round_record):
        record_result(
            book, result(match.match_id, match.round_id, match.player_ids, match.player_ids[0])
        )
    book.schedule.mark_round(round_record, "COMPLETED")


def test_rounds_json_lists_only_the_round_being_played(tmp_path: Path) -> None:
    book = LeagueBook.open(tmp_path, "big", SCORING)
    players = [(p, p) for p in ids(200)]
    schedule_league(book, players)
    book.schedule.mark_league(LeagueStatus.RUNNING)
    play_round(book, 0)
    book.schedule.mark_round(book.schedule.rounds[1], "RUNNING")
    live = book.schedule.open_round(book.schedule.rounds[1])
    on_disk = read_json(tmp_path / "rounds.json")
    book.close()
    listed = {r["round_id"]: len(r["matches"]) for r in on_disk["rounds"]}
    assert len(listed) == 199 and listed[1] == 0 and listed[3] == 0
    assert on_disk["players_per_match"] == 2 and on_disk["total_matches"] == 19_900
    reopened = LeagueBook.open(tmp_path, "big", SCORING)
    try:
        assert reopened.schedule.rounds[1].matches == [], "not listed until written running"
        assert len(reopened.results) == 100 and reopened.schedule.rounds_completed() == 1
        assert reopened.schedule.match(live[0].match_id).player_ids == live[0].player_ids
        assert reopened.schedule.match("R1M1").status == "COMPLETED"
        assert (
            reopened.schedule.match("R1M1").winner == reopened.schedule.match("R1M1").player_ids[0]
        )
    finally:
        reopened.close()


def test_a_schedule_file_listing_every_match_still_loads(tmp_path: Path) -> None:
    """rounds.json as written before schedules were made on demand: every round listed,
    no players_per_match."""
    players = ids(4)
    rounds = [
        {
            "round_id": r.round_id,
            "status": "COMPLETED" if r.round_id == 1 else "PENDING",
            "byes": r.byes,
            "matches": [
                {
                    "match_id": m.match_id,
                    "round_id": m.round_id,
                    "player_A_id": m.player_A_id,
                    "player_B_id": m.player_B_id,
                    "player_ids": m.player_ids,
                }
                for m in r.matches
            ],
        }
        for r in CircleSchedule(players).rounds()
    ]
    (tmp_path / "rounds.json").write_text(
        json.dumps(
            {
                "league_id": "old",
                "status": "RUNNING",
                "rounds": rounds,
                "players": [{"player_id": p, "display_name": p} for p in players],
            }
        )
    )
    journal = Journal(tmp_path / "journal.jsonl")
    for match in rounds[0]["matches"]:
        journal.append(result(match["match_id"], 1, match["player_ids"], None).to_line())
    journal.close()
    book = LeagueBook.open(tmp_path, "old", SCORING)
    try:
        assert all("standings.json was missing" in note for note in book.recovery_notes)
        assert book.schedule.rounds_completed() == 1 and len(book.results) == 2
        assert book.schedule.rounds[0].matches == [], "a completed round's matches are not kept"
        assert book.schedule.next_match_of(players[0]).round_id == 2
        book.schedule.write()
    finally:
        book.close()
    assert read_json(tmp_path / "rounds.json")["players_per_match"] == 2


def test_next_match_and_player_stats_look_at_the_player_only(tmp_path: Path) -> None:
    book = LeagueBook.open(tmp_path, "big", SCORING)
    schedule_league(book, [(p, p) for p in ids(101)])
    book.schedule.mark_league(LeagueStatus.RUNNING)
    schedule = make_schedule(ids(101))
    try:
        for index in range(3):
            play_round(book, index)
        for player in ("P00001", "P00050", "P00101"):
            found = book.schedule.next_match_of(player)
            expected = next(m for r in range(4, 102) if (m := schedule.match_of(player, r)))
            assert found is not None and found.match_id == expected.match_id
            assert [r.match_id for r in book.results.results_of(player)] == [
                m.match_id for r in (1, 2, 3) if (m := schedule.match_of(player, r))
            ]
    finally:
        book.close()


def test_queries_answer_a_recent_ranking_and_the_snapshot_an_exact_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    book = LeagueBook.open(tmp_path, "big", SCORING)
    schedule_league(book, [(p, p) for p in ids(10)])
    book.schedule.mark_league(LeagueStatus.RUNNING)
    try:
        book.schedule.mark_round(book.schedule.rounds[0], "RUNNING")
        matches = book.schedule.open_round(book.schedule.rounds[0])
        first = book.standings.document(fresh=False)
        monkeypatch.setattr(ranking_module, "_RANKING_SHARE", 1e-9)  # a ranking lasts "forever"
        record_result(book, result(matches[0].match_id, 1, matches[0].player_ids, None))
        assert book.standings.document(fresh=False) is first, "within its budget: reused"
        assert book.standings.document()["version"] == 1, "fresh: ranked again"
        monkeypatch.setattr(ranking_module, "_RANKING_SHARE", 1e9)
        record_result(book, result(matches[1].match_id, 1, matches[1].player_ids, None))
        assert book.standings.document(fresh=False)["version"] == 2
    finally:
        book.close()


def test_a_big_tie_ranks_without_comparing_every_pair(tmp_path: Path) -> None:
    book = LeagueBook.open(tmp_path, "big", SCORING)
    schedule_league(book, [(p, p) for p in ids(3_000)])
    try:
        started = time.perf_counter()
        rows = book.standings.document()["standings"]
        assert time.perf_counter() - started < 1
        assert [row["player_id"] for row in rows[:3]] == ["P00001", "P00002", "P00003"]
    finally:
        book.close()


@pytest.mark.parametrize("page", [7, 50])
def test_the_schedule_comes_in_pages_that_cover_it_once(
    tmp_path: Path, page: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schedule_book_module, "SCHEDULE_PAGE_MATCHES", page)
    book = LeagueBook.open(tmp_path, "big", SCORING)
    schedule_league(book, [(p, p) for p in ids(21)])
    try:
        seen: list[str] = []
        start: int | None = 1
        while start is not None:
            document = book.schedule.document(start)
            assert document["rounds"], "a page has at least one round"
            assert sum(len(r["matches"]) for r in document["rounds"]) <= max(page, 10)
            seen += [m["match_id"] for r in document["rounds"] for m in r["matches"]]
            start = document["next_from_round"]
        assert len(seen) == len(set(seen)) == 210
        assert book.schedule.document(5, max_rounds=1)["rounds"][0]["round_id"] == 5
    finally:
        book.close()


# --- the journal's group commit --------------------------------------------------------------


async def test_concurrent_records_share_fsyncs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = Counter[str]()
    real_fsync = os.fsync

    def counted(fd: int) -> None:
        calls["fsync"] += 1
        time.sleep(0.01)  # a disk's latency, so that records arrive during an fsync
        real_fsync(fd)

    journal = Journal(tmp_path / "journal.jsonl")
    monkeypatch.setattr(os, "fsync", counted)

    async def write(n: int) -> None:
        journal.append({"n": n}, sync=False)
        await journal.durable()

    await asyncio.gather(*(write(n) for n in range(50)))
    journal.close()
    assert 1 <= calls["fsync"] <= 3, calls
    assert [
        json.loads(line)["n"] for line in (tmp_path / "journal.jsonl").read_text().splitlines()
    ] == list(range(50))


# --- fan-out ---------------------------------------------------------------------------------


def league_file(shared: SharedDir) -> Path:
    return shared.config_dir / "leagues" / "league_2025_even_odd.json"


async def test_a_league_with_broadcasts_off_sends_only_its_end(shared_dir: SharedDir) -> None:
    path = league_file(shared_dir)
    path.write_text(json.dumps({**json.loads(path.read_text()), "broadcasts": False}))
    async with running_world(shared_dir) as world:
        await league_of(world, players=4)
        assert (await world.lm.post("/start_league", headers=admin(world))).status_code == 200
        await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
        await world.manager.wait_until_completed()
        player = "http://player-1.test/mcp"
        assert world.methods_to(player) == ["notify_league_completed"]
        assert len(world.manager.results) == 6
        assert world.manager.result_desk.waiting == 0, "a finished round's waiters are dropped"


async def test_a_player_slow_to_take_notifications_delays_nobody(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(match_flow_module, "ANNOUNCE_GRACE_SEC", 0.2)
    slow = "http://player-1.test/mcp"
    handle = world.handle

    async def slow_player(request: httpx.Request) -> httpx.Response:
        if str(request.url) == slow:
            await asyncio.sleep(1)  # each notification to it takes a second
        return await handle(request)

    world.handle = slow_player  # type: ignore[method-assign]
    await league_of(world, players=4)
    started = time.monotonic()
    assert (await world.lm.post("/start_league", headers=admin(world))).status_code == 200
    await wait_until(lambda: len(world.manager.results) == 6, timeout=10)
    elapsed = time.monotonic() - started
    assert elapsed < 2.5, f"three rounds took {elapsed:.1f} s: the slow player held them up"
    await wait_until(lambda: len(world.methods_to(slow)) >= 5, timeout=10)
    sent = [method for method in world.methods_to(slow) if method != "start_match"]
    assert sent[:3] == ["notify_round", "update_standings", "notify_round_completed"], (
        "in order for each player"
    )


async def test_a_player_that_takes_batches_gets_each_rounds_news_in_one_request(
    world: World,
) -> None:
    """A round's end and the next round's start are three notifications to every player:
    one request to a player whose answers tell that it takes JSON-RPC batches (once it has
    told it), one request each to the others; the same notifications, in the same order,
    and every copy still counts for the player's health (each answered)."""
    batching, single = "http://player-1.test/mcp", "http://player-2.test/mcp"
    world.batching.add(batching)
    await league_of(world, players=4)
    assert (await world.lm.post("/start_league", headers=admin(world))).status_code == 200
    await wait_until(lambda: world.manager.schedule.status.value == "COMPLETED")
    await world.manager.wait_until_completed()
    news = [
        [method for method in world.methods_to(player) if method != "start_match"]
        for player in (batching, single)
    ]
    assert news[0] == news[1]
    assert news[0] == [
        "notify_round",
        *["update_standings", "notify_round_completed", "notify_round"] * 2,
        "update_standings",
        "notify_round_completed",
        "notify_league_completed",
    ]
    assert world.requests[single] == [1] * len(news[1])
    # the first announcement taught the League Manager; each round's end then went with
    # the next round's start, and the last round's with the league's end
    assert world.requests[batching] == [1, 3, 3, 3], world.requests[batching]


def test_a_group_schedule_reopened_keeps_its_match_size(tmp_path: Path) -> None:
    book = LeagueBook.open(tmp_path, "groups", SCORING)
    schedule_league(book, [(p, p) for p in ids(7)], players_per_match=3, rounds=3)
    book.close()
    reopened = LeagueBook.open(tmp_path, "groups", SCORING)
    reopened.schedule.write()
    reopened.close()
    assert read_json(tmp_path / "rounds.json")["players_per_match"] == 3
    again = LeagueBook.open(tmp_path, "groups", SCORING)
    again.close()
    assert again.recovery_notes == [] and len(again.schedule.match("R1M1").player_ids) == 3

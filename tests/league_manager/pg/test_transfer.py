"""Moving a league between its files and a real PostgreSQL: a league stopped mid-round,
written with the League Manager's own writers, survives export and import field for field;
a move never merges; assignment numbers never go backwards."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from league_manager.admin import LeagueControl
from league_manager.agents import AgentRegistry
from league_manager.assignments import ASSIGNMENTS_FILE, AssignmentNumbers
from league_manager.book import LeagueBook
from league_manager.credentials import secret_file
from league_manager.pg.connection import connect
from league_manager.pg.errors import TransferError
from league_manager.pg.league_folder import LeagueState, read_league_folder
from league_manager.pg.transfer import export_league, import_league
from league_manager.records import LeagueStatus, MatchProgress, ResultRecord
from sdk.config import SharedDir
from sdk.store import atomic_write_json, read_json
from sdk.timeutil import utc_now_str
from tests.conftest import make_shared_dir
from tests.league_manager.conftest import meta, record_result, schedule_league

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"

TABLES = {
    "leagues": "league_id",
    "league_secrets": "league_id",
    "agents": "registered_seq",
    "agent_secrets": "agent_id",
    "schedule_players": "position",
    "rounds": "round_id",
    "matches": "match_id",
    "match_referees": "match_id, referee_id",
    "results": "seq",
    "result_outcomes": "match_id, seat",
}
"""Every table of a league's rows and the order to list them in."""
GENERATED = {"registered_seq", "seq", "created_at", "xact"}
"""Columns the database fills in: numbers that keep order, not values to compare."""


def decided(book: LeagueBook, match: MatchProgress, referee_id: str) -> ResultRecord:
    """Seat A wins, as a referee would report it."""
    first, *others = match.player_ids
    outcomes: dict[str, Any] = {first: "WIN"} | {p: "LOSS" for p in others}
    return ResultRecord.of(
        match_id=match.match_id,
        round_id=match.round_id,
        referee_id=referee_id,
        outcomes=outcomes,
        points={p: book.standings.points_for(o) for p, o in outcomes.items()},
        winner=first,
        details={"rounds": 5, "choices": {first: "even"}},
        recorded_at=utc_now_str(),
    )


def stopped_mid_round(shared: SharedDir) -> None:
    """A league written by the League Manager's own writers and stopped: round 1 completed,
    round 2 running with both matches handed to the referee and one of them reported, one
    player suspended after the last registry snapshot (only the registry's journal holds
    it), the league paused, its admin token and referee secret made."""
    league_dir = shared.league_dir(LEAGUE)
    registry = AgentRegistry(league_dir, LEAGUE)
    referee, _ = registry.add("referee", meta(1, "referee"), "key-1")
    players = [registry.add("player", meta(n), f"key-{n}")[0] for n in range(2, 6)]
    registry.save()
    registry.set_states([players[3].agent_id], "SUSPENDED")
    registry.journal_states([players[3].agent_id], "SUSPENDED")
    registry.close()
    book = LeagueBook.open(league_dir, LEAGUE, shared.league(LEAGUE).scoring)
    schedule = book.schedule
    schedule_league(book, [(p.agent_id, p.display_name) for p in players])
    schedule.mark_league(LeagueStatus.RUNNING)
    numbers = AssignmentNumbers(league_dir, LEAGUE)
    for round_record in schedule.rounds[:2]:
        schedule.mark_round(round_record, "RUNNING")
        for match in schedule.open_round(round_record):
            match.referee_id, match.referee_endpoint = referee.agent_id, referee.contact_endpoint
            match.status, match.attempts = "ASSIGNED", match.attempts + 1
            match.assignment = numbers.next()
        schedule.write()
        reported = round_record.matches if round_record.round_id == 1 else round_record.matches[:1]
        for match in reported:
            record_result(book, decided(book, match, referee.agent_id))
        if round_record.round_id == 1:
            schedule.mark_round(round_record, "COMPLETED")
    book.standings.write()
    book.close()
    LeagueControl(league_dir, LEAGUE, schedule, lambda *_, **__: None).pause(running_matches=1)
    secret_file(shared.admin_token_path(LEAGUE), 32)
    secret_file(shared.referee_secret_path(LEAGUE), 32)


def fields(state: LeagueState) -> dict[str, Any]:
    """What a League Manager resumes from, field by field (the assignment numbers are
    compared apart: they only grow)."""
    return {
        f.name: getattr(state, f.name)
        for f in dataclasses.fields(state)
        if f.name not in ("highest_assignment", "notes")
    }


async def league_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the league, table by table, in order, without generated columns."""
    rows: dict[str, list[tuple[Any, ...]]] = {}
    async with await connect(url) as connection:
        for table, order in TABLES.items():
            cursor = await connection.execute(
                f"select * from {table} where league_id = %s order by {order}",  # noqa: S608
                (LEAGUE,),
            )
            names = [column.name for column in cursor.description or ()]
            keep = [n for n, name in enumerate(names) if name not in GENERATED]
            rows[table] = [tuple(row[n] for n in keep) for row in await cursor.fetchall()]
    return rows


async def next_assignment(url: str) -> int:
    async with await connect(url) as connection:
        cursor = await connection.execute("select nextval('assignment_numbers')")
        row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def league(tmp_path: Path) -> SharedDir:
    shared = make_shared_dir(tmp_path / "original")
    stopped_mid_round(shared)
    return shared


async def test_a_league_stopped_mid_round_survives_the_round_trip(
    league: SharedDir, tmp_path: Path, database_url: str
) -> None:
    original = read_league_folder(league, LEAGUE)
    assert original.notes == []
    moved = await export_league(database_url, league, LEAGUE)
    assert (moved.agents, moved.rounds, moved.results) == (5, 3, 3)
    target = make_shared_dir(tmp_path / "moved")
    await import_league(database_url, target, LEAGUE)

    imported = read_league_folder(target, LEAGUE)
    assert imported.notes == [], "the imported files needed recovering"
    assert fields(imported) == fields(original)
    assert imported.status == LeagueStatus.RUNNING and imported.paused
    assert [r.status for r in imported.rounds] == ["COMPLETED", "RUNNING", "PENDING"]
    running = imported.rounds[1].matches
    assert [(m.referee_id, m.assignment, m.attempts) for m in running] == [
        (m.referee_id, m.assignment, m.attempts) for m in original.rounds[1].matches
    ]
    assert all(m.referee_id == "REF01" and m.assignment for m in running)
    assert [r.match_id for r in imported.results] == [r.match_id for r in original.results]
    assert {a.agent_id: a.state for a in imported.agents}["P04"] == "SUSPENDED"
    assert imported.highest_assignment > original.highest_assignment

    folder, before = target.league_dir(LEAGUE), league.league_dir(LEAGUE)
    for name in ("secrets.json", "registry.jsonl", "admin_token", "referee_secret"):
        assert mode(folder / name) == 0o600, name
    for name in ("admin_token", "referee_secret"):
        assert (folder / name).read_text() == (before / name).read_text()
    assert read_json(folder / "admin.json")["paused"] is True
    standings = [read_json(f / "standings.json") for f in (before, folder)]
    for document in standings:
        document.pop("last_updated")
    assert standings[0] == standings[1]

    opened = [LeagueBook.open(f, LEAGUE, league.league(LEAGUE).scoring) for f in (before, folder)]
    for book in opened:
        book.close()
    assert opened[1].recovery_notes == []
    assert opened[1].unsettled == opened[0].unsettled == {running[1].match_id}
    assert opened[1].standings.document() == opened[0].standings.document()


async def test_a_second_export_is_refused_unless_replace(
    league: SharedDir, database_url: str
) -> None:
    await export_league(database_url, league, LEAGUE)
    once = await league_rows(database_url)
    assert len(once["results"]) == 3 and len(once["matches"]) == 2

    with pytest.raises(TransferError) as refused:
        await export_league(database_url, league, LEAGUE)
    assert str(refused.value).endswith(
        f"holds league {LEAGUE} already: give --replace to overwrite it"
    )
    assert await league_rows(database_url) == once

    await export_league(database_url, league, LEAGUE, replace=True)
    assert await league_rows(database_url) == once


async def test_an_import_into_a_folder_holding_the_league_is_refused_unless_replace(
    league: SharedDir, tmp_path: Path, database_url: str
) -> None:
    await export_league(database_url, league, LEAGUE)
    target = make_shared_dir(tmp_path / "moved")
    folder = target.league_dir(LEAGUE)
    folder.mkdir(parents=True)
    (folder / "agents.json").write_text('{"seq": 0, "agents": []}')

    with pytest.raises(TransferError) as refused:
        await import_league(database_url, target, LEAGUE)
    assert str(refused.value) == (
        f"{folder} holds league {LEAGUE}'s data already: give --replace to overwrite it"
    )
    assert sorted(p.name for p in folder.iterdir()) == ["agents.json"]

    await import_league(database_url, target, LEAGUE, replace=True)
    assert fields(read_league_folder(target, LEAGUE)) == fields(read_league_folder(league, LEAGUE))
    assert sorted(p.name for p in folder.parent.iterdir()) == [LEAGUE], "a staging folder is left"


async def test_assignment_numbers_never_go_backwards(league: SharedDir, database_url: str) -> None:
    folder = league.league_dir(LEAGUE)
    reserved = read_json(folder / ASSIGNMENTS_FILE)["reserved_up_to"]
    rounds = read_league_folder(league, LEAGUE).rounds
    given = [m.assignment or 0 for r in rounds for m in r.matches]
    await export_league(database_url, league, LEAGUE)
    assert await next_assignment(database_url) > max(reserved, *given)


async def test_importing_a_league_the_database_lacks_is_refused(
    tmp_path: Path, database_url: str
) -> None:
    target = make_shared_dir(tmp_path / "moved")
    with pytest.raises(TransferError, match=f"holds no league {LEAGUE}$"):
        await import_league(database_url, target, LEAGUE)
    assert not target.league_dir(LEAGUE).exists()


async def test_agents_registered_before_registration_keys_were_kept_move_without_one(
    league: SharedDir, tmp_path: Path, database_url: str
) -> None:
    """secrets.json as a League Manager wrote it before it kept the keys' digests."""
    path = league.league_dir(LEAGUE) / "secrets.json"
    secrets = read_json(path)
    del secrets["registration_keys"]
    atomic_write_json(path, secrets)
    original = read_league_folder(league, LEAGUE)
    assert original.registration_keys == {} and len(original.tokens) == 5

    await export_league(database_url, league, LEAGUE)
    target = make_shared_dir(tmp_path / "moved")
    await import_league(database_url, target, LEAGUE)
    imported = read_league_folder(target, LEAGUE)
    assert imported.notes == []
    assert fields(imported) == fields(original)


def test_exporting_a_folder_without_the_league_is_refused(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "empty")
    with pytest.raises(TransferError, match="holds no league"):
        asyncio.run(export_league("postgresql://nobody@127.0.0.1:1/none", shared, LEAGUE))

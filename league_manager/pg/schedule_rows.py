"""The schedule as schema 0001's rows (``leagues``, ``schedule_players``, ``rounds``,
``matches``, ``match_referees``): rounds.json's content read from them and written to them,
for the League Manager that drives the rounds (``leader_store.py``), the ones that follow
it, and the moves between the files and the database (``transfer.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from league_manager.records import MatchProgress, RoundRecord
from league_manager.scheduler import make_schedule
from sdk.timeutil import format_utc, parse_utc

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from psycopg.rows import TupleRow

__all__ = [
    "league_row",
    "moment",
    "read_schedule_document",
    "select_rows",
    "write_handovers",
    "write_schedule_document",
]


async def league_row(connection: AsyncConnection[TupleRow], league_id: str) -> None:
    """The league's row where it has none yet, inside the caller's transaction: the foreign
    key of every other row of the league (its agents, results, secrets and leader)."""
    await connection.execute(
        "insert into leagues (league_id) values (%s) on conflict do nothing", (league_id,)
    )


def moment(text: str | None) -> Any:
    """A record's UTC text as a timestamp parameter."""
    return None if text is None else parse_utc(text)


def _text(value: Any) -> str | None:
    return None if value is None else format_utc(value)


async def select_rows(
    connection: AsyncConnection[TupleRow], query: str, league_id: str
) -> list[tuple[Any, ...]]:
    cursor = await connection.execute(query, (league_id,))
    return await cursor.fetchall()


async def read_schedule_document(
    connection: AsyncConnection[TupleRow], league_id: str
) -> dict[str, Any] | None:
    """rounds.json's content as the database holds it (``records.parse_schedule`` reads
    it; ``ScheduleBook.settle`` shows the results on its live matches); None where the
    league has no row.
    Call it inside a repeatable-read transaction for one consistent view."""
    rows = await select_rows(
        connection,
        "select status, players_per_match, paused from leagues where league_id = %s",
        league_id,
    )
    if not rows:
        return None
    status, size, paused = rows[0]
    players = await select_rows(
        connection,
        "select player_id, display_name from schedule_players where league_id = %s "
        "order by position",
        league_id,
    )
    rounds = await select_rows(
        connection,
        "select round_id, status, byes, started_at, completed_at from rounds "
        "where league_id = %s order by round_id",
        league_id,
    )
    matches = await select_rows(
        connection,
        "select match_id, round_id, player_ids, status, referee_id, referee_endpoint, "
        "assignment, attempts from matches where league_id = %s",
        league_id,
    )
    records = _round_records(rounds, matches, [p for p, _ in players], size)
    return {
        "league_id": league_id,
        "status": status,
        "players_per_match": size,
        "paused": paused,
        "total_rounds": len(records),
        "players": [{"player_id": p, "display_name": name} for p, name in players],
        "rounds": [r.model_dump() for r in records],
    }


def _round_records(
    rounds: list[tuple[Any, ...]],
    matches: list[tuple[Any, ...]],
    players: list[str],
    size: int,
) -> list[RoundRecord]:
    """The rounds with their live matches, each round's listed in the schedule's order (as
    rounds.json lists them)."""
    records = [
        RoundRecord(round_id=r, status=status, byes=list(byes), started_at=_text(started),
                    completed_at=_text(completed))
        for r, status, byes, started, completed in rounds
    ]  # fmt: skip
    if not matches:
        return records
    schedule = make_schedule(players, size, len(records))
    by_id = {row[0]: row for row in matches}
    for record in records:
        for planned in schedule.round(record.round_id).matches:
            row = by_id.get(planned.match_id)
            if row is None:
                continue
            match_id, round_id, seats, status, referee, endpoint, assignment, attempts = row
            record.matches.append(
                MatchProgress(
                    match_id=match_id, round_id=round_id, player_A_id=seats[0],
                    player_B_id=seats[1], player_ids=list(seats), status=status,
                    referee_id=referee, referee_endpoint=endpoint, assignment=assignment,
                    attempts=attempts,
                )
            )  # fmt: skip
    return records


async def write_schedule_document(
    connection: AsyncConnection[TupleRow],
    league_id: str,
    document: dict[str, Any],
    written: dict[str, Any],
) -> None:
    """Write rounds.json's content as rows, inside the caller's transaction: the league's
    status, its players (once they change), the rounds that changed since ``written`` (what
    the last write of this process held, updated here) and the live matches not yet listed.
    A live match's holder is the hand-overs' to write (``write_handovers``), never this."""
    players = [(p["player_id"], p["display_name"]) for p in document["players"]]
    await connection.execute(
        "insert into leagues (league_id, status, players_per_match) values (%s, %s, %s) "
        "on conflict (league_id) do update set status = excluded.status, "
        "players_per_match = excluded.players_per_match",
        (league_id, document["status"], document["players_per_match"]),
    )
    cursor = connection.cursor()
    if written.get("players") != players:
        await connection.execute("delete from matches where league_id = %s", (league_id,))
        await connection.execute("delete from rounds where league_id = %s and not exists "
                                 "(select 1 from results r where r.league_id = rounds.league_id "
                                 "and r.round_id = rounds.round_id)", (league_id,))  # fmt: skip
        await connection.execute("delete from schedule_players where league_id = %s", (league_id,))
        await cursor.executemany(
            "insert into schedule_players (league_id, position, player_id, display_name) "
            "values (%s, %s, %s, %s)",
            [(league_id, n, p, name) for n, (p, name) in enumerate(players, start=1)],
        )
        written.clear()
        written["players"] = players
    rounds: dict[int, tuple[Any, ...]] = written.setdefault("rounds", {})
    changed = [
        r for r in document["rounds"]
        if rounds.get(r["round_id"]) != (r["status"], r["started_at"], r["completed_at"])
    ]  # fmt: skip
    await cursor.executemany(
        "insert into rounds (league_id, round_id, status, byes, started_at, completed_at) "
        "values (%s, %s, %s, %s::text[], %s, %s) on conflict (league_id, round_id) do update "
        "set status = excluded.status, byes = excluded.byes, "
        "started_at = excluded.started_at, completed_at = excluded.completed_at",
        [
            (league_id, r["round_id"], r["status"], r["byes"], moment(r["started_at"]),
             moment(r["completed_at"]))
            for r in changed
        ],
    )  # fmt: skip
    done = [r["round_id"] for r in changed if r["status"] == "COMPLETED"]
    if done:
        await connection.execute(
            "delete from matches where league_id = %s and round_id = any(%s)", (league_id, done)
        )
    await cursor.executemany(
        "insert into matches (league_id, match_id, round_id, player_ids) values (%s, %s, %s, %s) "
        "on conflict do nothing",
        [
            (league_id, m["match_id"], m["round_id"], m["player_ids"])
            for r in changed if r["status"] == "RUNNING" for m in r["matches"]
        ],
    )  # fmt: skip
    for r in changed:
        rounds[r["round_id"]] = (r["status"], r["started_at"], r["completed_at"])


async def write_handovers(
    connection: AsyncConnection[TupleRow], league_id: str, handed: list[MatchProgress]
) -> None:
    """Hand-overs (copies of the matches' records as each was handed over), inside the
    caller's transaction: each match's holder and assignment, never replaced by an older
    one's, and the referee among those it was ever given to."""
    cursor = connection.cursor()
    await cursor.executemany(
        "insert into matches (league_id, match_id, round_id, player_ids, status, referee_id, "
        "referee_endpoint, assignment, attempts) values (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
        "on conflict (league_id, match_id) do update set status = excluded.status, "
        "referee_id = excluded.referee_id, referee_endpoint = excluded.referee_endpoint, "
        "assignment = excluded.assignment, attempts = excluded.attempts "
        "where matches.assignment is null or matches.assignment < excluded.assignment",
        [
            (league_id, m.match_id, m.round_id, m.player_ids, "ASSIGNED", m.referee_id,
             m.referee_endpoint, m.assignment, m.attempts)
            for m in handed
        ],
    )  # fmt: skip
    await cursor.executemany(
        "insert into match_referees (league_id, match_id, referee_id) values (%s, %s, %s) "
        "on conflict do nothing",
        [(league_id, m.match_id, m.referee_id) for m in handed],
    )

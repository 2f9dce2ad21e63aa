"""The league's standings, snapshotted in ``standings.json`` once per round: every scheduled
player's record, counted one result at a time (``standings.py``), and ranked on demand at
most as often as a small share of the process's time allows (``ranking.py``).

Their version is the number of results counted, so it grows with every accepted result and
means the same after a restart (the journal is replayed into them at start-up).

Where a store shared by several League Managers keeps the results (PostgreSQL), the
standings served to queries (``served``) are counted by the store from its results in one
transaction (``pg/standings_rows.py``): whichever League Manager is asked answers what the
database holds, not what it has heard so far."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from league_manager.ranking import Ranking, RankingCache
from league_manager.records import ResultRecord
from league_manager.schedule_book import ScheduleBook
from league_manager.standings import PlayerRecord, StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import Outcome, StandingsRow
from sdk.store import StoreError, quarantine, read_json, write_document

__all__ = ["StandingsBook", "StoredStandings", "standings_rows"]

STORED_SEC = 0.5
"""Standings read from the store are served again for this long while this League Manager
has counted no new result (others' reach it within its look, ``FOLLOW_SEC``)."""
_STORED_SHARE = 0.1
"""And at least until 1/_STORED_SHARE times what the read took: queries pouring in while
results arrive cost the database a bounded share of its time."""


def standings_rows(document: dict[str, Any]) -> list[StandingsRow]:
    """The rows of a standings document (``StandingsBook.document``, ``served``)."""
    return [StandingsRow.model_validate(row) for row in document["standings"]]


@dataclass(frozen=True)
class _StoredRead:
    """The last standings read from the store."""

    key: tuple[int, int]
    """This book's version and rounds completed when it was read."""
    at: float
    cost: float
    document: dict[str, Any]


class StoredStandings(Protocol):
    """Standings a store counts from the results it keeps, in one transaction."""

    async def read(
        self, players: Sequence[tuple[str, str]], scoring: ScoringConfig
    ) -> tuple[int, StandingsTable]:
        """The number of results and the table of ``players`` counted from them.

        Raises:
            StoreError: the store cannot be read now (``served`` answers its own count).
        """
        ...


class StandingsBook:
    """The standings of the schedule's players; it reads the schedule book for who plays and
    how far the league got, and counts each result it is given once."""

    def __init__(
        self,
        path: Path,
        league_id: str,
        scoring: ScoringConfig,
        schedule: ScheduleBook,
        stored: StoredStandings | None = None,
    ):
        """``stored``: where ``served`` reads the standings (None: this book's count)."""
        self._path = path
        self._scoring = scoring
        self._schedule = schedule
        self._ranker = RankingCache(league_id)
        self._table = StandingsTable(schedule.players, scoring)
        self._counted = 0
        self._stored = stored
        self._stored_ranker = RankingCache(league_id)
        self._stored_read: _StoredRead | None = None
        self._reading = asyncio.Lock()

    def restart(self) -> None:
        """Start again from nothing for the schedule's players (a schedule just made), and
        write them."""
        self._table = StandingsTable(self._schedule.players, self._scoring)
        self._ranker.clear()
        self._counted = 0
        self.write()

    def count(self, result: ResultRecord) -> None:
        """Count one recorded result (the caller gives each one once)."""
        self._table.apply(result.outcomes)
        self._counted += 1

    def replace(self, counted: ResultRecord, kept: ResultRecord) -> None:
        """Count ``kept`` in place of ``counted``, a result of the same match (another
        League Manager's was kept first in the store): the number of results, so the
        version, stays; the ranking is made again."""
        self._table.apply(counted.outcomes, times=-1)
        self._table.apply(kept.outcomes)
        self._ranker.clear()

    @property
    def version(self) -> int:
        return self._counted

    def points_for(self, outcome: Outcome) -> float:
        return self._table.points_for(outcome)

    def record(self, player_id: str) -> PlayerRecord:
        """The player's record as counted now."""
        return self._table.record(player_id)

    def ranked(self) -> list[tuple[int, PlayerRecord]]:
        """(rank, record) pairs, best first, ranked now."""
        return self._table.ranked()

    def _ranking(self, *, fresh: bool) -> Ranking:
        """The ranked standings; unless ``fresh``, one up to a few rankings' time old."""
        return self._ranker.ranking(
            self._table,
            version=self._counted,
            rounds_completed=self._schedule.rounds_completed(),
            total_matches=self._schedule.total_matches,
            fresh=fresh,
        )

    def rank_of(self, player_id: str) -> int | None:
        """The player's rank in the latest ranking (as queries see it), or None."""
        return self._ranking(fresh=False).ranks.get(player_id)

    def rows(self, *, fresh: bool = True) -> list[StandingsRow]:
        return standings_rows(self._ranking(fresh=fresh).document)

    def document(self, *, fresh: bool = True) -> dict[str, Any]:
        """The standings (do not modify the answer: it is cached). ``fresh=False`` (for
        queries) may answer a ranking a moment old; its ``version`` says which."""
        return self._ranking(fresh=fresh).document

    async def served(self) -> dict[str, Any]:
        """The standings as queries are answered (do not modify: it is cached): counted by
        the store from its results in one transaction where one is shared, read again
        once this book has counted a new result or ``STORED_SEC`` has passed (and at most
        a small share of the time); else, or while the store cannot be read, this book's
        ranking of a moment ago (``document(fresh=False)``)."""
        if self._stored is None:
            return self.document(fresh=False)
        async with self._reading:  # one read serves the queries that wait for it
            key = (self._counted, self._schedule.rounds_completed())
            last, now = self._stored_read, time.monotonic()
            if last is not None and (
                now - last.at < last.cost / _STORED_SHARE
                or (last.key == key and now - last.at < STORED_SEC)
            ):
                return last.document
            try:
                version, table = await self._stored.read(self._schedule.players, self._scoring)
            except StoreError:
                return self.document(fresh=False)
            document = self._stored_ranker.ranking(
                table,
                version=version,
                rounds_completed=key[1],
                total_matches=self._schedule.total_matches,
                fresh=True,
            ).document
            self._stored_read = _StoredRead(key, now, time.monotonic() - now, document)
            return document

    def write(self, *, keep_backup: bool = True) -> dict[str, Any]:
        """Snapshot the standings; the version replaced stays as standings.json.bak."""
        return write_document(self._path, self.document(), keep_backup=keep_backup)

    def check_file(self, note: Callable[[str], None]) -> None:
        """At start-up: standings.json is a snapshot of the journal, written again whenever
        it differs (it lags after a crash between rounds: normal), noted when damaged."""
        path, expected = self._path, self.document()
        problem: str | None
        try:
            on_disk = read_json(path)
        except FileNotFoundError:
            note(f"{path} was missing; written again from the journal")
            self.write(keep_backup=False)
            return
        except StoreError as exc:
            on_disk, problem = None, str(exc)
        else:
            fields = isinstance(on_disk, dict) and set(expected) <= set(on_disk)
            problem = None if fields else (f"{path} does not hold standings")
        if problem is None:
            if all(on_disk.get(key) == value for key, value in expected.items()):
                return
            if on_disk.get("version") == expected["version"]:
                problem = f"{path} disagrees with the journal"
            else:
                self.write(keep_backup=True)  # lagging a crash behind: normal
                return
        note(
            f"{problem}; kept it as {quarantine(path).name} and wrote "
            "the standings again from the journal"
        )
        self.write(keep_backup=False)

"""The league's standings, snapshotted in ``standings.json`` once per round: every scheduled
player's record, counted one result at a time (``standings.py``), and ranked on demand at
most as often as a small share of the process's time allows (``ranking.py``).

Their version is the number of results counted, so it grows with every accepted result and
means the same after a restart (the journal is replayed into them at start-up)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from league_manager.ranking import Ranking, RankingCache
from league_manager.records import ResultRecord
from league_manager.schedule_book import ScheduleBook
from league_manager.standings import PlayerRecord, StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import Outcome, StandingsRow
from sdk.store import StoreError, quarantine, read_json, write_document

__all__ = ["StandingsBook"]


class StandingsBook:
    """The standings of the schedule's players; it reads the schedule book for who plays and
    how far the league got, and counts each result it is given once."""

    def __init__(self, path: Path, league_id: str, scoring: ScoringConfig, schedule: ScheduleBook):
        self._path = path
        self._scoring = scoring
        self._schedule = schedule
        self._ranker = RankingCache(league_id)
        self._table = StandingsTable(schedule.players, scoring)
        self._counted = 0

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
        return [
            StandingsRow.model_validate(row)
            for row in self._ranking(fresh=fresh).document["standings"]
        ]

    def document(self, *, fresh: bool = True) -> dict[str, Any]:
        """The standings (do not modify the answer: it is cached). ``fresh=False`` (for
        queries) may answer a ranking a moment old; its ``version`` says which."""
        return self._ranking(fresh=fresh).document

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

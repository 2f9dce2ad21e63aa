"""The League Manager's durable record of one league: the schedule (``rounds.json``), the
results journal (``journal.jsonl``, appended and fsynced before a result is acknowledged)
and the standings (``standings.json``). A restarted League Manager rebuilds everything from
these files; the journal is the truth, the two snapshots are written once per round
(each keeping the version it replaces as ``<file>.bak``, for recovery: see ``LeagueBook``).

The standings' version counter is the number of results counted, so it grows with every
accepted result and means the same after a restart."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError, model_validator

from league_manager.scheduler import group_rounds, round_robin
from league_manager.standings import Outcome, StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import StandingsRow
from sdk.store import (
    RECOVERY_HINT,
    BadLine,
    Journal,
    StoreError,
    backup_path,
    load_with_backup,
    quarantine,
    read_json,
    remove_temp_files,
    write_document,
)
from sdk.timeutil import utc_now_str

__all__ = ["LeagueBook", "LeagueStatus", "MatchRecord", "ResultRecord",
           "RoundRecord", "ScheduleRecipe"]

_log = logging.getLogger(__name__)


MatchStatus = Literal["PENDING", "ASSIGNED", "RUNNING", "COMPLETED"]
RoundStatus = Literal["PENDING", "RUNNING", "COMPLETED"]


class LeagueStatus(str, Enum):
    REGISTRATION = "REGISTRATION"
    SCHEDULED = "SCHEDULED"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"


class MatchRecord(BaseModel):
    match_id: str
    round_id: int
    player_A_id: str
    player_B_id: str
    player_ids: list[str] = []
    """Every player in seat order; the protocol's player_A_id and player_B_id are the first
    two (a file written before matches of more players had only those two)."""
    referee_id: str | None = None
    referee_endpoint: str | None = None
    status: MatchStatus = "PENDING"
    winner: str | None = None
    attempts: int = 0

    @model_validator(mode="after")
    def _seats_listed(self) -> MatchRecord:
        if not self.player_ids:
            self.player_ids = [self.player_A_id, self.player_B_id]
        return self


class RoundRecord(BaseModel):
    round_id: int
    status: RoundStatus = "PENDING"
    byes: list[str] = []
    matches: list[MatchRecord]
    started_at: str | None = None
    completed_at: str | None = None


class ResultRecord(BaseModel):
    """One accepted result, as journaled."""

    match_id: str
    round_id: int
    referee_id: str
    outcomes: dict[str, Outcome]
    points: dict[str, float]
    winner: str | None
    details: dict[str, Any]
    recorded_at: str


@dataclass(frozen=True)
class ScheduleRecipe:
    """What the schedule is made from, to make it again exactly when rounds.json and its
    backup are both lost: the registered players in registration order (the schedulers
    are deterministic in them) and the league's match size and rounds."""

    players: list[tuple[str, str]]
    players_per_match: int = 2
    rounds: int | None = None


_Schedule = tuple[LeagueStatus, list[tuple[str, str]], list[RoundRecord]]


def _parse_schedule(document: Any) -> _Schedule:
    """rounds.json's content, checked enough to run the league from.

    Raises:
        ValueError, KeyError, TypeError: it is not a schedule this league can use.
    """
    status = LeagueStatus(document["status"])
    players = [(str(p["player_id"]), str(p["display_name"])) for p in document["players"]]
    rounds = [RoundRecord.model_validate(r) for r in document["rounds"]]
    match_ids = [m.match_id for r in rounds for m in r.matches]
    if len(set(match_ids)) != len(match_ids):
        raise ValueError("a match id is listed twice")
    strangers = {p for r in rounds for m in r.matches for p in m.player_ids} - {
        player_id for player_id, _ in players}
    if strangers:
        raise ValueError(f"matches of players it does not list: {', '.join(sorted(strangers))}")
    return status, players, rounds


class LeagueBook:
    """Schedule, results and standings of one league, in memory and on disk.

    Start-up never resets a league silently. A damaged ``rounds.json`` is replaced by its
    previous version (``rounds.json.bak``) or, failing that, made again from ``recipe``
    (the schedule is deterministic in the registered players); a damaged journal line is
    set aside and its match recovered from its referee or played again; ``standings.json``
    is rewritten from the journal whenever it differs. Each damaged file is kept as
    ``<file>.corrupt-<stamp>`` and named in ``recovery_notes``. What cannot be recovered
    raises StoreError naming the file and what to do (one line, starting "cannot start:"),
    leaving the files as they were (a schedule made again from the players is the one
    exception: it is written before the journal is checked against it, the damaged files
    kept beside it).
    """

    def __init__(self, league_dir: Path, league_id: str, scoring: ScoringConfig,
                 recipe: ScheduleRecipe | None = None):
        self.league_id = league_id
        self._scoring = scoring
        self._rounds_path = league_dir / "rounds.json"
        self._standings_path = league_dir / "standings.json"
        journal_path = league_dir / "journal.jsonl"
        self.status = LeagueStatus.REGISTRATION
        self.players: list[tuple[str, str]] = []
        self.rounds: list[RoundRecord] = []
        self.matches: dict[str, MatchRecord] = {}
        self.results: dict[str, ResultRecord] = {}
        self.table = StandingsTable([], scoring)
        self.recovery_notes: list[str] = []
        """What start-up found damaged and how it recovered, a sentence each (also logged
        as warnings; the League Manager puts them in its logs)."""
        self.unsettled: set[str] = set()
        """Matches without a result that a referee may have been given before this start
        (the League Manager asks the referees about them before handing them out again)."""
        remove_temp_files(league_dir)  # writes a kill cut short; the files are whole
        raw, damage = self._read_journal(journal_path)
        results = [result for _, result in raw]
        exact, rewrite_rounds = self._read_schedule(recipe, journal_path, bool(raw or damage))
        in_flight = self.current_round()
        self._check_results_fit(results, journal_path)
        for result in results:
            self._apply(result)
        reopened, settled = self._settle_statuses()
        if self.status == LeagueStatus.RUNNING:
            candidates = ([r for r in self.rounds if r.round_id in reopened or r is in_flight]
                          if exact else self.rounds)
            self.unsettled = {m.match_id for r in candidates for m in r.matches
                              if m.match_id not in self.results}
        if damage:
            kept = Journal.rewrite(journal_path, [record for record, _ in raw])
            lines = ", ".join(f"line {bad.number} {bad.problem}" for bad in damage)
            self._note(f"{journal_path}: {lines}; kept the other {len(raw)} result(s), the "
                       f"damaged file as {kept.name}; a match whose result was lost is asked "
                       "of its referee or played again")
        if rewrite_rounds or settled:
            self._write_rounds(keep_backup=not rewrite_rounds)
        self._refresh_standings_file()
        self._journal = Journal(journal_path)

    # -- start-up: reading and recovering the files ------------------------------------

    def _note(self, note: str) -> None:
        self.recovery_notes.append(note)
        _log.warning(note)

    @staticmethod
    def _read_journal(path: Path) -> tuple[list[tuple[dict[str, Any], ResultRecord]],
                                           list[BadLine]]:
        """The journal's results (each with its record as written) and its damaged lines.

        Raises:
            StoreError: every line is damaged: there is nothing to recover from.
        """
        records, damage = Journal.scan(path)
        results: list[tuple[dict[str, Any], ResultRecord]] = []
        for number, record in records:
            try:
                results.append((record, ResultRecord.model_validate(record)))
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                where = ".".join(str(part) for part in first["loc"]) or "record"
                damage.append(BadLine(number, f"is not a result ({where}: {first['msg']})"))
        damage.sort(key=lambda bad: bad.number)
        if damage and not results:
            raise StoreError(f"cannot start: no line of {path} is a result (line "
                             f"{damage[0].number} {damage[0].problem}); {RECOVERY_HINT}")
        return results, damage

    def _read_schedule(self, recipe: ScheduleRecipe | None, journal_path: Path,
                       journaled: bool) -> tuple[bool, bool]:
        """Load rounds.json, its backup, or make the schedule again from ``recipe``.
        Returns (exact: the file itself was read, rewrite: rounds.json must be written).

        Raises:
            StoreError: no usable schedule and no players to make it again from.
        """
        try:
            loaded = load_with_backup(self._rounds_path, _parse_schedule)
        except StoreError as exc:
            problem = str(exc)
        else:
            if loaded is None and not journaled:
                return True, False  # a new league: nothing scheduled yet
            if loaded is not None:
                self._load_schedule(loaded.value)
                if loaded.problem is None:
                    return True, False
                if self._rounds_path.exists():
                    self._note(f"{loaded.problem}; kept it as "
                               f"{quarantine(self._rounds_path).name}")
                self._note(f"recovered the schedule from {loaded.source.name}, its previous "
                           "version; the journal brings the results since")
                return False, True
            problem = f"{self._rounds_path} is missing but {journal_path} holds results"
        if recipe is None or not recipe.players:
            raise StoreError(f"cannot start: {problem}; no registered players to make the "
                             f"schedule again from; {RECOVERY_HINT}")
        for path in (self._rounds_path, backup_path(self._rounds_path)):
            if path.exists():
                quarantine(path)
        self.create_schedule(list(recipe.players), recipe.players_per_match, recipe.rounds)
        self._note(f"{problem}; made the schedule again from the {len(recipe.players)} "
                   "registered players in registration order (it is deterministic in them); "
                   "damaged files kept as .corrupt-*")
        return False, True

    def _load_schedule(self, schedule: _Schedule) -> None:
        self.status, self.players, self.rounds = schedule
        self.matches = {m.match_id: m for r in self.rounds for m in r.matches}
        self.table = StandingsTable(self.players, self._scoring)

    def _check_results_fit(self, results: list[ResultRecord], journal_path: Path) -> None:
        """Every journaled result is of a scheduled match and between its players: files
        of another league, or a schedule made again from changed settings, never mix."""
        for result in results:
            match = self.matches.get(result.match_id)
            if match is None or set(result.outcomes) != set(match.player_ids):
                scheduled = "is not scheduled" if match is None else (
                    f"is scheduled between {', '.join(match.player_ids)}")
                raise StoreError(
                    f"cannot start: {journal_path} records {result.match_id} between "
                    f"{', '.join(result.outcomes)} but {result.match_id} {scheduled} in "
                    f"{self._rounds_path}: the files do not belong together; {RECOVERY_HINT}")

    def _settle_statuses(self) -> tuple[set[int], bool]:
        """Make the statuses agree with the journal, the truth: a round marked completed
        with a result missing (a damaged journal line) is played again, and a schedule
        older than its results (a backup, or made again) is running. Returns the reopened
        rounds and whether anything changed."""
        reopened: set[int] = set()
        for round_record in self.rounds:
            missing = [m for m in round_record.matches if m.match_id not in self.results]
            for match in missing:
                match.status, match.winner = "PENDING", None
            if missing and round_record.status == "COMPLETED":
                round_record.status, round_record.completed_at = "RUNNING", None
                reopened.add(round_record.round_id)
        if reopened:
            self._note(f"round(s) {', '.join(map(str, sorted(reopened)))} were completed but "
                       "the journal lacks some of their results: those matches are asked of "
                       "their referees or played again")
        changed = bool(reopened)
        unfinished = len(self.results) < len(self.matches)
        if (self.results and self.status == LeagueStatus.SCHEDULED) or (
                unfinished and self.status == LeagueStatus.COMPLETED):
            self.status, changed = LeagueStatus.RUNNING, True
        return reopened, changed

    def _refresh_standings_file(self) -> None:
        """standings.json is a snapshot of the journal: written again whenever it differs
        (it lags after a crash between rounds: normal), noted when it was damaged."""
        if not self.rounds:
            return
        expected = self.standings_document()
        try:
            on_disk = read_json(self._standings_path)
        except FileNotFoundError:
            self._note(f"{self._standings_path} was missing; written again from the journal")
            self._write_standings(keep_backup=False)
            return
        except StoreError as exc:
            on_disk, problem = None, str(exc)
        else:
            fields = isinstance(on_disk, dict) and set(expected) <= set(on_disk)
            problem = None if fields else (
                f"{self._standings_path} does not hold standings")
        if problem is None:
            if all(on_disk.get(key) == value for key, value in expected.items()):
                return
            if on_disk.get("version") == expected["version"]:
                problem = f"{self._standings_path} disagrees with the journal"
            else:
                self._write_standings(keep_backup=True)  # lagging a crash behind: normal
                return
        self._note(f"{problem}; kept it as {quarantine(self._standings_path).name} and wrote "
                   "the standings again from the journal")
        self._write_standings(keep_backup=False)

    def create_schedule(self, players: list[tuple[str, str]], players_per_match: int = 2,
                        rounds: int | None = None) -> None:
        """Fix the players and the schedule (registration closes here): a round robin of
        two-player matches, or ``rounds`` rounds of matches of ``players_per_match``."""
        self.players = list(players)
        player_ids = [player_id for player_id, _ in players]
        plan = (round_robin(player_ids) if players_per_match == 2
                else group_rounds(player_ids, players_per_match, rounds))
        self.rounds = [
            RoundRecord(round_id=r.round_id, byes=r.byes, matches=[
                MatchRecord(match_id=m.match_id, round_id=m.round_id, player_ids=m.player_ids,
                            player_A_id=m.player_A_id, player_B_id=m.player_B_id)
                for m in r.matches])
            for r in plan
        ]
        self.matches = {m.match_id: m for r in self.rounds for m in r.matches}
        self.table = StandingsTable(self.players, self._scoring)
        self.status = LeagueStatus.SCHEDULED
        self.write_rounds()
        self.write_standings()

    @property
    def total_matches(self) -> int:
        return len(self.matches)

    def current_round(self) -> RoundRecord | None:
        """The first round not completed yet."""
        return next((r for r in self.rounds if r.status != "COMPLETED"), None)

    @property
    def standings_version(self) -> int:
        return len(self.results)

    def record(self, result: ResultRecord) -> None:
        """Journal a result (fsynced), then count it; ``write_standings`` snapshots later."""
        self._journal.append(result.model_dump())
        self._apply(result)

    def _apply(self, result: ResultRecord) -> None:
        if result.match_id in self.results:
            return
        self.results[result.match_id] = result
        self.table.apply(result.outcomes)
        match = self.matches.get(result.match_id)
        if match is not None:
            match.status = "COMPLETED"
            match.winner = result.winner

    def standings_rows(self) -> list[StandingsRow]:
        return [
            StandingsRow(rank=rank, player_id=r.player_id, display_name=r.display_name,
                         played=r.played, wins=r.wins, draws=r.draws, losses=r.losses,
                         points=r.points)
            for rank, r in self.table.ranked()
        ]

    def rounds_completed(self) -> int:
        return sum(1 for r in self.rounds if r.status == "COMPLETED")

    def standings_document(self) -> dict[str, Any]:
        return {
            "league_id": self.league_id,
            "version": self.standings_version,
            "rounds_completed": self.rounds_completed(),
            "matches_completed": len(self.results),
            "total_matches": self.total_matches,
            "standings": [
                {**row.model_dump(),
                 "technical_losses": self.table.record(row.player_id).technical_losses}
                for row in self.standings_rows()
            ],
        }

    def write_standings(self) -> dict[str, Any]:
        """Snapshot the standings; the version replaced stays as standings.json.bak."""
        return self._write_standings(keep_backup=True)

    def _write_standings(self, *, keep_backup: bool) -> dict[str, Any]:
        return write_document(self._standings_path, self.standings_document(),
                              keep_backup=keep_backup)

    def schedule_document(self) -> dict[str, Any]:
        return {
            "league_id": self.league_id,
            "status": self.status.value,
            "total_rounds": len(self.rounds),
            "total_matches": self.total_matches,
            "players": [{"player_id": p, "display_name": n} for p, n in self.players],
            "rounds": [r.model_dump() for r in self.rounds],
        }

    def write_rounds(self) -> None:
        """Write the schedule; the version replaced stays as rounds.json.bak."""
        self._write_rounds(keep_backup=True)

    def _write_rounds(self, *, keep_backup: bool) -> None:
        write_document(self._rounds_path, self.schedule_document(), keep_backup=keep_backup)

    def mark_round(self, round_record: RoundRecord, status: RoundStatus) -> None:
        round_record.status = status
        if status == "RUNNING" and round_record.started_at is None:
            round_record.started_at = utc_now_str()
        if status == "COMPLETED":
            round_record.completed_at = utc_now_str()
        self.write_rounds()

    def close(self) -> None:
        self._journal.close()

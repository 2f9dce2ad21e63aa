"""The League Manager's durable record of one league: the schedule (``rounds.json``), the
results journal (``journal.jsonl``, appended and fsynced before a result is acknowledged)
and the standings (``standings.json``). A restarted League Manager rebuilds everything from
these files; the journal is the truth, the two snapshots are written once per round
(each keeping the version it replaces as ``<file>.bak``, for recovery: see ``LeagueBook``).

The standings' version counter is the number of results counted, so it grows with every
accepted result and means the same after a restart.

Cost per accepted result is O(1) whatever the league's size: one journal line, two players'
records, a few dict entries. The schedule is computed on demand from the players' order
(``scheduler.make_schedule``); ``rounds.json`` holds the players, every round's status and
the matches of the round being played only (their referees), so writing it costs O(rounds +
one round), never O(matches). The standings are ranked on demand, at most as often as a
small share of the process's time allows (``standings_document``)."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from league_manager.ranking import Ranking, RankingCache, refresh_standings_file
from league_manager.records import (
    LeagueStatus,
    LoadedSchedule,
    MatchProgress,
    ResultRecord,
    RoundRecord,
    RoundStatus,
    ScheduleRecipe,
    check_results_fit,
    parse_schedule,
    read_journal,
)
from league_manager.scheduler import Schedule, ScheduledMatch, make_schedule
from league_manager.standings import StandingsTable
from sdk.config import ScoringConfig
from sdk.messages import StandingsRow
from sdk.store import (
    RECOVERY_HINT,
    Journal,
    StoreError,
    backup_path,
    load_with_backup,
    quarantine,
    remove_temp_files,
    write_document,
)
from sdk.timeutil import utc_now_str

__all__ = [
    "SCHEDULE_PAGE_MATCHES",
    "LeagueBook",
    "LeagueStatus",
    "MatchProgress",
    "ResultRecord",
    "RoundRecord",
    "ScheduleRecipe",
]

_log = logging.getLogger(__name__)

SCHEDULE_PAGE_MATCHES = 10_000
"""At most this many matches in one page of the schedule document (at least one round)."""


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

    def __init__(
        self,
        league_dir: Path,
        league_id: str,
        scoring: ScoringConfig,
        recipe: ScheduleRecipe | None = None,
    ):
        self.league_id = league_id
        self._scoring = scoring
        self._rounds_path = league_dir / "rounds.json"
        self._standings_path = league_dir / "standings.json"
        journal_path = league_dir / "journal.jsonl"
        self.status = LeagueStatus.REGISTRATION
        self.players: list[tuple[str, str]] = []
        self.players_per_match = recipe.players_per_match if recipe else 2
        self.schedule: Schedule | None = None
        self.rounds: list[RoundRecord] = []
        """Every round's status; a round being played also lists its matches."""
        self.results: dict[str, ResultRecord] = {}
        self.table = StandingsTable([], scoring)
        self.recovery_notes: list[str] = []
        """What start-up found damaged and how it recovered, a sentence each (also logged
        as warnings; the League Manager puts them in its logs)."""
        self.unsettled: set[str] = set()
        """Matches without a result that a referee may have been given before this start
        (the League Manager asks the referees about them before handing them out again)."""
        self._live: dict[str, MatchProgress] = {}
        """The matches of the rounds being played, by id: the records the League Manager
        updates as it hands them to referees."""
        self._done_in: Counter[int] = Counter()
        self._results_of: dict[str, list[str]] = defaultdict(list)
        self._first_open = 0
        self._rounds_done = 0
        self._ranker = RankingCache(league_id)
        remove_temp_files(league_dir)  # writes a kill cut short; the files are whole
        raw, damage = read_journal(journal_path)
        results = [result for _, result in raw]
        exact, rewrite_rounds = self._read_schedule(recipe, journal_path, bool(raw or damage))
        in_flight = self.current_round()
        check_results_fit(results, self.match, journal_path, self._rounds_path)
        for result in results:
            self._apply(result)
        reopened, settled = self._settle_statuses()
        if self.status == LeagueStatus.RUNNING:
            self.unsettled = self._unsettled(reopened, in_flight if exact else None)
        if damage:
            kept = Journal.rewrite(journal_path, [record for record, _ in raw])
            lines = ", ".join(f"line {bad.number} {bad.problem}" for bad in damage)
            self._note(
                f"{journal_path}: {lines}; kept the other {len(raw)} result(s), the "
                f"damaged file as {kept.name}; a match whose result was lost is asked "
                "of its referee or played again"
            )
        if rewrite_rounds or settled:
            self._write_rounds(keep_backup=not rewrite_rounds)
        if self.rounds:
            refresh_standings_file(
                self._standings_path, self.standings_document(), self._write_standings, self._note
            )
        self._journal = Journal(journal_path)

    # -- start-up: reading and recovering the files ------------------------------------

    def _note(self, note: str) -> None:
        self.recovery_notes.append(note)
        _log.warning(note)

    def _read_schedule(
        self, recipe: ScheduleRecipe | None, journal_path: Path, journaled: bool
    ) -> tuple[bool, bool]:
        """Load rounds.json, its backup, or make the schedule again from ``recipe``.
        Returns (exact: the file itself was read, rewrite: rounds.json must be written).

        Raises:
            StoreError: no usable schedule and no players to make it again from.
        """
        try:
            loaded = load_with_backup(self._rounds_path, parse_schedule)
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
                    self._note(f"{loaded.problem}; kept it as {quarantine(self._rounds_path).name}")
                self._note(
                    f"recovered the schedule from {loaded.source.name}, its previous "
                    "version; the journal brings the results since"
                )
                return False, True
            problem = f"{self._rounds_path} is missing but {journal_path} holds results"
        if recipe is None or not recipe.players:
            raise StoreError(
                f"cannot start: {problem}; no registered players to make the "
                f"schedule again from; {RECOVERY_HINT}"
            )
        for path in (self._rounds_path, backup_path(self._rounds_path)):
            if path.exists():
                quarantine(path)
        self.create_schedule(list(recipe.players), recipe.players_per_match, recipe.rounds)
        self._note(
            f"{problem}; made the schedule again from the {len(recipe.players)} "
            "registered players in registration order (it is deterministic in them); "
            "damaged files kept as .corrupt-*"
        )
        return False, True

    def _load_schedule(self, loaded: LoadedSchedule) -> None:
        self.status, self.players, self.rounds = loaded.status, loaded.players, loaded.rounds
        self.schedule, self.players_per_match = loaded.schedule, loaded.players_per_match
        self._live = {m.match_id: m for r in self.rounds for m in r.matches}
        self.table = StandingsTable(self.players, self._scoring)

    def _settle_statuses(self) -> tuple[set[int], bool]:
        """Make the statuses agree with the journal, the truth: a round marked completed
        with a result missing (a damaged journal line) is played again, and a schedule
        older than its results (a backup, or made again) is running. Returns the reopened
        rounds and whether anything changed."""
        reopened: set[int] = set()
        for round_record in self.rounds:
            assert self.schedule is not None
            for match in round_record.matches:
                if match.match_id not in self.results:
                    match.status, match.winner = "PENDING", None
            complete = self._done_in[round_record.round_id] == self.schedule.matches_in(
                round_record.round_id
            )
            if not complete and round_record.status == "COMPLETED":
                round_record.status, round_record.completed_at = "RUNNING", None
                self.open_round(round_record)
                reopened.add(round_record.round_id)
        if reopened:
            self._note(
                f"round(s) {', '.join(map(str, sorted(reopened)))} were completed but "
                "the journal lacks some of their results: those matches are asked of "
                "their referees or played again"
            )
        self._first_open = 0
        self._rounds_done = sum(1 for r in self.rounds if r.status == "COMPLETED")
        changed = bool(reopened)
        unfinished = len(self.results) < self.total_matches
        if (self.results and self.status == LeagueStatus.SCHEDULED) or (
            unfinished and self.status == LeagueStatus.COMPLETED
        ):
            self.status, changed = LeagueStatus.RUNNING, True
        return reopened, changed

    def _unsettled(self, reopened: set[int], in_flight: RoundRecord | None) -> set[str]:
        """Matches without a result that a referee may hold: those of the reopened rounds
        and of the round in flight. With a schedule recovered (``in_flight`` None: its
        statuses may lag), the round in flight is the first one the journal does not
        complete, and any round with some of its results is one too."""
        assert self.schedule is not None
        if in_flight is not None:
            candidates = reopened | {in_flight.round_id}
        else:
            candidates = set(reopened)
            in_flight_found = False
            for round_record in self.rounds:
                done = self._done_in[round_record.round_id]
                if done < self.schedule.matches_in(round_record.round_id) and (
                    done or not in_flight_found
                ):
                    candidates.add(round_record.round_id)
                    in_flight_found = True
        return {
            m.match_id
            for round_id in sorted(candidates)
            for m in self.round_matches(self.rounds[round_id - 1])
            if m.match_id not in self.results
        }

    def create_schedule(
        self, players: list[tuple[str, str]], players_per_match: int = 2, rounds: int | None = None
    ) -> None:
        """Fix the players and the schedule (registration closes here): a round robin of
        two-player matches, or ``rounds`` rounds of matches of ``players_per_match``."""
        self.players = list(players)
        self.players_per_match = players_per_match
        schedule = make_schedule([player_id for player_id, _ in players], players_per_match, rounds)
        self.schedule = schedule
        self.rounds = [
            RoundRecord(round_id=r, byes=schedule.byes(r))
            for r in range(1, schedule.total_rounds + 1)
        ]
        self._live = {}
        self._first_open = self._rounds_done = 0
        self.table = StandingsTable(self.players, self._scoring)
        self._ranker.clear()
        self.status = LeagueStatus.SCHEDULED
        self.write_rounds()
        self.write_standings()

    # -- the schedule ------------------------------------------------------------------

    @property
    def total_matches(self) -> int:
        return self.schedule.total_matches if self.schedule else 0

    def current_round(self) -> RoundRecord | None:
        """The first round not completed yet (rounds complete in order: O(1) amortised)."""
        while (
            self._first_open < len(self.rounds)
            and self.rounds[self._first_open].status == "COMPLETED"
        ):
            self._first_open += 1
        return self.rounds[self._first_open] if self._first_open < len(self.rounds) else None

    def rounds_completed(self) -> int:
        return self._rounds_done

    def _record_of(self, planned: ScheduledMatch) -> MatchProgress:
        """A match as the book knows it: its live record, or one made from its result."""
        live = self._live.get(planned.match_id)
        if live is not None:
            return live
        result = self.results.get(planned.match_id)
        record = MatchProgress(
            match_id=planned.match_id,
            round_id=planned.round_id,
            player_ids=planned.player_ids,
            player_A_id=planned.player_A_id,
            player_B_id=planned.player_B_id,
        )
        if result is not None:
            record.status, record.winner = "COMPLETED", result.winner
            record.referee_id = result.referee_id
        return record

    def match(self, match_id: str) -> MatchProgress | None:
        """The scheduled match with this id (O(1)), or None."""
        live = self._live.get(match_id)
        if live is not None or self.schedule is None:
            return live
        planned = self.schedule.match(match_id)
        return None if planned is None else self._record_of(planned)

    def round_matches(self, round_record: RoundRecord) -> list[MatchProgress]:
        """A round's matches: the live records while it is played, else made on demand."""
        if round_record.matches:
            return round_record.matches
        assert self.schedule is not None
        return [self._record_of(m) for m in self.schedule.round(round_record.round_id).matches]

    def iter_matches(self) -> Iterator[MatchProgress]:
        """Every match of the schedule, round by round (O(matches): tools and small leagues)."""
        for round_record in self.rounds:
            yield from self.round_matches(round_record)

    def open_round(self, round_record: RoundRecord) -> list[MatchProgress]:
        """List a round's matches as live records, to hand out and update while it runs."""
        if not round_record.matches:
            round_record.matches = self.round_matches(round_record)
            self._live.update((m.match_id, m) for m in round_record.matches)
        return round_record.matches

    def next_match_of(self, player_id: str) -> MatchProgress | None:
        """The player's first match without a result, from the current round on: rounds
        complete in order, so this looks at a round or two, never the whole schedule."""
        current = self.current_round()
        if current is None or self.schedule is None:
            return None
        for round_id in range(current.round_id, len(self.rounds) + 1):
            planned = self.schedule.match_of(player_id, round_id)
            if planned is not None and planned.match_id not in self.results:
                return self._record_of(planned)
        return None

    def matches_of(self, player_id: str) -> list[MatchProgress]:
        """Every match of the player's, in round order (O(rounds), not O(matches))."""
        if self.schedule is None:
            return []
        found = (self.schedule.match_of(player_id, r) for r in range(1, len(self.rounds) + 1))
        return [self._record_of(planned) for planned in found if planned is not None]

    def results_of(self, player_id: str) -> list[ResultRecord]:
        """The player's results in the order they were accepted."""
        return [self.results[match_id] for match_id in self._results_of.get(player_id, ())]

    # -- results and standings ---------------------------------------------------------

    @property
    def standings_version(self) -> int:
        return len(self.results)

    def record(self, result: ResultRecord, *, sync: bool = True) -> None:
        """Journal a result and count it; ``write_standings`` snapshots later. With
        ``sync`` the line is fsynced now; else ``await durable()`` before acknowledging it."""
        self._journal.append(result.model_dump(), sync=sync)
        self._apply(result)

    async def durable(self) -> None:
        """Return once every result recorded so far is on disk (group commit)."""
        await self._journal.durable()

    def _apply(self, result: ResultRecord) -> None:
        if result.match_id in self.results:
            return
        self.results[result.match_id] = result
        self.table.apply(result.outcomes)
        self._done_in[result.round_id] += 1
        for player_id in result.outcomes:
            self._results_of[player_id].append(result.match_id)
        match = self._live.get(result.match_id)
        if match is not None:
            match.status = "COMPLETED"
            match.winner = result.winner

    def _ranking(self, *, fresh: bool) -> Ranking:
        """The ranked standings; unless ``fresh``, one up to a few rankings' time old."""
        return self._ranker.ranking(
            self.table,
            version=self.standings_version,
            rounds_completed=self._rounds_done,
            total_matches=self.total_matches,
            fresh=fresh,
        )

    def rank_of(self, player_id: str) -> int | None:
        """The player's rank in the latest ranking (as queries see it), or None."""
        return self._ranking(fresh=False).ranks.get(player_id)

    def standings_rows(self, *, fresh: bool = True) -> list[StandingsRow]:
        return [
            StandingsRow.model_validate(row)
            for row in self._ranking(fresh=fresh).document["standings"]
        ]

    def standings_document(self, *, fresh: bool = True) -> dict[str, Any]:
        """The standings (do not modify the answer: it is cached). ``fresh=False`` (for
        queries) may answer a ranking a moment old; its ``version`` says which."""
        return self._ranking(fresh=fresh).document

    def write_standings(self) -> dict[str, Any]:
        """Snapshot the standings; the version replaced stays as standings.json.bak."""
        return self._write_standings(keep_backup=True)

    def _write_standings(self, *, keep_backup: bool) -> dict[str, Any]:
        return write_document(
            self._standings_path, self.standings_document(), keep_backup=keep_backup
        )

    def schedule_document(
        self,
        from_round: int = 1,
        max_rounds: int | None = None,
    ) -> dict[str, Any]:
        """The schedule from round ``from_round`` on: at most ``max_rounds`` rounds and
        SCHEDULE_PAGE_MATCHES matches (at least one round); ``next_from_round`` pages on."""
        page: list[dict[str, Any]] = []
        listed = 0
        round_id = max(from_round, 1)
        while round_id <= len(self.rounds) and (max_rounds is None or len(page) < max_rounds):
            assert self.schedule is not None
            size = self.schedule.matches_in(round_id)
            if page and listed + size > SCHEDULE_PAGE_MATCHES:
                break
            round_record = self.rounds[round_id - 1]
            page.append(
                round_record.model_dump(exclude={"matches"})
                | {"matches": [m.model_dump() for m in self.round_matches(round_record)]}
            )
            listed += size
            round_id += 1
        return {
            "league_id": self.league_id,
            "status": self.status.value,
            "total_rounds": len(self.rounds),
            "total_matches": self.total_matches,
            "players": [{"player_id": p, "display_name": n} for p, n in self.players],
            "rounds": page,
            "next_from_round": round_id if round_id <= len(self.rounds) else None,
        }

    def write_rounds(self) -> None:
        """Write the schedule; the version replaced stays as rounds.json.bak."""
        self._write_rounds(keep_backup=True)

    def _write_rounds(self, *, keep_backup: bool) -> None:
        write_document(
            self._rounds_path,
            {
                "league_id": self.league_id,
                "status": self.status.value,
                "players_per_match": self.players_per_match,
                "total_rounds": len(self.rounds),
                "total_matches": self.total_matches,
                "players": [{"player_id": p, "display_name": n} for p, n in self.players],
                "rounds": [r.model_dump() for r in self.rounds],
            },
            indent=None,
            keep_backup=keep_backup,
        )

    def mark_round(self, round_record: RoundRecord, status: RoundStatus) -> None:
        """Move a round on and write rounds.json; a completed round's matches leave the
        live records (the schedule and the journal tell them from now on)."""
        self._rounds_done += (status == "COMPLETED") - (round_record.status == "COMPLETED")
        round_record.status = status
        if status == "RUNNING" and round_record.started_at is None:
            round_record.started_at = utc_now_str()
        if status == "COMPLETED":
            round_record.completed_at = utc_now_str()
            for match in round_record.matches:
                self._live.pop(match.match_id, None)
            round_record.matches = []
        self.write_rounds()

    def close(self) -> None:
        self._journal.close()

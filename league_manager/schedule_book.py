"""The league's schedule book, kept in ``rounds.json``: the league's status, its players,
the schedule made from them, every round's status, and the matches of the round being
played with their referees (live records, updated as the League Manager hands them out).

The schedule is computed on demand from the players' order (``scheduler.make_schedule``), so
writing rounds.json costs O(rounds + one round), never O(matches); a match of another round
is made on demand from the schedule and its result (``results_book.py``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from league_manager.records import (
    LeagueStatus,
    LoadedSchedule,
    MatchProgress,
    ResultRecord,
    RoundRecord,
    RoundStatus,
)
from league_manager.results_book import ResultsBook
from league_manager.scheduler import Schedule, ScheduledMatch, make_schedule
from sdk.store import write_document
from sdk.timeutil import utc_now_str

__all__ = ["SCHEDULE_PAGE_MATCHES", "ScheduleBook"]

SCHEDULE_PAGE_MATCHES = 10_000
"""At most this many matches in one page of the schedule document (at least one round)."""


class ScheduleBook:
    """What the league plays and how far it got. It reads the results book (a match with a
    result is completed) and never writes it. The league's and the rounds' statuses change
    only through its ``mark_*`` methods; a live match's hand-over is written on its record
    by the hand-over (``fencing.py``, ``handover.py``)."""

    def __init__(
        self,
        rounds_path: Path,
        league_id: str,
        results: ResultsBook,
        *,
        loaded: LoadedSchedule | None = None,
        players_per_match: int = 2,
        publish: Callable[[dict[str, Any]], None] | None = None,
    ):
        """``publish``: where the schedule is kept instead of ``rounds_path`` (a shared
        store's queue, given each new content)."""
        self.league_id = league_id
        self.path = rounds_path
        self._publish = publish
        self._results = results
        self._status = LeagueStatus.REGISTRATION
        self.players: list[tuple[str, str]] = []
        self.players_per_match = players_per_match
        self._schedule: Schedule | None = None
        self.rounds: list[RoundRecord] = []
        """Every round's status; a round being played also lists its matches."""
        self._live: dict[str, MatchProgress] = {}
        """The matches of the rounds being played, by id: the records the League Manager
        updates as it hands them to referees."""
        self._first_open = 0
        self._rounds_done = 0
        if loaded is not None:
            self.load(loaded)

    def load(self, loaded: LoadedSchedule) -> None:
        """Take the schedule as a store holds it, in place of this one's (the parts that
        read the book keep reading this one); ``settle`` makes it agree with the results."""
        self._status, self.players, self.rounds = loaded.status, loaded.players, loaded.rounds
        self._schedule, self.players_per_match = loaded.schedule, loaded.players_per_match
        self._live = {m.match_id: m for r in self.rounds for m in r.matches}
        self._first_open = 0
        self._rounds_done = sum(1 for r in self.rounds if r.status == "COMPLETED")

    @property
    def status(self) -> LeagueStatus:
        return self._status

    @property
    def total_matches(self) -> int:
        return self._schedule.total_matches if self._schedule else 0

    def create(
        self, players: list[tuple[str, str]], players_per_match: int = 2, rounds: int | None = None
    ) -> None:
        """Fix the players and the schedule (registration closes here) and write it: a round
        robin of two-player matches, or ``rounds`` rounds of matches of ``players_per_match``."""
        self.players = list(players)
        self.players_per_match = players_per_match
        schedule = make_schedule([player_id for player_id, _ in players], players_per_match, rounds)
        self._schedule = schedule
        self.rounds = [
            RoundRecord(round_id=r, byes=schedule.byes(r))
            for r in range(1, schedule.total_rounds + 1)
        ]
        self._live = {}
        self._first_open = self._rounds_done = 0
        self._status = LeagueStatus.SCHEDULED
        self.write()

    def unschedule(self) -> None:
        """Registration open again, with no schedule, and written: a schedule just made
        that its store refused to keep (``league_start.py``), before any match was played."""
        self.players, self._schedule, self.rounds, self._live = [], None, [], {}
        self._first_open = self._rounds_done = 0
        self._status = LeagueStatus.REGISTRATION
        self.write()

    # -- the statuses ------------------------------------------------------------------

    def mark_league(self, status: LeagueStatus) -> None:
        """Move the league on (running, completed) and write rounds.json."""
        self._status = status
        self.write()

    def mark_round(self, round_record: RoundRecord, status: RoundStatus) -> None:
        """Move a round on and write rounds.json; a completed round's matches leave the
        live records (the schedule and the results tell them from now on)."""
        self._rounds_done += (status == "COMPLETED") - (round_record.status == "COMPLETED")
        round_record.status = status
        if status == "RUNNING" and round_record.started_at is None:
            round_record.started_at = utc_now_str()
        if status == "COMPLETED":
            round_record.completed_at = utc_now_str()
            for match in round_record.matches:
                self._live.pop(match.match_id, None)
            round_record.matches = []
        self.write()

    def mark_decided(self, result: ResultRecord) -> None:
        """A result was recorded: its match, if being played, shows it."""
        match = self._live.get(result.match_id)
        if match is not None:
            match.status, match.winner = "COMPLETED", result.winner

    def open_round(self, round_record: RoundRecord) -> list[MatchProgress]:
        """List a round's matches as live records, to hand out and update while it runs."""
        if not round_record.matches:
            round_record.matches = self.round_matches(round_record)
            self._live.update((m.match_id, m) for m in round_record.matches)
        return round_record.matches

    # -- reading -----------------------------------------------------------------------

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
        result = self._results.get(planned.match_id)
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
        if live is not None or self._schedule is None:
            return live
        planned = self._schedule.match(match_id)
        return None if planned is None else self._record_of(planned)

    def round_matches(self, round_record: RoundRecord) -> list[MatchProgress]:
        """A round's matches: the live records while it is played, else made on demand."""
        if round_record.matches:
            return round_record.matches
        assert self._schedule is not None
        return [self._record_of(m) for m in self._schedule.round(round_record.round_id).matches]

    def iter_matches(self) -> Iterator[MatchProgress]:
        """Every match of the schedule, round by round (O(matches): tools and small leagues)."""
        for round_record in self.rounds:
            yield from self.round_matches(round_record)

    def next_match_of(self, player_id: str) -> MatchProgress | None:
        """The player's first match without a result, from the current round on: rounds
        complete in order, so this looks at a round or two, never the whole schedule."""
        current = self.current_round()
        if current is None or self._schedule is None:
            return None
        for round_id in range(current.round_id, len(self.rounds) + 1):
            planned = self._schedule.match_of(player_id, round_id)
            if planned is not None and planned.match_id not in self._results:
                return self._record_of(planned)
        return None

    def matches_of(self, player_id: str) -> list[MatchProgress]:
        """Every match of the player's, in round order (O(rounds), not O(matches))."""
        if self._schedule is None:
            return []
        found = (self._schedule.match_of(player_id, r) for r in range(1, len(self.rounds) + 1))
        return [self._record_of(planned) for planned in found if planned is not None]

    def document(self, from_round: int = 1, max_rounds: int | None = None) -> dict[str, Any]:
        """The schedule from round ``from_round`` on: at most ``max_rounds`` rounds and
        SCHEDULE_PAGE_MATCHES matches (at least one round); ``next_from_round`` pages on."""
        page: list[dict[str, Any]] = []
        listed = 0
        round_id = max(from_round, 1)
        while round_id <= len(self.rounds) and (max_rounds is None or len(page) < max_rounds):
            assert self._schedule is not None
            size = self._schedule.matches_in(round_id)
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
            "status": self._status.value,
            "total_rounds": len(self.rounds),
            "total_matches": self.total_matches,
            "players": [{"player_id": p, "display_name": n} for p, n in self.players],
            "rounds": page,
            "next_from_round": round_id if round_id <= len(self.rounds) else None,
        }

    def write(self, *, keep_backup: bool = True) -> None:
        """Write rounds.json (the version replaced stays as rounds.json.bak), or hand the
        content to the shared store's queue."""
        document = {
            "league_id": self.league_id,
            "status": self._status.value,
            "players_per_match": self.players_per_match,
            "total_rounds": len(self.rounds),
            "total_matches": self.total_matches,
            "players": [{"player_id": p, "display_name": n} for p, n in self.players],
            "rounds": [r.model_dump() for r in self.rounds],
        }
        if self._publish is not None:
            self._publish(document)
        else:
            write_document(self.path, document, compact=True, keep_backup=keep_backup)

    # -- start-up ----------------------------------------------------------------------

    def settle(self, exact: bool, note: Callable[[str], None]) -> tuple[set[str], bool]:
        """Make the statuses agree with the results, the truth: a live match shows its
        result or none, a round marked completed with a result missing (a damaged journal
        line) is played again, and a schedule older than its results (a backup, or made
        again) is running. ``exact``: the statuses are rounds.json's own (not a backup's).

        Returns the matches without a result that a referee may have been given before this
        start (asked about before they are handed out again) and whether anything changed.
        """
        assert self._schedule is not None or not self.rounds
        in_flight = self.current_round() if exact else None
        done_in = Counter(result.round_id for result in self._results.values())
        reopened: set[int] = set()
        for round_record in self.rounds:
            assert self._schedule is not None
            for match in round_record.matches:
                result = self._results.get(match.match_id)
                match.status = "COMPLETED" if result else "PENDING"
                match.winner = result.winner if result else None
            complete = done_in[round_record.round_id] == self._schedule.matches_in(
                round_record.round_id
            )
            if not complete and round_record.status == "COMPLETED":
                round_record.status, round_record.completed_at = "RUNNING", None
                self.open_round(round_record)
                reopened.add(round_record.round_id)
        if reopened:
            note(
                f"round(s) {', '.join(map(str, sorted(reopened)))} were completed but "
                "the journal lacks some of their results: those matches are asked of "
                "their referees or played again"
            )
        self._first_open = 0
        self._rounds_done = sum(1 for r in self.rounds if r.status == "COMPLETED")
        changed = bool(reopened)
        unfinished = len(self._results) < self.total_matches
        if (self._results and self._status == LeagueStatus.SCHEDULED) or (
            unfinished and self._status == LeagueStatus.COMPLETED
        ):
            self._status, changed = LeagueStatus.RUNNING, True
        if self._status != LeagueStatus.RUNNING:
            return set(), changed
        return self._unsettled(reopened, in_flight, done_in), changed

    def _unsettled(
        self, reopened: set[int], in_flight: RoundRecord | None, done_in: Counter[int]
    ) -> set[str]:
        """Matches without a result that a referee may hold: those of the reopened rounds
        and of the round in flight. With a schedule recovered (``in_flight`` None: its
        statuses may lag), the round in flight is the first one the journal does not
        complete, and any round with some of its results is one too."""
        assert self._schedule is not None
        if in_flight is not None:
            candidates = reopened | {in_flight.round_id}
        else:
            candidates = set(reopened)
            in_flight_found = False
            for round_record in self.rounds:
                done = done_in[round_record.round_id]
                if done < self._schedule.matches_in(round_record.round_id) and (
                    done or not in_flight_found
                ):
                    candidates.add(round_record.round_id)
                    in_flight_found = True
        return {
            m.match_id
            for round_id in sorted(candidates)
            for m in self.round_matches(self.rounds[round_id - 1])
            if m.match_id not in self._results
        }

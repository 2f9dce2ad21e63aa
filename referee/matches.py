"""The matches of one referee: those running (one task each) and those finished (their
files), keyed by (league_id, match_id).

A League Manager that numbers its hand-overs (``StartMatch.assignment``) may give a match
again to a referee that still plays it, or played it without a counted result, under a
larger number (it lost sight of the first run): the new assignment replaces the old run,
which stops without telling its players anything and keeps its record as superseded."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.outcome import MatchOutcome
from sdk.agent_log import AgentLog
from sdk.errors import ErrorCode, ProtocolError
from sdk.ids import SAFE_ID_RULE, is_safe_id
from sdk.messages import MAX_SEATS, MatchSeat, seat_role
from sdk.store import StoreError, read_json

__all__ = ["LaunchedMatch", "RefereeMatches"]

_MatchKey = tuple[str, str]


def _newer(assignment: int | None, held: int | None) -> bool:
    return assignment is not None and held is not None and assignment > held


@dataclass(frozen=True)
class _Finished:
    """What is kept of a finished match: where its record is, and whether a new assignment
    may play it again (it ended without a result the League Manager counts)."""

    path: Path
    assignment: int | None
    replayable: bool

    @classmethod
    def of(cls, record: MatchFile) -> _Finished:
        return cls(
            record.saved_path,
            record.assignment,
            record.state == "ABORTED" or record.report_status == "superseded",
        )


@dataclass(frozen=True)
class LaunchedMatch:
    """A match this referee runs: its record (live) and its task."""

    record: MatchFile
    task: asyncio.Task[MatchOutcome]

    async def outcome(self) -> MatchOutcome:
        """Wait for the end; cancelling the waiter does not stop the match."""
        return await asyncio.shield(self.task)


class RefereeMatches:
    """Which matches run and which have finished, within the referee's capacity."""

    def __init__(self, capacity: int, log: AgentLog):
        self.capacity = capacity
        self._log = log
        self._running: dict[_MatchKey, LaunchedMatch] = {}
        self._finished: dict[_MatchKey, _Finished] = {}
        self._replaced: set[asyncio.Task[MatchOutcome]] = set()
        """Runs replaced by a newer assignment, on their way out."""

    @property
    def running_ids(self) -> list[str]:
        return sorted(match_id for _, match_id in self._running)

    @property
    def finished_count(self) -> int:
        return len(self._finished)

    def check(
        self, league_id: str, match_id: str, seats: list[MatchSeat], assignment: int | None = None
    ) -> tuple[MatchSeat, ...]:
        """The seats in seat order (PLAYER_A, PLAYER_B, ...) of a match this referee may
        start now (under ``assignment``, the League Manager's number of this hand-over).

        Raises:
            ProtocolError: E002 ids that cannot name a file, seats that are not PLAYER_A,
                PLAYER_B, ... once each, or a player seated twice; E015 a match already here
                (and not replaced by this newer assignment); E017 no capacity.
        """
        for name, value in (("league_id", league_id), ("match_id", match_id)):
            if not is_safe_id(value):
                raise ProtocolError(
                    ErrorCode.INVALID_FIELD_VALUE,
                    f"{name} {value!r} {SAFE_ID_RULE} (it names a file)",
                )
        by_role = {seat.role: seat for seat in seats}
        roles = [seat_role(index) for index in range(min(len(seats), MAX_SEATS))]
        if len(seats) < 2 or len(by_role) != len(seats) or sorted(by_role) != roles:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                "a match needs two or more players holding the roles "
                "PLAYER_A, PLAYER_B, ... once each, got "
                f"{[seat.role for seat in seats]}",
            )
        players = [seat.player_id for seat in seats]
        if len(set(players)) != len(players):
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                f"a player cannot take two seats of one match: {players}",
            )
        key = (league_id, match_id)
        running, finished = self._running.get(key), self._finished.get(key)
        if running is not None and not _newer(assignment, running.record.assignment):
            raise ProtocolError(
                ErrorCode.INVALID_STATE,
                f"match {match_id} of {league_id} "
                f"is running on this referee{_under(running.record)}",
            )
        if finished is not None and not (
            finished.replayable and _newer(assignment, finished.assignment)
        ):
            raise ProtocolError(
                ErrorCode.INVALID_STATE,
                f"match {match_id} of {league_id} has finished on this referee",
            )
        replacing = running is not None and not running.record.finished
        if self.busy - replacing >= self.capacity:
            raise ProtocolError(
                ErrorCode.CAPACITY_EXCEEDED,
                f"this referee already runs {self.busy} match(es), its "
                "maximum; try again when one ends",
            )
        return tuple(by_role[role] for role in roles)

    @property
    def busy(self) -> int:
        """Matches still being played. A decided match that is only announcing its result
        and reporting it holds no slot: the League Manager hands out the next match as soon
        as the report arrives, which is before the reporting task ends."""
        return sum(1 for launched in self._running.values() if not launched.record.finished)

    def start(self, record: MatchFile, match: Match) -> LaunchedMatch:
        """Run the match as its own task; it moves to the finished ones when it ends. A
        run of an older assignment of the match still here is replaced (``check`` let it)."""
        key = (record.league_id, record.match_id)
        old = self._running.get(key)
        if old is not None:
            old.record.replaced_by(record.assignment)
            old.task.cancel()
            self._replaced.add(old.task)
            old.task.add_done_callback(self._replaced.discard)
            self._log.log.warning(
                "match_replaced",
                match_id=record.match_id,
                old_assignment=old.record.assignment,
                assignment=record.assignment,
            )
        task = asyncio.create_task(match.run(), name=f"match {key[0]}/{key[1]}")
        launched = self._running[key] = LaunchedMatch(record, task)
        task.add_done_callback(lambda done: self._done(key, launched, done))
        return launched

    def _done(
        self, key: _MatchKey, launched: LaunchedMatch, task: asyncio.Task[MatchOutcome]
    ) -> None:
        if self._running.get(key) is launched:
            del self._running[key]
            self._finished[key] = _Finished.of(launched.record)
        if not task.cancelled() and task.exception() is not None:
            self._log.log.error("match_crashed", match_id=key[1], exc_info=task.exception())

    def lookup(self, match_id: str, league_id: str | None) -> dict[str, Any]:
        """A match's record (``state`` added); the moves of a running match stay hidden.

        Raises:
            ProtocolError: E006 no such match on this referee, or its file is gone.
        """

        def wanted(key: _MatchKey) -> bool:
            return key[1] == match_id and league_id in (None, key[0])

        for key, launched in self._running.items():
            if wanted(key):
                return launched.record.snapshot()
        for key, finished in self._finished.items():
            if wanted(key):
                path = finished.path
                try:
                    document: dict[str, Any] = read_json(path)
                except (FileNotFoundError, StoreError):
                    raise ProtocolError(
                        ErrorCode.MATCH_NOT_FOUND,
                        f"the file of match {match_id!r} is gone or unreadable: {path}",
                    ) from None
                document["state"] = document["lifecycle"][-1]["state"]
                return document
        raise ProtocolError(
            ErrorCode.MATCH_NOT_FOUND, f"match {match_id!r} is not known to this referee"
        )

    async def cancel_all(self) -> None:
        """Cancel every running match and wait until each has written itself down."""
        tasks = [launched.task for launched in self._running.values()] + list(self._replaced)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _under(record: MatchFile) -> str:
    return "" if record.assignment is None else f" under assignment {record.assignment}"

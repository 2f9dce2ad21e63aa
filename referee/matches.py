"""The matches of one referee: those running (one task each) and those finished (their
files), keyed by (league_id, match_id)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.match import MatchRunner
from referee.match_file import MatchRecord
from referee.outcome import MatchOutcome
from referee.registration import SAFE_ID
from sdk.agent_log import AgentLog
from sdk.errors import ErrorCode, ProtocolError
from sdk.messages import MAX_SEATS, MatchSeat, seat_role
from sdk.store import StoreError, read_json

__all__ = ["LaunchedMatch", "MatchBook"]

_MatchKey = tuple[str, str]


@dataclass(frozen=True)
class LaunchedMatch:
    """A match this referee runs: its record (live) and its task."""

    record: MatchRecord
    task: asyncio.Task[MatchOutcome]

    async def outcome(self) -> MatchOutcome:
        """Wait for the end; cancelling the waiter does not stop the match."""
        return await asyncio.shield(self.task)


class MatchBook:
    """Which matches run and which have finished, within the referee's capacity."""

    def __init__(self, capacity: int, log: AgentLog):
        self.capacity = capacity
        self._log = log
        self._running: dict[_MatchKey, LaunchedMatch] = {}
        self._finished: dict[_MatchKey, Path] = {}

    @property
    def running_ids(self) -> list[str]:
        return sorted(match_id for _, match_id in self._running)

    @property
    def finished_count(self) -> int:
        return len(self._finished)

    def check(self, league_id: str, match_id: str,
              seats: list[MatchSeat]) -> tuple[MatchSeat, ...]:
        """The seats in seat order (PLAYER_A, PLAYER_B, ...) of a match this referee may
        start now.

        Raises:
            ProtocolError: E002 ids that cannot name a file, seats that are not PLAYER_A,
                PLAYER_B, ... once each, or a player seated twice; E015 a match already here;
                E017 no capacity.
        """
        for name, value in (("league_id", league_id), ("match_id", match_id)):
            if not SAFE_ID.match(value):
                raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE,
                                    f"{name} {value!r} may hold only letters, digits, '_', '.' "
                                    "and '-' (it names a file)")
        by_role = {seat.role: seat for seat in seats}
        roles = [seat_role(index) for index in range(min(len(seats), MAX_SEATS))]
        if len(seats) < 2 or len(by_role) != len(seats) or sorted(by_role) != roles:
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE,
                                "a match needs two or more players holding the roles "
                                "PLAYER_A, PLAYER_B, ... once each, got "
                                f"{[seat.role for seat in seats]}")
        players = [seat.player_id for seat in seats]
        if len(set(players)) != len(players):
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE,
                                f"a player cannot take two seats of one match: {players}")
        key = (league_id, match_id)
        if key in self._running or key in self._finished:
            where = "is running" if key in self._running else "has finished"
            raise ProtocolError(ErrorCode.INVALID_STATE,
                                f"match {match_id} of {league_id} {where} on this referee")
        if self.busy >= self.capacity:
            raise ProtocolError(ErrorCode.CAPACITY_EXCEEDED,
                                f"this referee already runs {self.busy} match(es), its "
                                "maximum; try again when one ends")
        return tuple(by_role[role] for role in roles)

    @property
    def busy(self) -> int:
        """Matches still being played. A decided match that is only announcing its result
        and reporting it holds no slot: the League Manager hands out the next match as soon
        as the report arrives, which is before the reporting task ends."""
        return sum(1 for launched in self._running.values() if not launched.record.finished)

    def start(self, record: MatchRecord, runner: MatchRunner) -> LaunchedMatch:
        """Run the match as its own task; it moves to the finished ones when it ends."""
        key = (record.league_id, record.match_id)
        task = asyncio.create_task(runner.run(), name=f"match {key[0]}/{key[1]}")
        launched = self._running[key] = LaunchedMatch(record, task)
        task.add_done_callback(lambda done: self._done(key, done))
        return launched

    def _done(self, key: _MatchKey, task: asyncio.Task[MatchOutcome]) -> None:
        launched = self._running.pop(key)
        self._finished[key] = launched.record.path
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
        for key, path in self._finished.items():
            if wanted(key):
                try:
                    document: dict[str, Any] = read_json(path)
                except (FileNotFoundError, StoreError):
                    raise ProtocolError(ErrorCode.MATCH_NOT_FOUND,
                                        f"the file of match {match_id!r} is gone or unreadable: "
                                        f"{path}") from None
                document["state"] = document["lifecycle"][-1]["state"]
                return document
        raise ProtocolError(ErrorCode.MATCH_NOT_FOUND,
                            f"match {match_id!r} is not known to this referee")

    async def cancel_all(self) -> None:
        """Cancel every running match and wait until each has written itself down."""
        tasks = [launched.task for launched in self._running.values()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

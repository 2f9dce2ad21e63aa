"""The League Manager's watchdog: files it could not write, registry files gone, rounds
that make no progress. Never silently stuck: each is an alarm (``alarms.py``) with its
reason, and each clears by itself once its cause is gone.

- **A write that failed** (a full disk, a database gone): the file is marked unwritten,
  its alarm raised, and no match is handed out nor forfeited until every file is written
  again: work that could not be recorded is not started. Once a second the watchdog writes
  each unwritten snapshot again from memory (the journal, which is never rewritten, by a
  probe file); what is kept in PostgreSQL (the results, the hand-overs) it commits again
  (``kept_in_store``).
- **The registry deleted** (``agents.json``, ``secrets.json``): looked for once a second
  (two stats, never one per result) and written again from memory.
- **The registry's journal deleted or replaced** (``registry.jsonl``): found by a third
  stat (the file at its path against the one the last snapshot left), and both snapshots
  written again from memory with a fresh journal after them, so every agent acknowledged
  meanwhile is known at the next start.
- **The results' journal deleted or replaced** (``journal.jsonl``): found by comparing the
  file at its path with the one appended to, once a second, and written again from memory
  (every accepted result), so nothing acknowledged is lost at the next start.
- **The registry's snapshots**: written once they are due (``AgentRegistry.snapshot_due``),
  never by a registration itself, which only appends to the registry's journal.
- **A round without progress** for the league's ``stall_after_sec``: an alarm naming the
  matches waited for and their referees.
- **A flood of connections or requests**: while the server closes connections or refuses
  requests to stay under its bounds, or answers for a handler that takes too long
  (``sdk.connections``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from league_manager.agents import AgentRegistry
from league_manager.alarms import Alarms
from league_manager.assignments import ASSIGNMENTS_FILE, AssignmentNumbers
from league_manager.records import LeagueStatus
from league_manager.registry_files import (
    AGENTS_FILE,
    REGISTRY_JOURNAL,
    SECRETS_FILE,
    JournalMark,
)
from league_manager.result_log import ResultJournal
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook
from sdk.connections import ConnectionGuard
from sdk.store import StoreError, atomic_write_json

__all__ = ["FLOOD", "JOURNAL", "STALL", "WATCHDOG", "WATCH_SEC", "Upkeep"]

WATCH_SEC = 1.0
"""How often the watchdog looks."""
JOURNAL = "journal.jsonl"
"""The results' file; where they are in PostgreSQL, its alarm says so (``_IN_DATABASE``)."""
_IN_DATABASE = "results (PostgreSQL)"
FLOOD = "flood"
STALL = "stall"
WATCHDOG = "watchdog"
_LISTED_MATCHES = 10
"""Matches a stall alarm names; more are counted."""
_REGISTRY = (AGENTS_FILE, SECRETS_FILE)
_PROBE = ".write-probe.tmp"
"""Written and removed to learn that the disk takes writes again (a start-up removes a
``.*.tmp`` a kill left)."""


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else "")
    return str(exc)


class Upkeep:
    """Unwritten files, the registry's presence and the rounds' progress, watched once a
    second while the league lives. It is given the files it writes again and what it
    watches; ``paused`` tells whether the admin paused the league (no stall then)."""

    def __init__(
        self,
        league_dir: Path,
        *,
        alarms: Alarms,
        event: Callable[..., None],
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        agents: AgentRegistry,
        assignments: AssignmentNumbers | None,
        connections: ConnectionGuard,
        paused: Callable[[], bool],
        stall_after_sec: float,
        results_retry: Callable[[], Awaitable[None]] | None = None,
        journal: ResultJournal | None = None,
    ):
        """``results_retry``: where the results are not in the journal file (PostgreSQL),
        how the watchdog learns the store keeps them again: it commits those not yet kept
        (a result is refused only with some left so), raising StoreError while it cannot.
        ``journal``: the results' file where they are in one, written again from memory
        when it is found deleted.
        """
        self._retries: dict[str, Callable[[], Awaitable[None]]] = {}
        """What is kept in a store, not a file: how the watchdog commits it again."""
        self._shown: dict[str, str] = {}
        """What the alarms call such work: its store, not a file it does not use."""
        if results_retry is not None:
            self.kept_in_store(JOURNAL, _IN_DATABASE, results_retry)
        self._journal = journal
        self._dir = league_dir
        self._alarms = alarms
        self._event = event
        self._schedule = schedule
        self._results = results
        self._agents = agents
        self._registry_journal = JournalMark(league_dir)
        self._connections = connections
        self._paused = paused
        self._stall_after_sec = stall_after_sec
        self._unwritten: set[str] = set()
        self._writable = asyncio.Event()
        self._writable.set()
        self._mark: tuple[int, int] | None = None
        self._mark_at = time.monotonic()
        self._task: asyncio.Task[None] | None = None
        self._rewrites: dict[str, Callable[[], Any]] = {
            "rounds.json": schedule.write,
            "standings.json": standings.write,
            AGENTS_FILE: self._save_registry,
            REGISTRY_JOURNAL: self._save_registry,  # a snapshot holds what it could not
            JOURNAL: self._probe,
        }
        if assignments is not None:  # None: numbers come from the shared store
            self._rewrites[ASSIGNMENTS_FILE] = assignments.reserve

    # -- writes ----------------------------------------------------------------------

    @property
    def can_write(self) -> bool:
        return not self._unwritten

    async def writable(self) -> None:
        """Return once every file the League Manager keeps is written (at once if so)."""
        await self._writable.wait()

    def persist(self, name: str, write: Callable[[], Any]) -> bool:
        """Run ``write``, which writes the file ``name`` (one of the snapshots, or the
        journal); False, with the file unwritten and its alarm raised, if it failed."""
        try:
            write()
        except (OSError, StoreError) as exc:
            self.failed(name, exc)
            return False
        self.written(name)
        return True

    def failed(self, name: str, exc: BaseException) -> None:
        """The file ``name`` could not be written: it is written again once it can be."""
        self._unwritten.add(name)
        self._writable.clear()
        shown = self._shown.get(name, name)
        self._alarms.raise_alarm(
            f"write:{shown}",
            f"cannot write {shown}: {_why(exc)}; no match is handed out and "
            "no result acknowledged until it can",
        )

    def written(self, name: str) -> None:
        if name not in self._unwritten:  # the common case, once per result: one set lookup
            return
        self._unwritten.discard(name)
        self._alarms.clear(f"write:{self._shown.get(name, name)}")
        if not self._unwritten:
            self._writable.set()

    def kept_in_store(self, name: str, shown: str, retry: Callable[[], Awaitable[None]]) -> None:
        """The work ``name`` is kept in a shared store, not a file: its alarm calls it
        ``shown`` (``write:<shown>``), and once it failed the watchdog runs ``retry`` once
        a second, which raises StoreError while the store still refuses it."""
        self._retries[name], self._shown[name] = retry, shown

    def _save_registry(self) -> None:
        """The registry's snapshots, the journal rolled over (or started afresh where it was
        lost): the file then at its path is the one the registry appends to."""
        self._agents.save()
        self._registry_journal.mark()

    def _probe(self) -> None:
        probe = self._dir / _PROBE
        atomic_write_json(probe, {"probe": True})
        probe.unlink()

    # -- the watchdog ----------------------------------------------------------------

    def start(self) -> None:
        self._task = asyncio.create_task(self._watch(), name="league-upkeep")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _watch(self) -> None:
        """Look once a second for as long as the league lives. A look that fails (our own
        fault) raises the alarm ``watchdog`` with why, and the next look goes on: a
        watchdog that ended would leave files unwritten and stalls untold for good."""
        while True:
            await asyncio.sleep(WATCH_SEC)
            try:
                await self._retry_kept()
                self.look()
            except Exception as exc:
                self._event("watchdog_failed", error=f"{type(exc).__name__}: {exc}")
                self._alarms.raise_alarm(
                    WATCHDOG,
                    f"the watchdog's look failed ({type(exc).__name__}: {_why(exc)}); "
                    f"it looks again every {WATCH_SEC:g} s",
                )
            else:
                self._alarms.clear(WATCHDOG)

    async def _retry_kept(self) -> None:
        """Commit again the work kept in a store that its last commit left unwritten."""
        for name, retry in list(self._retries.items()):
            if name not in self._unwritten:
                continue
            try:
                await retry()
            except StoreError as exc:
                self.failed(name, exc)
            else:
                self.written(name)

    def look(self) -> None:
        """One look: write again what is unwritten, check the registry and the progress."""
        for name in sorted(self._unwritten):
            if name not in self._retries:
                self.persist(name, self._rewrites[name])
        self._check_registry()
        self._check_journal()
        self._check_registry_journal()
        if self._agents.snapshot_due():
            self.persist(AGENTS_FILE, self._save_registry)
        self._check_progress()
        flooded = self._connections.flooded()
        if flooded:
            self._alarms.raise_alarm(FLOOD, flooded)
        else:
            self._alarms.clear(FLOOD)

    def _check_registry(self) -> None:
        if not self._agents.in_files:
            return
        missing = [name for name in _REGISTRY if not (self._dir / name).is_file()]
        for name in missing:
            self._alarms.raise_alarm(
                f"registry:{name}",
                f"{name} was deleted (or is not a file); writing it again from memory",
            )
        if missing and self.persist(AGENTS_FILE, self._save_registry):
            self._event("registry_rewritten", files=missing)
            missing = []
        for name in _REGISTRY:
            if name not in missing:
                self._alarms.clear(f"registry:{name}")

    def _check_journal(self) -> None:
        """``journal.jsonl`` deleted or replaced while the league runs: what was appended
        since went to a file no start-up reads, so it is written again from the results
        in memory (every one accepted), before it is appended to again."""
        journal, key = self._journal, f"lost:{JOURNAL}"
        if journal is None or not journal.lost():
            self._alarms.clear(key)
            return
        self._alarms.raise_alarm(
            key, f"{JOURNAL} was deleted (or replaced); writing it again from memory"
        )
        if self.persist(JOURNAL, lambda: journal.restore(self._results.values())):
            self._event("journal_rewritten", results=len(self._results))
            self._alarms.clear(key)

    def _check_registry_journal(self) -> None:
        """``registry.jsonl`` deleted or replaced while the league runs: the registrations
        and changes of states appended since went to a file no start-up reads, so both
        snapshots are written again from memory (which holds them) and a fresh journal
        follows them."""
        key = f"lost:{REGISTRY_JOURNAL}"
        if not self._agents.in_files or not self._registry_journal.moved():
            self._alarms.clear(key)
            return
        self._alarms.raise_alarm(
            key,
            f"{REGISTRY_JOURNAL} was deleted (or replaced); writing the registry again from memory",
        )
        if self.persist(REGISTRY_JOURNAL, self._save_registry):
            self._event(
                "registry_journal_rewritten",
                agents=self._agents.count("referee") + self._agents.count("player"),
            )
            self._alarms.clear(key)

    def _check_progress(self) -> None:
        """A stall: the league runs, is not paused, and no result has arrived nor round
        begun for ``stall_after_sec``."""
        current = self._schedule.current_round()
        mark = (len(self._results), current.round_id if current else 0)
        now = time.monotonic()
        if mark != self._mark or self._schedule.status != LeagueStatus.RUNNING or self._paused():
            self._mark, self._mark_at = mark, now
            self._alarms.clear(STALL)
            return
        if current is None or now - self._mark_at < self._stall_after_sec:
            return
        self._alarms.raise_alarm(STALL, self._stall_reason(current.round_id))

    def _stall_reason(self, round_id: int) -> str:
        schedule = self._schedule
        waiting = [
            m
            for m in schedule.round_matches(schedule.rounds[round_id - 1])
            if m.match_id not in self._results
        ]
        named = []
        for match in waiting[:_LISTED_MATCHES]:
            referee = self._agents.get(match.referee_id) if match.referee_id else None
            holder = f"referee {referee.agent_id} ({referee.state})" if referee else "no referee"
            named.append(
                f"{match.match_id} {match.status} on {holder}, handed out {match.attempts} time(s)"
            )
        more = len(waiting) - len(named)
        blocked = [a.reason for a in self._alarms.active() if a.key != STALL]
        return (
            f"round {round_id} has made no progress for {self._stall_after_sec:g} s "
            f"or more: waiting for {'; '.join(named) or 'no match'}"
            + (f" and {more} more" if more > 0 else "")
            + (f"; blocked: {'; '.join(blocked)}" if blocked else "")
        )

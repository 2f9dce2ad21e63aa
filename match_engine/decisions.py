"""A referee's decisions journal,
``matches/<league_id>/.decided/<referee_id>.<pid>.<generation>.jsonl``:
each decided match's record, durable before anyone hears the result, until the match
file holds it.

A match file used to be written twice: when the match was decided (before the report and
the GAME_OVERs, so that a result the League Manager counts always has its record) and once
its players were told. Each write was a new file replacing the last, and on ext4 every file
created where many were deleted lately costs the inode allocator a scan past them
(doc/benchmarks.md). Now the decided record is appended here (one fsync covers the records
appended meanwhile, as in the League Manager's journal) and the match file is written once,
when the match is over. Once no decided match waits for its file, the journal is emptied;
one that grows past ``COMPACT_AFTER`` records because some always wait (a player that
holds every GAME_OVER) is written again, as its next generation, with only those.

A referee killed in between leaves its decided records here without their files. The
journal is locked (``flock``) for as long as its process lives, so any referee of the league
on this machine that finds it unlocked writes the match files it holds, as the first write
would have left them (FINISHED, report ``pending``), then removes it. A referee looks when
it opens its own journal, and each time it empties it.
"""

from __future__ import annotations

import asyncio
import fcntl
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from match_engine.match_file import recover_decided
from sdk.agent_log import AgentLog
from sdk.errors import FileSystemError, file_access
from sdk.ids import is_safe_id
from sdk.store import Journal, StoreError

__all__ = ["COMPACT_AFTER", "DECIDED_FOLDER", "DecisionLog", "Recovered", "recover_orphans"]

DECIDED_FOLDER = ".decided"
COMPACT_AFTER = 1_000
"""Records in a journal after which, if some always wait for their files, it is written
again with only those: it would otherwise grow with the league."""


@dataclass
class Recovered:
    """What one sweep did with a dead referee's journal."""

    journal: Path
    written: list[Path] = field(default_factory=list)
    """The match files (or superseded records) it wrote."""
    problems: list[str] = field(default_factory=list)
    """Records it could not read or write; the journal is then kept, renamed ``.damaged``."""


class DecisionLog:
    """The decisions journal of this referee process in one league's match folder."""

    def __init__(self, folder: Path, referee_id: str, log: AgentLog):
        """Claim the journal (made, locked) and write what an earlier process of the same
        name left in it.

        Raises:
            FileSystemError: the folder or the journal cannot be made.
        """
        self.folder = folder
        self._name = f"{referee_id}.{os.getpid()}"
        self._log = log
        self._generation = 0
        self.path = self._path_of(0)
        self._lock = _claimed(self.path)
        while os.fstat(self._lock).st_size > 0:  # left by a dead process of the same pid
            self._report([_sweep_one(folder, self.path)])
            os.close(self._lock)
            self._lock = _claimed(self.path)
        self._journal = Journal(self.path)
        self._entries = itertools.count(1)
        self._waiting: dict[int, dict[str, Any]] = {}
        """The decided records not yet in their match files, by entry (live: a compaction
        writes each as it is then, which holds at least its decision)."""
        self._lines = 0
        """Records in the journal's file."""
        self._sweep: asyncio.Task[None] | None = None

    def _path_of(self, generation: int) -> Path:
        return self.folder / DECIDED_FOLDER / f"{self._name}.{generation}.jsonl"

    def append(self, document: dict[str, Any]) -> int:
        """Write one decided record (synced by ``durable``); the entry that ``settle`` takes.

        Raises:
            StoreError: nothing of it was written.
        """
        self._journal.append(document, sync=False)
        entry = next(self._entries)
        self._waiting[entry] = document
        self._lines += 1
        return entry

    async def durable(self) -> None:
        """Return once every record appended so far is on disk.

        Raises:
            StoreError: the fsync failed (the next call tries again).
        """
        journal = self._journal
        try:
            await journal.durable()
        except StoreError:
            if journal is self._journal:
                raise
            # compacted meanwhile (its file closed): every waiting record was fsynced anew

    def settle(self, entry: int) -> None:
        """Record ``entry`` is in its match file now. With none left waiting, the journal is
        emptied and the folder swept for dead referees' journals; a journal grown past
        ``COMPACT_AFTER`` records while some always wait (a player that holds every
        GAME_OVER) is written again with only those."""
        del self._waiting[entry]
        if not self._waiting:
            try:
                self._journal.truncate()
            except StoreError as exc:
                self._log.log.warning(
                    "decisions_not_emptied", journal=str(self.path), reason=str(exc)
                )
            else:
                self._lines = 0
            self.sweep()
        elif self._lines >= COMPACT_AFTER:
            try:
                self._compact()
            except (OSError, StoreError) as exc:
                self._log.log.warning(
                    "decisions_not_compacted", journal=str(self.path), reason=str(exc)
                )

    def _compact(self) -> None:
        """The waiting records, fsynced, in the journal of the next generation (made and
        locked first), then the old one removed: a crash in between leaves both, and a
        sweeper writes each record once. Blocking, once per ``COMPACT_AFTER`` matches."""
        path = self._path_of(self._generation + 1)
        lock = _claimed(path)
        journal = Journal(path)
        try:
            waiting = list(self._waiting.values())
            for document in waiting[:-1]:
                journal.append(document, sync=False)
            journal.append(waiting[-1])
        except StoreError:
            journal.close()
            path.unlink(missing_ok=True)
            os.close(lock)
            raise
        old, old_path, old_lock = self._journal, self.path, self._lock
        self._journal, self.path, self._lock = journal, path, lock
        self._generation += 1
        self._lines = len(waiting)
        old.close()
        old_path.unlink(missing_ok=True)
        os.close(old_lock)

    def sweep(self) -> None:
        """Look for dead referees' journals in a worker thread, one look at a time."""
        if self._sweep is None or self._sweep.done():
            self._sweep = asyncio.ensure_future(self._swept())

    async def _swept(self) -> None:
        try:
            found = await asyncio.to_thread(recover_orphans, self.folder, self.path)
        except OSError as exc:
            self._log.log.error("decisions_sweep_failed", folder=str(self.folder), reason=str(exc))
            return
        except Exception:  # a sweep never takes the referee down; its log says why
            self._log.log.exception("decisions_sweep_failed", folder=str(self.folder))
            return
        self._report(found)

    def _report(self, found: list[Recovered]) -> None:
        for recovered in found:
            self._log.log.warning(
                "decisions_recovered",
                journal=str(recovered.journal),
                written=[str(path) for path in recovered.written],
                problems=recovered.problems,
            )

    async def close(self) -> None:
        """Stop sweeping; remove the journal when every record is in its file, else leave
        it (unlocked) for another referee to write; let the lock go."""
        if self._sweep is not None:
            await asyncio.gather(self._sweep, return_exceptions=True)
        self._journal.close()
        if not self._waiting:
            self.path.unlink(missing_ok=True)
        os.close(self._lock)


def _claimed(path: Path) -> int:
    """An fd of ``path`` (made if missing) holding its exclusive lock: a sweeper that took
    the lock first and removed the file leaves it unlinked, so the lock is taken again on
    a new file."""
    with file_access(path, "write"):
        path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.fstat(fd).st_nlink > 0:
                return fd
            os.close(fd)


def recover_orphans(folder: Path, own: Path) -> list[Recovered]:
    """Write the records of every journal in ``folder``'s decisions folder whose referee
    is dead (its lock free), then remove each; ``own`` is this process's. Blocking."""
    found: list[Recovered] = []
    try:
        journals = sorted((folder / DECIDED_FOLDER).glob("*.jsonl"))
    except FileNotFoundError:
        return found
    for journal in journals:
        if journal == own:
            continue
        try:
            fd = os.open(journal, os.O_RDONLY)
        except FileNotFoundError:  # removed by another sweeper meanwhile
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its referee lives
                continue
            if os.fstat(fd).st_nlink == 0:
                continue
            if os.fstat(fd).st_size == 0:  # a referee that died with nothing waiting
                journal.unlink(missing_ok=True)
                continue
            found.append(_sweep_one(folder, journal))
        finally:
            os.close(fd)
    return found


def _sweep_one(folder: Path, journal: Path) -> Recovered:
    """Write the records of ``journal`` (its lock held by the caller) and remove it. A
    journal with a record that cannot be written is kept as ``.damaged`` beside it, for a
    person to read."""
    recovered = Recovered(journal)
    records, bad = Journal.scan(journal)
    recovered.problems += [f"line {line.number} {line.problem}" for line in bad]
    for number, document in records:
        try:
            for key in ("match_id", "referee_id"):
                if not is_safe_id(str(document[key])):
                    raise ValueError(f"{key} {document[key]!r} cannot name a file")
            written = recover_decided(folder / f"{document['match_id']}.json", document)
        except (KeyError, TypeError, ValueError) as exc:
            recovered.problems.append(f"line {number} is not a match record ({exc!r})")
            continue
        except FileSystemError as exc:
            recovered.problems.append(f"line {number}: {exc}")
            continue
        if written is not None:
            recovered.written.append(written)
    if recovered.problems:
        os.replace(journal, journal.with_suffix(".damaged"))
    else:
        journal.unlink()
    return recovered

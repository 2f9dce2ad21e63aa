"""Where a league's accepted results are kept durably: the ``ResultLog`` interface the
results book (``results_book.py``) appends to, and its file back end, ``journal.jsonl``
(``ResultJournal``). The PostgreSQL back end is ``league_manager.pg.result_log``.

The results book indexes the results in memory; a log only keeps them. Whatever the back
end, a result is acknowledged only once ``durable()`` has returned after its ``append``:
a log that cannot make it durable raises ``StoreError`` and the result is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from league_manager.records import ResultRecord, read_journal
from sdk.store import BadLine, Journal

__all__ = ["KeptResults", "ResultJournal", "ResultLog"]


@dataclass(frozen=True)
class KeptResults:
    """What a log held when it was read at start-up."""

    results: list[ResultRecord]
    """In the order they were accepted."""
    damaged: list[BadLine] = field(default_factory=list)
    """Lines that are not results (the file back end only: a database keeps no damage)."""
    mark: str | None = None
    """Where the read ended in the store's commit order (PostgreSQL only): the results other
    League Managers keep later are asked from there (``ResultLog.others``)."""

    @property
    def anything(self) -> bool:
        """Whether the log held anything, whole or damaged."""
        return bool(self.results or self.damaged)


class ResultLog(Protocol):
    """The accepted results of one league, kept durably in acceptance order.

    ``append`` takes a result (of a match the caller holds none of); ``durable`` returns
    once every result appended before it is kept (many appends share one commit), or
    raises ``StoreError`` (nothing was acknowledged; the next ``durable`` tries again).
    With several League Managers on one store another may have kept a result of the same
    match first: ``duplicate`` says so once ``durable`` has returned, with the result the
    store kept (only the first)."""

    async def read(self) -> KeptResults:
        """Everything the log holds, for start-up (before the first append)."""
        ...

    def append(self, result: ResultRecord) -> None: ...

    async def durable(self) -> None: ...

    def duplicate(self, match_id: str) -> ResultRecord | None:
        """The result of ``match_id`` the store already held when this log's was made
        durable, and kept instead of this log's; None where it kept this log's."""
        ...

    async def others(self) -> list[ResultRecord]:
        """The results other League Managers on the store kept since the last call (since
        the start-up read, the first time), in the order they were accepted.

        Raises:
            StoreError: the store cannot be read now (the next call asks again from the
                same place).
        """
        ...

    def close(self) -> None: ...


class ResultJournal:
    """``journal.jsonl``: a result a line, appended then fsynced in group commits
    (``sdk.store.Journal``). Reading writes nothing: start-up reads it with ``read_now``,
    checks it against the schedule, then ``drop_damaged`` and ``open`` to append."""

    def __init__(self, path: Path):
        self.path = path
        self._lines: list[dict[str, Any]] = []
        """The whole lines as read, written again as they were by ``drop_damaged``."""
        self._journal: Journal | None = None

    def read_now(self) -> KeptResults:
        """The journal's results and damaged lines, read on the calling thread.

        Raises:
            StoreError: every line is damaged: there is nothing to recover from.
        """
        read, damaged = read_journal(self.path)
        self._lines = [line for line, _ in read]
        return KeptResults([result for _, result in read], damaged)

    async def read(self) -> KeptResults:
        return await asyncio.to_thread(self.read_now)

    def drop_damaged(self, kept: KeptResults, note: Callable[[str], None]) -> None:
        """Write the journal again without its damaged lines (the damaged file kept as
        ``.corrupt-*``), and ``note`` it; nothing to do for a whole journal."""
        if kept.damaged:
            saved = Journal.rewrite(self.path, self._lines)
            lines = ", ".join(f"line {bad.number} {bad.problem}" for bad in kept.damaged)
            note(
                f"{self.path}: {lines}; kept the other {len(self._lines)} result(s), the "
                f"damaged file as {saved.name}; a match whose result was lost is asked "
                "of its referee or played again"
            )

    def open(self) -> None:
        """Start appending (start-up has checked the journal against the schedule)."""
        self._lines = []
        self._journal = Journal(self.path)

    def append(self, result: ResultRecord) -> None:
        """Write the result's line (not yet synced).

        Raises:
            StoreError: the line could not be written (nothing of it is in the journal).
        """
        assert self._journal is not None, "append after open"
        self._journal.append(result.to_line(), sync=False)

    async def durable(self) -> None:
        """Return once every line appended so far is on disk (one fsync per group).

        Raises:
            StoreError: the fsync failed; the next call tries again.
        """
        assert self._journal is not None, "durable after open"
        await self._journal.durable()

    def duplicate(self, match_id: str) -> ResultRecord | None:
        """Never: one League Manager writes a journal, and appends only new results."""
        return None

    async def others(self) -> list[ResultRecord]:
        """None ever: a journal has one League Manager."""
        return []

    def lost(self) -> bool:
        """Whether ``journal.jsonl`` was deleted or replaced under the League Manager (the
        watchdog looks once a second): results appended since would not be read back."""
        assert self._journal is not None, "lost after open"
        return self._journal.lost()

    def restore(self, results: Iterable[ResultRecord]) -> None:
        """Write ``journal.jsonl`` again from ``results``, every result the League Manager
        holds, and append to it from now on.

        Raises:
            FileSystemError: it could not be written (the watchdog tries again).
        """
        assert self._journal is not None, "restore after open"
        self._journal.restore(result.to_line() for result in results)

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()

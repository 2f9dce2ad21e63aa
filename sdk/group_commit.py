"""Group commit: many changes made durable by few commits, none of them on the event loop.

The shape the store's ``Journal`` (one fsync covers every line appended before it) and the
PostgreSQL stores (one transaction holds every change made before it) share: changes are
counted as they are made; ``durable`` returns once a commit that began after them has
finished. One commit runs at a time; every change made while it runs is covered by ONE next
commit, so N changes during a commit cost one more, not N.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from sdk.timeouts import within

__all__ = ["GroupCommit"]


class GroupCommit:
    """Counts the changes to one file and commits them in groups.

    ``commit`` makes every change made before it was called durable: it must take what it
    writes (a snapshot, a file descriptor) before its first ``await``, and do the blocking
    work in a worker thread (``asyncio.to_thread``). A commit that raises raises from
    ``durable`` for every caller it was to cover; their changes stay pending and the next
    ``durable`` commits them again.
    """

    def __init__(self, commit: Callable[[], Awaitable[None]]):
        self._commit = commit
        self._changes = 0
        self._committed = 0
        self._flight: asyncio.Future[None] | None = None

    def changed(self) -> None:
        """Count one change (made in memory, or written but not synced)."""
        self._changes += 1

    def settled(self) -> None:
        """Every change so far was made durable outside ``durable`` (a synchronous write)."""
        self._committed = self._changes

    def after_flight(self, action: Callable[[], None]) -> None:
        """Run ``action`` once no commit is running (at once if none is): what a running
        commit still uses (a file descriptor) is released after it."""
        if self._flight is None:
            action()
        else:
            self._flight.add_done_callback(lambda _: action())

    async def settle(self, timeout: float) -> None:
        """Commit what is pending and return once no commit runs, within ``timeout`` s (a
        commit still running then is cancelled): what the commits write with may then be
        closed. Closed under a running commit, a PostgreSQL connection can take the process
        down with it (the driver aborts in the transaction's end)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        with contextlib.suppress(Exception):  # a failed commit's changes stay pending
            await within(self.durable(), timeout)
        while (flight := self._flight) is not None:
            done, _ = await asyncio.wait({flight}, timeout=max(deadline - loop.time(), 0))
            if not done:
                flight.cancel()
            await asyncio.gather(flight, return_exceptions=True)

    async def durable(self) -> None:
        """Return once every change counted so far is durable; a cancelled caller leaves
        the commit it waited on running for the others.

        Raises:
            Exception: whatever the commit covering these changes raised.
        """
        target = self._changes
        while self._committed < target:
            if self._flight is None:
                self._flight = asyncio.ensure_future(self._run())
            await asyncio.shield(self._flight)

    async def _run(self) -> None:
        upto = self._changes
        try:
            await self._commit()
            self._committed = max(self._committed, upto)
        finally:
            self._flight = None

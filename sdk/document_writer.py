"""A data file rewritten whole in group commits, off the event loop: a player's history
(``players/history.py``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sdk.group_commit import GroupCommit
from sdk.store import write_document

__all__ = ["DocumentWriter"]


class DocumentWriter:
    """A data file rewritten whole (``write_document``: atomic, stamped, one compact line)
    in a worker thread, never on the event loop, in group commits: ``changed()`` after each
    change in memory, ``await durable()`` before acknowledging it. One write runs at a time;
    the changes made while it runs are covered by ONE next write of the newest state.

    ``payload`` is called on the event loop when a write begins; what it returns is
    serialised in the worker thread, so it must be a snapshot that nothing mutates later
    (fresh lists, records never changed in place).
    """

    def __init__(
        self,
        path: Path,
        payload: Callable[[], dict[str, Any]],
        *,
        last_updated: str | None = None,
    ):
        self.path = path
        self._payload = payload
        self._commits = GroupCommit(self._write)
        self.last_updated = last_updated
        """The stamp of the document in the file: the last one written, or the one found."""

    def changed(self) -> None:
        self._commits.changed()

    async def durable(self) -> None:
        """Return once the file holds every change counted so far.

        Raises:
            FileSystemError: the write failed; the next call writes again.
        """
        await self._commits.durable()

    def write_now(self) -> None:
        """Write the newest state at once, on the calling thread: for a rare write whose
        caller cannot await (a history taken over with an identity); only while no write
        is in flight."""
        document = write_document(self.path, self._payload(), compact=True)
        self.last_updated = document["last_updated"]
        self._commits.settled()

    async def _write(self) -> None:
        payload = self._payload()
        document = await asyncio.to_thread(write_document, self.path, payload, compact=True)
        self.last_updated = document["last_updated"]

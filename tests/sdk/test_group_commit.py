"""Group commits (``GroupCommit``), here of a whole document rewritten by ``write_document``
in a worker thread: the commits run one at a time, the changes made during one share the
next, and a change is durable only once a commit that began after it has finished."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, ItemsView
from pathlib import Path
from typing import Any

import pytest

from sdk.errors import FileSystemError
from sdk.group_commit import GroupCommit
from sdk.store import write_document


class Book:
    """A document of entries, and the number of snapshots its writer took (one a write)."""

    def __init__(self) -> None:
        self.entries: list[int] = []
        self.writes = 0

    def payload(self) -> dict[str, Any]:
        self.writes += 1
        return {"entries": list(self.entries)}


class HeldPayload(dict[str, Any]):
    """A payload the worker thread cannot read until ``release`` is set: a write held in
    flight for as long as the test needs (``write_document`` reads it in that thread)."""

    def __init__(self, payload: dict[str, Any], loop: asyncio.AbstractEventLoop):
        super().__init__(payload)
        self.entered = asyncio.Event()
        self.release = threading.Event()
        self._loop = loop

    def items(self) -> ItemsView[str, Any]:
        self._loop.call_soon_threadsafe(self.entered.set)
        self.release.wait(10)
        return super().items()


class DocumentWriter:
    """A document rewritten whole in group commits: ``payload`` is called on the event loop
    when a commit begins, and written (stamped, atomically) in a worker thread."""

    def __init__(self, path: Path, payload: Callable[[], dict[str, Any]]):
        self.path = path
        self._payload = payload
        self._commits = GroupCommit(self._write)
        self.last_updated: str | None = None

    def changed(self) -> None:
        self._commits.changed()

    async def durable(self) -> None:
        await self._commits.durable()

    def write_now(self) -> None:
        self.last_updated = write_document(self.path, self._payload())["last_updated"]
        self._commits.settled()

    async def _write(self) -> None:
        payload = self._payload()
        document = await asyncio.to_thread(write_document, self.path, payload)
        self.last_updated = document["last_updated"]


def entries_in(path: Path) -> list[int]:
    return list(json.loads(path.read_text())["entries"])


async def add(book: Book, writer: DocumentWriter, entry: int) -> None:
    book.entries.append(entry)
    writer.changed()
    await writer.durable()


async def test_changes_made_together_share_one_write(tmp_path: Path) -> None:
    book = Book()
    writer = DocumentWriter(tmp_path / "book.json", book.payload)

    await asyncio.gather(*(add(book, writer, n) for n in range(10)))

    assert book.writes == 1, "ten changes before the write began: one write"
    assert entries_in(writer.path) == list(range(10))
    document = json.loads(writer.path.read_text())
    assert document["schema_version"] == "1.0.0" and writer.last_updated == document["last_updated"]


async def test_changes_during_a_write_share_the_next_one_and_wait_for_it(
    tmp_path: Path,
) -> None:
    book = Book()
    loop = asyncio.get_running_loop()
    held: list[HeldPayload] = []

    def payload() -> dict[str, Any]:
        snapshot = book.payload()
        if held:
            return snapshot
        held.append(HeldPayload(snapshot, loop))
        return held[0]

    writer = DocumentWriter(tmp_path / "book.json", payload)
    try:
        first = asyncio.create_task(add(book, writer, 0))
        await asyncio.wait_for(held_entered(held), 5)
        later = [asyncio.create_task(add(book, writer, n)) for n in range(1, 6)]
        await asyncio.sleep(0)  # every later change is made; the loop runs on meanwhile

        assert book.entries == [0, 1, 2, 3, 4, 5]
        assert not first.done() and not any(task.done() for task in later)
        assert not writer.path.exists(), "nothing is durable before the write finishes"
    finally:
        held[0].release.set()
    await asyncio.wait_for(asyncio.gather(first, *later), 5)

    assert book.writes == 2, "five changes during one write cost one more write"
    assert entries_in(writer.path) == [0, 1, 2, 3, 4, 5]


async def held_entered(held: list[HeldPayload]) -> None:
    while not held:
        await asyncio.sleep(0)
    await held[0].entered.wait()


async def test_a_failed_write_fails_every_waiter_and_the_next_writes_everything(
    tmp_path: Path,
) -> None:
    book = Book()
    path = tmp_path / "book.json"
    path.mkdir()  # a directory where the file should be
    writer = DocumentWriter(path, book.payload)

    failures = await asyncio.gather(
        *(add(book, writer, n) for n in range(3)), return_exceptions=True
    )

    assert all(isinstance(f, FileSystemError) and str(path) in str(f) for f in failures)
    assert writer.last_updated is None
    path.rmdir()
    book.entries.append(3)
    writer.changed()
    await writer.durable()
    assert entries_in(path) == [0, 1, 2, 3], "the failed changes are written with the next"


async def test_a_cancelled_waiter_leaves_the_write_to_the_others(tmp_path: Path) -> None:
    book = Book()
    writer = DocumentWriter(tmp_path / "book.json", book.payload)
    cancelled = asyncio.create_task(add(book, writer, 0))
    other = asyncio.create_task(add(book, writer, 1))
    await asyncio.sleep(0)
    cancelled.cancel()

    await other
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert entries_in(writer.path) == [0, 1] and book.writes == 1


async def test_a_write_now_settles_every_change_before_it(tmp_path: Path) -> None:
    book = Book()
    writer = DocumentWriter(tmp_path / "book.json", book.payload)
    book.entries.append(7)
    writer.changed()

    writer.write_now()
    await writer.durable()

    assert entries_in(writer.path) == [7] and writer.last_updated is not None
    assert book.writes == 1, "durable has nothing left to write"


async def test_what_a_running_commit_uses_is_released_after_it() -> None:
    """``after_flight``: a journal rolled over while its fsync runs closes the old file only
    once that fsync is done (closing it sooner would let the number go to another file)."""
    released = asyncio.Event()
    order: list[str] = []

    async def commit() -> None:
        await released.wait()
        order.append("commit done")

    commits = GroupCommit(commit)
    commits.after_flight(lambda: order.append("released at once"))
    commits.changed()
    waiting = asyncio.ensure_future(commits.durable())
    await asyncio.sleep(0)  # the commit has begun and waits
    commits.after_flight(lambda: order.append("released after"))
    assert order == ["released at once"]
    released.set()
    await waiting
    assert order == ["released at once", "commit done", "released after"]


async def test_settle_commits_what_is_pending_and_returns_once_no_commit_runs() -> None:
    """What the commits write with is closed after ``settle``: never under a commit. The
    changes made during the running one are committed next, as ``durable`` would."""
    began, gates = [asyncio.Event(), asyncio.Event()], [asyncio.Event(), asyncio.Event()]
    finished: list[int] = []

    async def commit() -> None:
        number = sum(event.is_set() for event in began)
        began[number].set()
        await gates[number].wait()
        finished.append(number)

    commits = GroupCommit(commit)
    commits.changed()
    first = asyncio.ensure_future(commits.durable())
    await asyncio.wait_for(began[0].wait(), 5)
    commits.changed()
    settling = asyncio.ensure_future(commits.settle(timeout=30))
    gates[0].set()
    await first
    await asyncio.wait_for(began[1].wait(), 5)  # settle commits what the first did not cover
    assert not settling.done()
    gates[1].set()
    await settling
    assert finished == [0, 1]
    await commits.settle(timeout=0)  # nothing pending, nothing running: at once


async def test_settle_cancels_a_commit_still_running_after_its_timeout() -> None:
    loop = asyncio.get_running_loop()
    cancelled = asyncio.Event()

    async def commit() -> None:
        try:
            await asyncio.Event().wait()  # a statement the server never answers
        finally:
            cancelled.set()

    commits = GroupCommit(commit)
    commits.changed()
    waiter = asyncio.ensure_future(commits.durable())
    await asyncio.sleep(0)
    began = loop.time()
    await commits.settle(timeout=0.05)
    assert cancelled.is_set() and loop.time() - began < 5
    with pytest.raises(asyncio.CancelledError):
        await waiter

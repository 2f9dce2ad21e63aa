"""Assignment numbers: the fencing tokens of hand-overs.

Each time the League Manager gives a match to a referee, that hand-over gets a number
larger than every number given before, in this process or any earlier one of the league.
The referee's report carries it back, and only the report of the match's current
assignment is counted: a referee that was paused or cut off long enough for the match to
go to another cannot count it too when it comes back.

Numbers are reserved in blocks (``assignments.json`` beside the league's data, atomic,
with a backup), one write per ``BLOCK`` hand-overs instead of one per hand-over; a restart
skips the rest of the block, so numbers stay unique after a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sdk.store import load_with_backup, quarantine, write_document

__all__ = ["ASSIGNMENTS_FILE", "BLOCK", "AssignmentNumbers", "write_reservation"]

ASSIGNMENTS_FILE = "assignments.json"
BLOCK = 1024
"""Numbers reserved per write."""


def _reserved_of(document: Any) -> int:
    reserved = document["reserved_up_to"]
    if not isinstance(reserved, int) or isinstance(reserved, bool) or reserved < 1:
        raise ValueError(f"reserved_up_to is {reserved!r}, not a positive integer")
    return reserved


class AssignmentNumbers:
    """Hands out assignment numbers, each larger than any given before."""

    def __init__(self, league_dir: Path, league_id: str):
        self._path = league_dir / ASSIGNMENTS_FILE
        self._league_id = league_id
        self.recovery_notes: list[str] = []
        """What start-up found damaged in assignments.json and what it did, a sentence."""
        loaded = load_with_backup(self._path, _reserved_of)  # StoreError: both damaged
        start = 1 if loaded is None else loaded.value
        if loaded is not None and loaded.problem is not None:
            start += BLOCK  # the lost file reserved one block past its backup
            kept = quarantine(self._path).name if self._path.exists() else None
            self.recovery_notes.append(
                f"{loaded.problem}; recovered it from {loaded.source.name} and skipped the "
                f"block the lost file may have given out"
                + (f", kept the damaged file as {kept}" if kept else "")
            )
        self._next = self._ceiling = start

    def next(self) -> int:
        """The next number; a new block is reserved on disk first when this one is used up
        (every number below the reserved ceiling may have been given out).

        Raises:
            OSError: the reservation could not be written (no number is given out).
        """
        if self._next >= self._ceiling:
            self.reserve()
        number = self._next
        self._next += 1
        return number

    async def take(self) -> int:
        """``next`` for the hand-overs (``fencing.Numbers``)."""
        return self.next()

    @property
    def next_number(self) -> int:
        """The number the next hand-over gets: every number given out so far is below it."""
        return self._next

    def reserve(self) -> None:
        """Reserve the block from the next number on (the League Manager's watchdog calls
        it again after a failed write, to learn that the disk takes writes again)."""
        ceiling = self._next + BLOCK
        write_reservation(self._path.parent, self._league_id, ceiling)
        self._ceiling = ceiling


def write_reservation(league_dir: Path, league_id: str, reserved_up_to: int) -> None:
    """Write assignments.json: numbers below ``reserved_up_to`` may have been given out, so
    a League Manager starting on it begins there (the version replaced kept as .bak).

    Raises:
        FileSystemError: the file system refused the file.
    """
    write_document(
        league_dir / ASSIGNMENTS_FILE,
        {"league_id": league_id, "reserved_up_to": reserved_up_to},
        keep_backup=True,
    )

"""The player's history: every finished match, seen from this player's side.

Its files, in ``SHARED/data/players/<player_id>/``, have one writer, this player:
``history.jsonl``, one line per match appended after its GAME_OVER and fsynced before the
GAME_OVER is acknowledged (``sdk.store.Journal``: one fsync in a worker thread covers the
lines appended while the previous one ran), and ``history.json``, the whole history
(schema_version, last_updated, the matches, the totals), rewritten atomically when the
player takes its identity and when it stops, which then empties the journal. So a match
costs one appended line, not a rewrite of every match before it (a late GAME_OVER of a
1,000-player league rewrote 999 matches). A restarted player reads both back (a match in
both counts once); a file that is not JSON or not a history stops the player with an error
naming the file and the line, never a silent reset.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from players.errors import HistoryError
from sdk.errors import FileSystemError, file_access
from sdk.store import SCHEMA_VERSION, Journal, StoreError, read_json, sync_folder, write_document
from sdk.timeutil import utc_now_str
from strategies.view import PastMatch

__all__ = ["HistoryDocument", "PlayerHistory", "Totals", "journal_path"]


def journal_path(path: Path) -> Path:
    """The journal beside a history file: ``history.jsonl``."""
    return path.with_suffix(".jsonl")


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in item['loc']) or '(file)'}: {item['msg']}"
        for item in error.errors(include_url=False)[:5]
    )


class Totals(BaseModel):
    """Counts of outcomes; points are the League Manager's business, not the player's."""

    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    technical_losses: int = 0

    @classmethod
    def of(cls, matches: Iterable[PastMatch], *, start: Totals | None = None) -> Totals:
        """The counts of ``matches``, added to those of ``start`` (left as they are)."""
        totals = cls() if start is None else start.model_copy()
        field_by_outcome = {
            "WIN": "wins",
            "DRAW": "draws",
            "LOSS": "losses",
            "TECHNICAL_LOSS": "technical_losses",
        }
        for match in matches:
            totals.played += 1
            name = field_by_outcome[match.outcome]
            setattr(totals, name, getattr(totals, name) + 1)
        return totals


class HistoryDocument(BaseModel):
    """What ``history.json`` holds; used to check a file before trusting it."""

    model_config = ConfigDict(extra="allow")

    schema_version: str
    last_updated: str | None = None
    player_id: str
    display_name: str = ""
    strategy: str = ""
    matches: list[PastMatch] = []
    totals: Totals = Totals()


class PlayerHistory:
    """The matches of one player: in memory, and in its files once the player has an id."""

    def __init__(
        self,
        *,
        display_name: str,
        strategy: str,
        player_id: str | None = None,
        path: Path | None = None,
        matches: Iterable[PastMatch] = (),
        last_updated: str | None = None,
    ):
        self.display_name = display_name
        self.strategy = strategy
        self.player_id = player_id
        self.path = path
        self.last_updated = last_updated
        """When the files last took a match: the snapshot's stamp, or the last append's."""
        self._matches = list(matches)
        self._known = {(m.league_id, m.match_id) for m in self._matches}
        """What ``knows`` looks up: asked several times a match, of a history that grows
        by one match a round (a scan of it was an eighth of a host's CPU late in a league)."""
        self._dumped = [m.model_dump(mode="json") for m in self._matches]
        """Each match as the files hold it, dumped once."""
        self._totals = Totals.of(self._matches)
        self._journal: Journal | None = None
        self._unwritten: list[dict[str, Any]] = []
        """Matches not in the journal yet: its file system refused them (a full disk)."""
        self._journaled = 0
        """Lines in the journal: the matches that a snapshot does not hold yet."""

    @classmethod
    def load(cls, path: Path, *, player_id: str, display_name: str, strategy: str) -> PlayerHistory:
        """The history kept in ``path`` and its journal; an empty one bound to them if
        neither exists. Reads only: ``absorb`` folds the journal into the file.

        Raises:
            HistoryError: a file is not JSON, or not this player's history.
            FileSystemError: the file system refuses it (a directory, no permission).
        """
        try:
            raw = read_json(path)
        except FileNotFoundError:
            raw = {"schema_version": SCHEMA_VERSION, "player_id": player_id}
        except StoreError as exc:
            raise HistoryError(f"cannot load the player history: {exc}") from exc
        try:
            document = HistoryDocument.model_validate(raw)
        except ValidationError as exc:
            raise HistoryError(f"{path} is not a player history: {_problems(exc)}") from None
        if document.player_id != player_id:
            raise HistoryError(
                f"{path} holds the history of {document.player_id!r}, not of {player_id!r}"
            )
        history = cls(
            display_name=display_name,
            strategy=strategy,
            player_id=player_id,
            path=path,
            matches=document.matches,
            last_updated=document.last_updated,
        )
        for record in _journal_matches(journal_path(path)):
            if not history.knows(record.league_id, record.match_id):
                history._keep(record)
            history._journaled += 1
        return history

    @property
    def matches(self) -> tuple[PastMatch, ...]:
        return tuple(self._matches)

    @property
    def totals(self) -> Totals:
        return self._totals.model_copy()

    def knows(self, league_id: str | None, match_id: str) -> bool:
        """Whether this match is recorded already (a referee may send GAME_OVER twice)."""
        return (league_id, match_id) in self._known

    def add(self, record: PastMatch) -> None:
        """Record a finished match in memory and append it to the journal; ``durable``
        makes it durable (and appends it then if the file system refused it now)."""
        self._keep(record)
        if self.path is not None:
            self._unwritten.append(self._dumped[-1])
            try:
                self._append_unwritten()
            except FileSystemError:  # it stays unwritten: durable() tries again, and raises
                return

    async def durable(self) -> None:
        """Return once the journal holds every match recorded so far, fsynced (one fsync
        in a worker thread for the matches appended meanwhile).

        Raises:
            FileSystemError: the append or the fsync failed; the matches stay in memory and
                the next call writes them again.
        """
        if self.path is None:
            return
        self._append_unwritten()
        if self._journal is not None:
            try:
                await self._journal.durable()
            except StoreError as exc:
                raise _refusal(exc, self._journal.path) from exc

    def absorb(self, records: Iterable[PastMatch]) -> None:
        """Take over matches recorded before this history was loaded, skipping known ones,
        and write the whole history at once with the journal folded in (taking an identity
        happens once, before any GAME_OVER of this player)."""
        new = [r for r in records if not self.knows(r.league_id, r.match_id)]
        for record in new:
            self._keep(record)
        if new or self._journaled:
            self.fold()

    def fold(self) -> None:
        """Write the whole history to its file, then empty the journal it now holds (a
        crash between the two leaves matches in both, and a load counts them once). At
        start-up and shutdown, on the calling thread.

        Raises:
            FileSystemError: the file system refused the file; the journal is kept.
        """
        if self.path is None:
            return
        document = write_document(self.path, self._payload(), compact=True)
        self.last_updated = document["last_updated"]
        self._unwritten.clear()
        if self._journal is not None:  # closed once a running fsync is done with it
            self._journal.close()
            self._journal = None
        journal = journal_path(self.path)
        if self._journaled or journal.exists():
            with file_access(journal, "write"):
                journal.unlink(missing_ok=True)
            sync_folder(journal.parent)
        self._journaled = 0

    def _append_unwritten(self) -> None:
        if not self._unwritten:
            return
        assert self.path is not None
        path = journal_path(self.path)
        try:
            if self._journal is None:
                self._journal = Journal(path)
            while self._unwritten:
                self._journal.append(self._unwritten[0], sync=False)
                self._unwritten.pop(0)
                self._journaled += 1
        except StoreError as exc:
            raise _refusal(exc, path) from exc
        self.last_updated = utc_now_str()

    def _keep(self, record: PastMatch) -> None:
        self._matches.append(record)
        self._known.add((record.league_id, record.match_id))
        self._dumped.append(record.model_dump(mode="json"))
        self._totals = Totals.of((record,), start=self._totals)

    def document(self) -> dict[str, Any]:
        """The whole history as ``history.json`` holds it once folded (last_updated: when
        the files last took a match, None before the first)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "last_updated": self.last_updated,
            **self._payload(),
        }

    def _payload(self) -> dict[str, Any]:
        return {
            "player_id": self.player_id,
            "display_name": self.display_name,
            "strategy": self.strategy,
            "matches": list(self._dumped),
            "totals": self._totals.model_dump(),
        }


def _journal_matches(path: Path) -> list[PastMatch]:
    """The matches of a history's journal (a torn last line, a crash mid-append, dropped).

    Raises:
        HistoryError: a line is not JSON, or not a match.
    """
    records, bad = Journal.scan(path)
    if bad:
        raise HistoryError(f"{path} line {bad[0].number} {bad[0].problem}")
    matches = []
    for number, record in records:
        try:
            matches.append(PastMatch.model_validate(record))
        except ValidationError as exc:
            raise HistoryError(f"{path} line {number} is not a match: {_problems(exc)}") from None
    return matches


def _refusal(exc: StoreError, path: Path) -> FileSystemError:
    """The file system's refusal behind a journal's StoreError (a journal raises one for
    an OSError only), as the host reports a refused write: E022."""
    return FileSystemError.of(cast(OSError, exc.__cause__), path, "write")

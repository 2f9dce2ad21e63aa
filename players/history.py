"""The player's history file: every finished match, seen from this player's side.

``SHARED/data/players/<player_id>/history.json`` has one writer, this player, and is
rewritten atomically after every GAME_OVER (``sdk.store.write_document`` stamps
schema_version and last_updated), in a worker thread: a host of hundreds of players keeps
its event loop free, and the GAME_OVERs that arrive while a write runs share the next one
(``sdk.document_writer.DocumentWriter``). A restarted player loads it back; a file that is not JSON
or not a history stops the player with an error naming the file, never a silent reset.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from players.errors import HistoryError
from sdk.document_writer import DocumentWriter
from sdk.store import SCHEMA_VERSION, StoreError, read_json
from strategies.view import PastMatch

__all__ = ["HistoryDocument", "PlayerHistory", "Totals"]


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
    """The matches of one player: in memory, and in its file once the player has an id."""

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
        self._matches = list(matches)
        self._known = {(m.league_id, m.match_id) for m in self._matches}
        """What ``knows`` looks up: asked several times a match, of a history that grows
        by one match a round (a scan of it was an eighth of a host's CPU late in a league)."""
        self._dumped = [m.model_dump(mode="json") for m in self._matches]
        """Each match as the file holds it, dumped once (never changed in place: a write in
        a worker thread serialises them while the event loop goes on)."""
        self._totals = Totals.of(self._matches)
        self._writer = (
            None if path is None else DocumentWriter(path, self._payload, last_updated=last_updated)
        )

    @classmethod
    def load(cls, path: Path, *, player_id: str, display_name: str, strategy: str) -> PlayerHistory:
        """The history kept in ``path``; an empty one bound to it if the file does not exist.

        Raises:
            HistoryError: the file is not JSON, or not this player's history.
            FileSystemError: the file system refuses it (a directory, no permission).
        """
        try:
            raw = read_json(path)
        except FileNotFoundError:
            return cls(display_name=display_name, strategy=strategy, player_id=player_id, path=path)
        except StoreError as exc:
            raise HistoryError(f"cannot load the player history: {exc}") from exc
        try:
            document = HistoryDocument.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in error['loc']) or '(file)'}: {error['msg']}"
                for error in exc.errors(include_url=False)[:5]
            )
            raise HistoryError(f"{path} is not a player history: {problems}") from None
        if document.player_id != player_id:
            raise HistoryError(
                f"{path} holds the history of {document.player_id!r}, not of {player_id!r}"
            )
        return cls(
            display_name=display_name,
            strategy=strategy,
            player_id=player_id,
            path=path,
            matches=document.matches,
            last_updated=document.last_updated,
        )

    @property
    def path(self) -> Path | None:
        return None if self._writer is None else self._writer.path

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
        """Record a finished match in memory; ``durable`` writes it to the file."""
        self._keep(record)
        if self._writer is not None:
            self._writer.changed()

    async def durable(self) -> None:
        """Return once the file (if bound to one) holds every match recorded so far; at
        most one write at a time, in a worker thread.

        Raises:
            FileSystemError: the write failed; the matches stay in memory and the next call
                writes them again.
        """
        if self._writer is not None:
            await self._writer.durable()

    def absorb(self, records: Iterable[PastMatch]) -> None:
        """Take over matches recorded before this history was loaded, skipping known ones,
        and write them at once (taking an identity happens once; no write is in flight)."""
        new = [r for r in records if not self.knows(r.league_id, r.match_id)]
        for record in new:
            self._keep(record)
        if new and self._writer is not None:
            self._writer.write_now()

    def _keep(self, record: PastMatch) -> None:
        self._matches.append(record)
        self._known.add((record.league_id, record.match_id))
        self._dumped.append(record.model_dump(mode="json"))
        self._totals = Totals.of((record,), start=self._totals)

    def document(self) -> dict[str, Any]:
        """The document as the file holds it once the writes asked for are done
        (last_updated: that of the last write, None before the first)."""
        last_updated = None if self._writer is None else self._writer.last_updated
        return {"schema_version": SCHEMA_VERSION, "last_updated": last_updated, **self._payload()}

    def _payload(self) -> dict[str, Any]:
        """A snapshot: fresh containers around records never changed in place."""
        return {
            "player_id": self.player_id,
            "display_name": self.display_name,
            "strategy": self.strategy,
            "matches": list(self._dumped),
            "totals": self._totals.model_dump(),
        }

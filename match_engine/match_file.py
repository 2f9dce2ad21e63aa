"""The match file ``SHARED/data/matches/<league_id>/<match_id>.json``: the referee's record of
one match, written atomically once its players are told. When the match is decided, before
anyone is told, the record is made durable in the referee's decisions journal
(``match_engine.decisions``: an append, not a file); a record kept without one (the
playroom's, in a temporary folder) is written to its match file then as well.

Every write runs in a worker thread, never on the event loop (a write and its fsyncs cost
more than the rest of a match's work): ``await save()`` returns once the file holds what
was recorded before it, and ``await decided()`` once the decided record is durable, so the
engine tells no one of a decision before it is on disk. One write runs at a time per
record; the saves asked for during one share the next (``sdk.group_commit.GroupCommit``,
as a player's history does).

Two referees on one machine may each have played the match (the League Manager gave it to
the second when the first went silent), and share the folder: the file holds the record of
the run whose result the League Manager counted. A record may always replace a file of its
own assignment, or none; only a counted result replaces another run's file; a run the
League Manager refused as superseded, and any write that may not replace the file, goes
to ``superseded/<match_id>.<assignment>.<referee_id>.json`` beside it. Each decision, and
the rename that carries it out, is taken under an exclusive lock on the folder, so two
referees never interleave; the record is written and fsynced before the lock is taken, and
the folder fsynced after it is let go, so no referee waits on another's disk syncs.

Fields: match_id, league_id, round_id, game_type, referee_id, assignment (the League
Manager's number of the hand-over, or null), conversation_id, players
[{player_id, display_name, role, endpoint}], lifecycle [{state, at}], transcript (every
message in order: {direction "sent"/"received"/"failed", method, peer, at, message, error}),
result {game_result (as in GAME_OVER), report (the MATCH_RESULT_REPORT result)}, deviations
(where a player's answers differed from the protocol's form: {peer, method, at, kind, field,
detail}), stages (games other than even/odd: each stage's joint action {stage, at, moves}),
report_status ("pending", "not_required", "reported", "unreported", "rejected", "aborted",
"superseded") and report_detail (why, when not reported).
Tokens are redacted before anything enters the record.
"""

from __future__ import annotations

import asyncio
import copy
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, Protocol

from sdk.auth import redact_tokens
from sdk.errors import file_access
from sdk.group_commit import GroupCommit
from sdk.messages import MatchSeat
from sdk.store import StoreError, read_json, stage_document, sync_folder
from sdk.timeutil import utc_now_str

__all__ = ["HIDDEN", "Decisions", "MatchFile", "MatchState", "ReportStatus", "recover_decided"]

MatchState = Literal[
    "WAITING_FOR_PLAYERS",
    "COLLECTING_CHOICES",
    "DRAWING_NUMBER",
    "COLLECTING_MOVES",
    "FINISHED",
    "ABORTED",
]
ReportStatus = Literal[
    "pending", "not_required", "reported", "unreported", "rejected", "aborted", "superseded"
]
Direction = Literal["sent", "received", "failed"]

HIDDEN = "hidden until GAME_OVER"
_ATOMS = (str, int, float, bool, type(None))
"""Values the record may share with the caller: they cannot change."""
_SECRET_MOVE_FIELDS = frozenset({"parity_choice", "move_data"})


class Decisions(Protocol):
    """Where a referee keeps its decided records until their match files hold them
    (``match_engine.decisions.DecisionLog``)."""

    def append(self, document: dict[str, Any]) -> int:
        """Write one decided record (not yet synced) and say which it is; raises when
        nothing was written."""
        ...

    async def durable(self) -> None:
        """Return once every record appended so far is on disk."""
        ...

    def settle(self, entry: int) -> None:
        """The appended record ``entry`` is in its match file now."""
        ...


def _hide_moves(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: HIDDEN if key in _SECRET_MOVE_FIELDS else _hide_moves(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_hide_moves(item) for item in value]
    return value


def _copy_moves(moves: dict[str, Any]) -> dict[str, Any]:
    """The record's own copy of a stage's moves: a move that cannot change (a choice, a
    number) is kept as it is, only the others (an allocation, an offer) deep-copied, since
    a stage of a repeated game is recorded on every turn."""
    return {
        player: move if isinstance(move, _ATOMS) else copy.deepcopy(move)
        for player, move in moves.items()
    }


class MatchFile:
    """What happened in one match, in order, in memory; written to its file by ``save``."""

    def __init__(
        self,
        path: Path,
        *,
        match_id: str,
        league_id: str,
        round_id: int,
        game_type: str,
        referee_id: str,
        conversation_id: str,
        seats: list[MatchSeat],
        report_status: ReportStatus,
        assignment: int | None = None,
        in_memory: bool = False,
        decisions: Decisions | None = None,
    ):
        self.path = path
        self.in_memory = in_memory
        """Kept in memory only, never written: an evaluation's episode, read back from memory
        by the evaluator alone, where writing it would cost more than playing it."""
        self._decisions = decisions
        self._awaiting_file: int | None = None
        """Decided, this entry of ``decisions``, and not yet in a file this record wrote."""
        self.saved_path = path
        """Where the record was written last (the match file, or the superseded folder)."""
        self._written: tuple[int, int] | None = None
        """The match file as this record last wrote it (``_identity``)."""
        self._commits = GroupCommit(self._commit)
        self.replacement: int | None = None
        """The newer assignment that replaced this run on this referee (``replaced_by``)."""
        self._doc: dict[str, Any] = {
            "match_id": match_id,
            "league_id": league_id,
            "round_id": round_id,
            "game_type": game_type,
            "referee_id": referee_id,
            "assignment": assignment,
            "conversation_id": conversation_id,
            "players": [
                {
                    "player_id": seat.player_id,
                    "display_name": seat.display_name,
                    "role": seat.role,
                    "endpoint": seat.contact_endpoint,
                }
                for seat in seats
            ],
            "lifecycle": [],
            "transcript": [],
            "result": None,
            "deviations": [],
            "stages": [],
            "report_status": report_status,
            "report_detail": None,
        }

    @property
    def match_id(self) -> str:
        return str(self._doc["match_id"])

    @property
    def league_id(self) -> str:
        return str(self._doc["league_id"])

    @property
    def assignment(self) -> int | None:
        number: int | None = self._doc["assignment"]
        return number

    @property
    def state(self) -> MatchState | None:
        lifecycle = self._doc["lifecycle"]
        return lifecycle[-1]["state"] if lifecycle else None

    @property
    def finished(self) -> bool:
        return self.state in ("FINISHED", "ABORTED")

    @property
    def report_status(self) -> ReportStatus:
        status: ReportStatus = self._doc["report_status"]
        return status

    @property
    def result(self) -> dict[str, Any] | None:
        result: dict[str, Any] | None = copy.deepcopy(self._doc["result"])
        return result

    def enter(self, state: MatchState) -> None:
        """A lifecycle change, timed. The engine makes the record durable when the match is
        decided (``decided``, before anyone is told) and saves the file after its
        GAME_OVERs; the states before live in memory,
        as the transcript does (``get_match_state`` shows them). A match cut short is saved
        as ABORTED."""
        self._doc["lifecycle"].append({"state": state, "at": utc_now_str()})

    def note(
        self,
        direction: Direction,
        method: str,
        peer: str,
        message: dict[str, Any] | None = None,
        error: dict[str, str] | None = None,
    ) -> None:
        """One transcript entry: a message sent or received, or a call that failed."""
        self._doc["transcript"].append(
            {
                "direction": direction,
                "method": method,
                "peer": peer,
                "at": utc_now_str(),
                "message": redact_tokens(message) if message is not None else None,  # a copy
                "error": error,
            }
        )

    def deviations(self, peer: str, method: str, found: list[dict[str, Any]]) -> None:
        """Where a player's answer differed from the protocol's form (repaired in a lenient
        league, the reason for a technical loss in a strict one)."""
        at = utc_now_str()
        self._doc["deviations"].extend(
            {"peer": peer, "method": method, "at": at, **deviation} for deviation in found
        )

    def stage(
        self,
        number: int,
        moves: dict[str, Any],
        *,
        messages: list[dict[str, Any]] | None = None,
        reasoning: dict[str, str] | None = None,
    ) -> None:
        """The joint action of one stage of a game, as the rules applied it, with what the
        players said (relayed) and their reasoning (recorded here only, never relayed)."""
        entry: dict[str, Any] = {
            "stage": number,
            "at": utc_now_str(),
            "moves": _copy_moves(moves),
        }
        if messages:
            entry["messages"] = copy.deepcopy(messages)
        if reasoning:
            entry["reasoning"] = dict(reasoning)
        self._doc["stages"].append(entry)

    def set_result(self, result: dict[str, Any]) -> None:
        """The result, written with the FINISHED state that follows it. The record keeps
        ``result`` itself: the engine builds it for the record (copying a repeated game's
        final state would cost a tenth of playing it)."""
        self._doc["result"] = result

    def set_report_status(self, status: ReportStatus, detail: str | None = None) -> None:
        """In memory: the file holds it from the next ``save``."""
        self._doc["report_status"] = status
        self._doc["report_detail"] = detail

    def snapshot(self) -> dict[str, Any]:
        """A copy for a debugging query: moves stay hidden until the match is over, so a
        player asking mid-match learns nothing of the other's choice."""
        document = copy.deepcopy(self._doc)
        document["state"] = self.state
        if not self.finished:
            document["transcript"] = _hide_moves(document["transcript"])
        return document

    def replaced_by(self, assignment: int | None) -> None:
        """A newer assignment of the match came to this referee: this run is stopped, and
        its record is superseded, when it stops."""
        self.replacement = assignment

    def supersede(self, detail: str) -> None:
        """The League Manager counts another run of this match: at the next ``save`` this
        record leaves the match file (if it is there) for the superseded folder."""
        self.set_report_status("superseded", detail)

    @property
    def superseded_path(self) -> Path:
        doc = self._doc
        return (
            self.path.parent
            / "superseded"
            / f"{self.match_id}.{doc['assignment']}.{doc['referee_id']}.json"
        )

    @classmethod
    def restored(cls, path: Path, document: dict[str, Any]) -> MatchFile:
        """A record as a decisions journal kept it.

        Raises:
            KeyError, TypeError, ValueError: ``document`` is not a match record.
        """
        record = cls(
            path,
            match_id=str(document["match_id"]),
            league_id=str(document["league_id"]),
            round_id=int(document["round_id"]),
            game_type=str(document["game_type"]),
            referee_id=str(document["referee_id"]),
            conversation_id=str(document["conversation_id"]),
            seats=[],
            report_status=document["report_status"],
            assignment=document["assignment"],
        )
        record._doc = dict(document)
        return record

    async def decided(self) -> None:
        """The match is decided: return once its record is durable, before anyone is told
        (so a result the League Manager counts always has its record). With a decisions
        journal it is appended there, and the match file is written once, by the next
        ``save``; without, the match file is written now.

        Raises:
            StoreError, FileSystemError: it could not be written.
        """
        if self.in_memory:
            return
        if self._decisions is None:
            await self.save()
            return
        self._awaiting_file = self._decisions.append(self._doc)
        await self._decisions.durable()

    async def save(self) -> None:
        """Return once the record, as it is now, is written where it belongs (see the
        module's docstring); a record kept in memory is not written.

        Raises:
            FileSystemError: the write failed; the next ``save`` writes again.
        """
        if self.in_memory:
            return
        self._commits.changed()
        await self._commits.durable()

    async def _commit(self) -> None:
        """One write of the newest state, in a worker thread. The snapshot is taken first:
        the lists the record appends to are copied, their entries are never changed."""
        document = {
            key: list(value) if isinstance(value, list) else value
            for key, value in self._doc.items()
        }
        await asyncio.to_thread(self._write, document)
        if self._awaiting_file is not None and self._decisions is not None:
            self._decisions.settle(self._awaiting_file)
            self._awaiting_file = None

    def _write(self, document: dict[str, Any]) -> None:
        """Write the record where it belongs. Runs in a worker thread, one write at a time
        per record, so ``_written`` and ``saved_path`` are only changed here. The record is
        written and fsynced to a temp file first; only choosing its place and renaming it
        there are under the folder's lock (another referee may share the folder), so the
        referees' fsyncs overlap instead of queueing on the lock."""
        staged = stage_document(self.path, document)
        try:
            with _folder_lock(self.path.parent):
                mine = self._holds_file()
                status = document["report_status"]
                if status == "superseded":
                    if mine and self._written is not None:
                        self.path.unlink(missing_ok=True)
                    path = self.superseded_path
                else:
                    path = self.path if mine or status == "reported" else self.superseded_path
                with file_access(path, "write"):
                    if path.parent != self.path.parent:  # the superseded folder
                        path.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(staged, path)
                if path == self.path:
                    self._written = _identity(path)
                    if self.saved_path != path:  # its earlier copy there is out of date
                        self.saved_path.unlink(missing_ok=True)
        except BaseException:
            staged.unlink(missing_ok=True)
            raise
        for folder in {path.parent, self.path.parent, self.saved_path.parent}:
            sync_folder(folder)
        self.saved_path = path

    def _holds_file(self) -> bool:
        """True when the match file is absent or holds this run's record: the file this
        record wrote last, untouched since (no read), or one naming this run."""
        try:
            if _identity(self.path) == self._written:
                return True
            document = read_json(self.path)
        except FileNotFoundError:
            return True
        except StoreError:  # damaged: no run's record, so any run may replace it
            return True
        return not isinstance(document, dict) or self._names_run(document)

    def _names_run(self, document: dict[str, Any]) -> bool:
        """Whether a match file's ``document`` is this run's record (referee, assignment)."""
        return (document.get("referee_id"), document.get("assignment")) == (
            self._doc["referee_id"],
            self._doc["assignment"],
        )


def recover_decided(path: Path, document: dict[str, Any]) -> Path | None:
    """Write a decided record that a referee left in its decisions journal when it died,
    where that referee would have put it (``path``, or superseded/ when another run holds
    the match file), unless the run's record is on disk already; where it went, or None.
    Blocking: run it in a worker thread.

    Raises:
        KeyError, TypeError, ValueError: ``document`` is not a match record.
        FileSystemError: it could not be written.
    """
    record = MatchFile.restored(path, document)
    if record.superseded_path.exists():
        return None
    try:
        found = read_json(path)
    except (FileNotFoundError, StoreError):
        found = None
    if isinstance(found, dict) and record._names_run(found):
        return None
    record._write(record._doc)
    return record.saved_path


def _identity(path: Path) -> tuple[int, int]:
    """Which version of a file is there (replaced by an atomic write: a new inode)."""
    status = path.stat()
    return status.st_ino, status.st_mtime_ns


@contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive lock on the league's match folder, shared by every referee process on
    this machine (flock on the folder itself: nothing extra is left on disk). The folder
    holds the record's staged file already."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)

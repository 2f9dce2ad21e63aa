"""A remote evaluation's transcript: where it goes, what it keeps, how large it may grow.

Where: ``<folder>/<suite name>.transcript.jsonl``, replaced by each run of the suite, in the
folder the user gave: ``--output DIR``, else the SHARED folder given (``--shared-dir`` or
``$LEAGUE_SHARED_DIR``: its ``logs/evaluations``); with neither, none is written (the
SHARED folder found by default, ``./SHARED`` in a checkout, is read for its config, never
written).

What: by default a summary (``evaluation_started``, one ``episode`` record per episode with
its outcome and counts of the messages, ``evaluation_finished``) with every warning and
error in full (retries, refused invitations, GAME_ERRORs sent, LEAGUE_ERRORs received);
``full`` adds every message sent and received (each abridged as every log record is,
``sdk.agent_log``). Either way the file stops at ``max_bytes`` with a ``log_limit_reached``
record.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from match_engine.outcome import MatchOutcome
from sdk.agent_log import AgentLog
from sdk.config import SHARED_DIR_ENV
from sdk.errors import file_access
from sdk.messages import GameError, LeagueError

__all__ = ["TRANSCRIPT_MAX_BYTES", "Transcript", "episode_summary", "transcript_folder"]

TRANSCRIPT_MAX_BYTES = 64 * 2**20
"""The default bound of a transcript file (a full one of the shipped prisoner's dilemma
suite, 50 episodes of 100 rounds, is 30 MB with one agent remote, 60 MB with both; the
summary 21 KB: ``doc/evaluation.md``)."""

AGENT_ID = "evaluation"
_SUMMARY_EVENTS = frozenset({"evaluation_started", "episode", "evaluation_finished"})
_ERROR_MESSAGES = frozenset({GameError.MESSAGE_TYPE, LeagueError.MESSAGE_TYPE})
_PLAIN_LEVELS = frozenset({"debug", "info"})


def transcript_folder(output: Path | None, shared_dir: Path | None) -> Path | None:
    """The folder the user gave for the transcript: ``output``, else the SHARED folder
    given (``shared_dir``, else ``$LEAGUE_SHARED_DIR``)'s ``logs/evaluations``; None when
    they gave neither."""
    if output is not None:
        return output
    shared = shared_dir or os.environ.get(SHARED_DIR_ENV)
    return Path(shared) / "logs" / "evaluations" if shared else None


def _in_summary(level: str, record: Mapping[str, Any]) -> bool:
    return (
        level not in _PLAIN_LEVELS
        or record.get("event") in _SUMMARY_EVENTS
        or record.get("message_type") in _ERROR_MESSAGES
    )


def _nothing(_: str, __: Mapping[str, Any]) -> bool:
    return False


class Transcript:
    """One run's transcript: ``open`` the log the run writes to, ``close`` it; then
    ``size`` and ``withheld`` say what it holds."""

    def __init__(
        self,
        folder: Path | None,
        suite_name: str,
        *,
        full: bool = False,
        max_bytes: int = TRANSCRIPT_MAX_BYTES,
    ):
        self.path = folder / f"{suite_name}.transcript.jsonl" if folder is not None else None
        self.full = full
        self.max_bytes = max_bytes
        self.size = 0
        self.withheld = 0
        self._log: AgentLog | None = None

    @property
    def mode(self) -> str:
        return "full" if self.full else "summary"

    def open(self) -> AgentLog:
        """The run's log: a fresh file (an earlier run's is replaced), or, without a
        folder, a log that writes nothing.

        Raises:
            FileSystemError: the file cannot be created.
        """
        if self.path is None:
            self._log = AgentLog(Path(os.devnull), AGENT_ID, keep=_nothing)
            return self._log
        with file_access(self.path, "write"):
            self.path.unlink(missing_ok=True)
        self._log = AgentLog(
            self.path, AGENT_ID, keep=None if self.full else _in_summary, max_bytes=self.max_bytes
        )
        return self._log

    def close(self) -> None:
        if self._log is not None:
            if self.path is not None:
                self.size, self.withheld = self._log.size, self._log.withheld
            self._log.close()
            self._log = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path) if self.path else None,
            "mode": self.mode,
            "bytes": self.size,
            "max_bytes": self.max_bytes,
            "withheld": self.withheld,
        }


def episode_summary(record: Mapping[str, Any], outcome: MatchOutcome) -> dict[str, Any]:
    """The ``episode`` record's fields from the match record's snapshot and the outcome:
    the result, the stages played, the messages by direction, the faults and deviations in
    full."""
    result = (record.get("result") or {}).get("game_result") or {}
    directions = Counter(entry["direction"] for entry in record.get("transcript", []))
    return {
        "match_id": record.get("match_id"),
        "status": outcome.status,
        "winner": outcome.winner,
        "reason": outcome.reason,
        "payoffs": result.get("payoffs"),
        "stages": len(record.get("stages", [])),
        "messages": {
            "sent": directions["sent"],
            "received": directions["received"],
            "failed": directions["failed"],
        },
        "faults": [
            {
                "player_id": f.player_id,
                "method": f.method,
                "code": f.code,
                "description": f.description,
            }
            for f in outcome.faults
        ],
        "deviations": record.get("deviations", []),
    }

"""One transcript for every way of playing: ``league play`` against a strategy or a remote
player, and games written in prose with an LLM game master (``playroom/prose/engine.py``).

A transcript keeps every message (who said it, what, whether the human saw it, when), the
configs that were used, the start and end, the LLM tokens spent (zero for play without an
LLM) and, beside the messages, every model call (``llm_calls``: whose, its tokens, how long
it took, whether it was retried). It is saved as JSON (the whole record, loadable again) and as CSV
(one row per message, with a ``visible`` column, for a spreadsheet).
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sdk.timeutil import utc_now

__all__ = [
    "CSV_COLUMNS",
    "LlmCall",
    "MessageRole",
    "TokenUsage",
    "Transcript",
    "TranscriptMessage",
    "Visibility",
    "load_csv_messages",
]

MessageRole = Literal["manager", "human", "player", "referee"]
Visibility = Literal["visible", "internal"]
CSV_COLUMNS = ("time", "role", "speaker", "visible", "text")


class TranscriptMessage(BaseModel):
    """One message: ``internal`` ones were never shown to the human."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: MessageRole
    text: str
    visibility: Visibility = "visible"
    time: datetime = Field(default_factory=utc_now)
    speaker: str | None = None
    """Who exactly (a player id, a model name) when the role alone does not say."""


class LlmCall(BaseModel):
    """One model call of a prose game, retries included: what it cost and how it went."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["manager", "player"]
    """Whose model was called: the game master's or the opponent's."""
    model: str
    """The model that answered (as its API named it), else the one asked for."""
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    latency_ms: float = Field(ge=0)
    """The answering attempt's time; ``elapsed_ms`` adds the failed attempts and the waits."""
    elapsed_ms: float = Field(ge=0)
    attempts: int = Field(ge=1)
    retried: bool
    error: str | None = None
    """Why the call gave no text, after its last attempt (None: it answered)."""
    time: datetime = Field(default_factory=utc_now)


class TokenUsage(BaseModel):
    """LLM usage over the whole game (all zero when no LLM took part)."""

    model_config = ConfigDict(extra="forbid")

    calls: int = Field(default=0, ge=0)
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Transcript(BaseModel):
    """The record of one game as played and seen."""

    model_config = ConfigDict(extra="forbid")

    format_version: Literal[1] = 1
    mode: str
    """How it was played: ``play`` (a game of games/), ``prose`` (a game written in prose)."""
    game: str | None = None
    configs: dict[str, Any] = Field(default_factory=dict)
    """Everything that shaped the game: game parameters, seed, opponent, prompts, models."""
    started_at: datetime = Field(default_factory=utc_now)
    ended_at: datetime | None = None
    messages: list[TranscriptMessage] = Field(default_factory=list)
    tokens: TokenUsage = Field(default_factory=TokenUsage)
    llm_calls: list[LlmCall] = Field(default_factory=list)
    """Every model call, in order (prose games; empty otherwise)."""
    result: dict[str, Any] = Field(default_factory=dict)
    """How it ended (payoffs, winner, reason), as the referee decided."""

    def add(
        self,
        role: MessageRole,
        text: str,
        *,
        visibility: Visibility = "visible",
        speaker: str | None = None,
    ) -> TranscriptMessage:
        message = TranscriptMessage(role=role, text=text, visibility=visibility, speaker=speaker)
        self.messages.append(message)
        return message

    def record_call(self, call: LlmCall) -> None:
        """Keep ``call`` in ``llm_calls``; an answered one counts in ``tokens``."""
        self.llm_calls.append(call)
        if call.error is None:
            self.tokens.calls += 1
            self.tokens.prompt_tokens += call.prompt_tokens
            self.tokens.completion_tokens += call.completion_tokens

    def visible(self) -> list[TranscriptMessage]:
        """What the human saw, in order."""
        return [m for m in self.messages if m.visibility == "visible"]

    def finish(self, result: dict[str, Any]) -> None:
        self.result = dict(result)
        self.ended_at = utc_now()

    def public(self) -> Transcript:
        """A copy without the internal messages: what may leave the server for the human."""
        return self.model_copy(update={"messages": self.visible()}, deep=True)

    def to_csv(self) -> str:
        """The messages as CSV text (``CSV_COLUMNS``, one row per message)."""
        handle = io.StringIO(newline="")
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for message in self.messages:
            writer.writerow(
                {
                    "time": message.time.isoformat(),
                    "role": message.role,
                    "speaker": message.speaker or "",
                    "visible": str(message.visibility == "visible").lower(),
                    "text": message.text,
                }
            )
        return handle.getvalue()

    def save(self, path: Path) -> tuple[Path, Path]:
        """Write ``path`` (JSON) and the same name with ``.csv``; returns both paths."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")
        csv_path = path.with_suffix(".csv")
        with csv_path.open("w", newline="", encoding="utf-8") as handle:
            handle.write(self.to_csv())
        return path, csv_path

    @classmethod
    def load(cls, path: Path) -> Transcript:
        """A transcript saved as JSON by ``save``.

        Raises:
            OSError: the file cannot be read.
            pydantic.ValidationError: it is not a transcript.
        """
        return cls.model_validate_json(path.read_text(encoding="utf-8"))


def load_csv_messages(path: Path) -> list[TranscriptMessage]:
    """The messages of a transcript's CSV file (the CSV keeps the messages only).

    Raises:
        OSError: the file cannot be read.
        pydantic.ValidationError: a row is not a message.
    """
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            TranscriptMessage.model_validate(
                {
                    "role": row["role"],
                    "text": row["text"],
                    "visibility": "visible" if row["visible"] == "true" else "internal",
                    "time": datetime.fromisoformat(row["time"]),
                    "speaker": row["speaker"] or None,
                }
            )
            for row in csv.DictReader(handle)
        ]

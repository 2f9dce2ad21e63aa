"""The bodies and answers of ``/api/games`` (prose games on the play service): every one a
pydantic model, so that a bad body is refused with a sentence and ``/docs`` documents them.

What an answer holds is what the person may see: the visible messages (the Game's, their
own, the referee's notices), never a ``[PLAYER_TURN]`` block nor the opponent's context;
the text of a prompt only when the person gave it (the defaults serve the generic ones; an
example's prompts hold the opponent's private values, so the answers name the example)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

__all__ = [
    "MAX_MESSAGE_CHARS",
    "MAX_PROMPT_CHARS",
    "ChatMessage",
    "ProseMove",
    "ProseConfig",
    "ProseConfigPatch",
    "ProseDefaults",
    "ProseState",
    "ProseStatus",
    "RetryBudget",
    "SideConfig",
    "SideShown",
    "Speaker",
]

MAX_PROMPT_CHARS = 20_000
MAX_MESSAGE_CHARS = 2_000
ProseStatus = Literal["created", "running", "over"]
Speaker = Literal["game", "you", "notice"]


# -- bodies ------------------------------------------------------------------------------


class SideConfig(BaseModel):
    """One side's model: a field left out (or null) takes the default
    (``GET /api/games/config/defaults``). The endpoint and key are the server's."""

    model_config = ConfigDict(extra="forbid")

    prompt: str | None = Field(default=None, min_length=1, max_length=MAX_PROMPT_CHARS)
    """The system prompt (default: the example's, else the generic one)."""
    model: str | None = Field(default=None, min_length=1, max_length=200)
    temperature: float | None = Field(default=None, ge=0, le=2, allow_inf_nan=False)
    max_tokens: int | None = Field(default=None, ge=1, le=4096)


class ProseConfig(BaseModel):
    """A prose game: a shipped example pair or prompts of one's own, and each side's model."""

    model_config = ConfigDict(extra="forbid")

    example: Annotated[str, Field(min_length=1, max_length=100)] | None = Field(
        default=None, examples=["ultimatum"]
    )
    """A shipped pair, whose prompts serve the sides that give none (none: the generic
    default pair)."""
    manager: SideConfig = Field(default_factory=SideConfig)
    """The game master, which runs the game and talks to the person."""
    player: SideConfig = Field(default_factory=SideConfig)
    """The opponent, which sees only what the game master writes for it."""
    max_turns: int = Field(default=30, ge=1, le=200)
    """The most messages the person may send."""


class ProseConfigPatch(BaseModel):
    """A change before the start: a field left out is kept; a side's fields are changed
    one by one; ``null`` sets a side's field (or ``example``) back to its default."""

    model_config = ConfigDict(extra="forbid")

    example: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    manager: SideConfig | None = None
    player: SideConfig | None = None
    max_turns: int | None = Field(default=None, ge=1, le=200)


class ProseMove(BaseModel):
    """What the person says to the Game."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)

    @field_validator("text")
    @classmethod
    def _said(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the message is empty")
        return value


# -- answers -----------------------------------------------------------------------------


class SideShown(BaseModel):
    """A side as it plays, as the person may see it."""

    prompt: str | None
    """The prompt's text when the person gave it (and, in the defaults, the generic
    default's); None otherwise: ``prompt_source`` names it (an example's is never sent,
    it holds the opponent's private values)."""
    prompt_source: str
    """``custom``, ``default`` or ``example:<name>``."""
    model: str
    temperature: float
    max_tokens: int


class ChatMessage(BaseModel):
    """One visible message: the Game's (``game``), the person's (``you``), or a referee's
    notice (``notice``: the turn limit was reached)."""

    index: int
    speaker: Speaker
    text: str
    time: datetime


class ProseState(BaseModel):
    """A prose game as the person sees it."""

    session_id: str
    status: ProseStatus
    config: ProseConfig
    """The config as given (what ``PATCH`` changes)."""
    manager: SideShown
    player: SideShown
    human_turns: int
    max_turns: int
    busy: bool
    """A message of the person's is being answered."""
    messages: list[ChatMessage]
    result: dict[str, Any] | None = None
    """How it ended (``status``: ``game_over`` or ``max_turns``; ``human_turns``)."""


class RetryBudget(BaseModel):
    llm_timeout_sec: float
    """How long one try of a model call may take."""
    llm_retry_sec: float
    """How long one model call may go on being retried before a 503."""


class ProseDefaults(BaseModel):
    """What a config left out becomes, and what the server offers."""

    manager: SideShown
    player: SideShown
    max_turns: int
    examples: list[str]
    """The shipped pairs a config may name as ``example``."""
    llm_available: bool
    """Whether this server has a model endpoint (``LEAGUE_LLM_BASE_URL``); without one a
    prose game cannot be created."""
    retry: RetryBudget
    idle_sec: float
    max_sessions: int
    max_sessions_per_client: int

"""The bodies and answers of ``/api/play`` (the play service): every one a pydantic
model, so ``/docs`` and ``/openapi.json`` document the API."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    field_validator,
)
from pydantic_core import PydanticCustomError

from games import GameSpec
from games.matrix import two_player_table
from playroom.play_sessions import SessionStatus
from playroom.transcript import MessageRole

__all__ = [
    "BuiltinOpponent",
    "ConfigPatch",
    "Deadlines",
    "Defaults",
    "GameConfig",
    "GameOffer",
    "GuideOut",
    "HistoryOut",
    "LlmOffer",
    "LlmOpponent",
    "MessageOut",
    "MessagesAnswer",
    "MoveMeaningOut",
    "MoveBody",
    "OpponentChoice",
    "PayoffTableOut",
    "PlayerOffer",
    "PlayerOpponent",
    "Problem",
    "SeenRow",
    "SessionState",
    "problems",
]

_MAX_PARAMS_CHARS = 4096


# -- bodies ------------------------------------------------------------------------------

Name = Annotated[str, Field(max_length=100)]
"""A game, strategy or player name (a refusal repeats it, so it stays short)."""


class BuiltinOpponent(BaseModel):
    """A strategy of the player host, played in process."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["builtin"]
    strategy: Name = Field(examples=["tit_for_tat"])


class PlayerOpponent(BaseModel):
    """A player registered in the League Manager's league, played over the protocol at its
    endpoint."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["player"]
    player_id: Name = Field(examples=["P01"])


class LlmOpponent(BaseModel):
    """The ``llm`` strategy, on the endpoint the server's ``LEAGUE_LLM_*`` name."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["llm"]


OpponentChoice = Annotated[
    BuiltinOpponent | PlayerOpponent | LlmOpponent, Field(discriminator="kind")
]
Seed = Annotated[int, Field(ge=0, le=2**63 - 1)]


def _small_params(value: dict[str, Any] | None) -> dict[str, Any] | None:
    if value is not None and len(json.dumps(value, default=str)) > _MAX_PARAMS_CHARS:
        raise ValueError(f"params are longer than {_MAX_PARAMS_CHARS} characters as JSON")
    return value


class GameConfig(BaseModel):
    """What to play: the game, the opponent, the game's parameters and a seed."""

    model_config = ConfigDict(extra="forbid")
    game: Name = Field(examples=["prisoners_dilemma"])
    opponent: OpponentChoice
    params: dict[str, Any] = Field(default_factory=dict, examples=[{"rounds": 3}])
    """Overrides of the game's defaults (``GET /api/play/defaults`` lists them)."""
    seed: Seed | None = None
    """Repeats the game's draws (and a seeded strategy's) exactly; none: a fresh draw."""

    _params = field_validator("params")(_small_params)


class ConfigPatch(BaseModel):
    """Configs to change before the game starts; a field left out is kept (``null`` is
    taken by ``seed`` alone: a fresh draw)."""

    model_config = ConfigDict(extra="forbid")
    game: Name | None = None
    opponent: OpponentChoice | None = None
    params: dict[str, Any] | None = None
    seed: Seed | None = None

    _params = field_validator("params")(_small_params)


class MoveBody(BaseModel):
    """The person's move: a choice (``"C"``), a number (a bid) or an allocation list."""

    model_config = ConfigDict(extra="forbid")
    move: StrictStr | StrictInt | StrictFloat | list[StrictInt] = Field(examples=["C"])

    @field_validator("move", mode="before")
    @classmethod
    def _a_move(cls, value: Any) -> Any:
        """One sentence for what is no move at all, rather than one per kind it is not."""
        whole = isinstance(value, int) and not isinstance(value, bool)
        listed = isinstance(value, list) and all(
            isinstance(part, int) and not isinstance(part, bool) for part in value
        )
        if not (whole or listed or isinstance(value, str | float)):
            raise PydanticCustomError(
                "move_type", 'a move is text ("C"), a number or a list of whole numbers'
            )
        return value


# -- answers -----------------------------------------------------------------------------


class Problem(BaseModel):
    """Why a request was refused, as one sentence."""

    detail: str


class MoveMeaningOut(BaseModel):
    move: str
    """A choice as sent (``"C"``), or the move type of a number or list move (``"offer"``)."""
    name: str
    """In a few words (``"cooperate"``)."""
    meaning: str


class GuideOut(BaseModel):
    """A game's rules in a few sentences and its moves in words (``games.guide``)."""

    rules: str
    moves: list[MoveMeaningOut]

    @classmethod
    def of(cls, spec: GameSpec) -> GuideOut | None:
        return cls.model_validate(spec.guide.to_json()) if spec.guide else None


class PayoffTableOut(BaseModel):
    """A matrix game's payoffs, the person's seat as the rows."""

    row_actions: list[str]
    """The person's moves."""
    column_actions: list[str]
    """The opponent's moves."""
    payoffs: list[list[list[float]]]
    """``payoffs[i][j]``: [the person's payoff, the opponent's] when the person plays
    ``row_actions[i]`` and the opponent ``column_actions[j]``."""

    @classmethod
    def of(cls, spec: GameSpec) -> PayoffTableOut | None:
        """The table of a two-player matrix game with its default parameters, the person's
        seat (the first) as the rows; None for any other game."""
        table = two_player_table(spec)
        if table is None:
            return None
        rows, columns = table.actions
        return cls(
            row_actions=list(rows),
            column_actions=list(columns),
            payoffs=[[list(table.payoffs[row, column]) for column in columns] for row in rows],
        )


class GameOffer(BaseModel):
    game_type: str
    versioned_id: str
    display_name: str
    simultaneous: bool
    params: dict[str, Any]
    """The game's parameters with their defaults."""
    strategies: list[str]
    """The built-in strategies that play it."""
    guide: GuideOut | None = None
    payoff_table: PayoffTableOut | None = None
    """A two-player matrix game's table with the default parameters (None for others)."""


class PlayerOffer(BaseModel):
    player_id: str
    display_name: str
    game_types: list[str]
    contact_endpoint: str
    state: str


class LlmOffer(BaseModel):
    available: bool
    """Whether ``LEAGUE_LLM_BASE_URL`` names an endpoint on this server."""
    model: str | None = None


class Deadlines(BaseModel):
    move_timeout_sec: float
    """A remote player's time for one move (``make_move``, ``choose_parity``)."""
    settle_sec: float
    """How long a start or a move waits for the opponent before answering."""
    idle_sec: float
    """A session unused for this long is deleted."""


class Defaults(BaseModel):
    games: list[GameOffer]
    players: list[PlayerOffer]
    """Players registered in the League Manager's league (not suspended or shut down;
    none when it does not answer)."""
    llm: LlmOffer
    default_game: str
    default_opponent: BuiltinOpponent
    deadlines: Deadlines
    max_sessions: int
    max_sessions_per_client: int


class SeenRow(BaseModel):
    label: str
    text: str


class HistoryOut(BaseModel):
    columns: list[str]
    rows: list[list[str]]


class SessionState(BaseModel):
    """A game as the person's seat sees it."""

    session_id: str
    status: SessionStatus
    config: GameConfig
    display_name: str
    turn: Literal["you", "opponent"] | None
    """Whose move is awaited while the game runs."""
    stage: int | None = None
    """The stage of the person's pending move."""
    observation: dict[str, Any] | None = None
    """The person's latest observation (nothing of the opponent's private view)."""
    seen: list[SeenRow] = Field(default_factory=list)
    """The observation in words, row by row (``playroom.narration``)."""
    history: HistoryOut | None = None
    """The rounds played so far as a table (None: the game keeps no history)."""
    action_space: dict[str, Any] | None = None
    """The person's legal moves while their move is due."""
    hint: str | None = None
    score: dict[str, float] = Field(default_factory=dict)
    """The running score the person may see (the other's where the game shows it)."""
    result: dict[str, Any] | None = None
    """GAME_OVER's result as the person may see it: no payoff their seat does not show (an
    opponent's private reservation value stays private)."""
    result_lines: list[str] = Field(default_factory=list)
    error: str | None = None
    messages: int = 0
    """How many visible messages there are (``GET .../messages?since=N`` reads on)."""


class MessageOut(BaseModel):
    index: int
    role: MessageRole
    speaker: str | None
    text: str
    time: datetime


class MessagesAnswer(BaseModel):
    session_id: str
    messages: list[MessageOut]
    next: int
    """The ``since`` to ask with next time."""


def problems(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": Problem} for code in codes}

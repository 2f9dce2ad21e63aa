"""Match-level messages between a referee and the players (and the League Manager's
``start_match`` hand-over to a referee, which is ours)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    model_serializer,
)

from sdk.messages.envelope import Message, UtcTimestamp

__all__ = [
    "ChooseParityCall",
    "Communication",
    "ChooseParityResponse",
    "MAX_SEATS",
    "GameError",
    "GameInvitation",
    "GameJoinAck",
    "GameMoveCall",
    "GameMoveResponse",
    "GameOver",
    "GameResult",
    "GameStatus",
    "MatchSeat",
    "MoveData",
    "MoveRequest",
    "Outcome",
    "ParityChoice",
    "ParityContext",
    "Role",
    "StartMatch",
    "StartMatchAck",
    "WinLossRecord",
    "outcome_of",
    "seat_role",
]

Role = Annotated[str, StringConstraints(pattern=r"^PLAYER_[A-Z]$")]
"""PLAYER_A and PLAYER_B as the protocol has them; a match of more players goes on with
PLAYER_C, PLAYER_D, ... (ours)."""
MAX_SEATS = 26


def seat_role(index: int) -> str:
    """The role of the seat at ``index`` (0 → PLAYER_A)."""
    if not 0 <= index < MAX_SEATS:
        raise ValueError(f"a match has at most {MAX_SEATS} seats, PLAYER_A to PLAYER_Z")
    return f"PLAYER_{chr(ord('A') + index)}"


ParityChoice = Literal["even", "odd"]
GameStatus = Literal["WIN", "DRAW", "TECHNICAL_LOSS"]
Outcome = Literal["WIN", "DRAW", "LOSS", "TECHNICAL_LOSS"]
"""A match from one player's side: what the standings count and a player's history keeps."""


def outcome_of(
    player_id: str,
    *,
    winner: str | None,
    technical_losers: Collection[str] = (),
    drew: bool = False,
) -> Outcome:
    """One player's side of a decided match, the one rule for the referee's points, the
    standings and a player's history: a technical loser lost technically, the winner won,
    a player who shares a draw (``drew``) drew, and any other lost."""
    if player_id in technical_losers:
        return "TECHNICAL_LOSS"
    if player_id == winner:
        return "WIN"
    return "DRAW" if drew else "LOSS"


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class WinLossRecord(_Part):
    wins: int = 0
    losses: int = 0
    draws: int = 0


class GameInvitation(Message):
    MESSAGE_TYPE = "GAME_INVITATION"
    league_id: str
    round_id: int
    match_id: str
    game_type: str
    role_in_match: Role
    opponent_id: str
    opponent_ids: list[str] | None = Field(
        default=None,
        description="ours, in a match of more than two players only: every "
        "other player in seat order (opponent_id is the first)",
    )
    assignment: int | None = Field(
        default=None,
        ge=1,
        description="ours: the League Manager's number of the hand-over "
        "this run of the match is played under (START_MATCH's); a player takes no invitation "
        "older than one it has for the same match",
    )

    _OPTIONAL_CONTEXT: ClassVar[frozenset[str]] = Message._OPTIONAL_CONTEXT | {
        "opponent_ids",
        "assignment",
    }


class GameJoinAck(Message):
    MESSAGE_TYPE = "GAME_JOIN_ACK"
    match_id: str
    player_id: str
    arrival_timestamp: UtcTimestamp
    accept: bool


class ParityContext(_Part):
    opponent_id: str
    round_id: int | None = None
    your_standings: WinLossRecord = Field(default_factory=WinLossRecord)


class ChooseParityCall(Message):
    MESSAGE_TYPE = "CHOOSE_PARITY_CALL"
    match_id: str
    player_id: str
    game_type: str = "even_odd"
    context: ParityContext
    deadline: UtcTimestamp


class ChooseParityResponse(Message):
    MESSAGE_TYPE = "CHOOSE_PARITY_RESPONSE"
    match_id: str
    player_id: str
    parity_choice: ParityChoice


class MoveRequest(_Part):
    move_type: str
    valid_options: list[Any] = Field(default_factory=list)
    context: dict[str, Any] = Field(default_factory=dict)


class GameMoveCall(Message):
    MESSAGE_TYPE = "GAME_MOVE_CALL"
    match_id: str
    player_id: str
    game_type: str
    move_request: MoveRequest
    deadline: UtcTimestamp


class MoveData(_Part):
    """The move of a GAME_MOVE_RESPONSE: its type, and (ours) the move itself in ``move``."""

    move_type: str
    move: Any = None
    message: str | None = None
    """Ours, when the league lets agents talk: a short note the referee relays to the other
    players in their next move call."""
    reasoning: str | None = None
    """Ours: why, for the record and analysis; the referee never relays it."""

    @model_serializer(mode="wrap")
    def _unsaid_left_out(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A move without words is sent as just the move."""
        data = handler(self)
        for key in ("message", "reasoning"):
            if isinstance(data, dict) and data.get(key) is None:
                data.pop(key, None)
        return data


class GameMoveResponse(Message):
    MESSAGE_TYPE = "GAME_MOVE_RESPONSE"
    match_id: str
    player_id: str
    game_type: str
    move_data: MoveData


class GameResult(_Part):
    status: GameStatus
    winner_player_id: str | None = None
    drawn_number: int | None = None
    number_parity: ParityChoice | None = None
    choices: dict[str, str | None] = Field(default_factory=dict)
    reason: str = ""


class GameOver(Message):
    MESSAGE_TYPE = "GAME_OVER"
    match_id: str
    game_type: str
    game_result: GameResult


class GameError(Message):
    MESSAGE_TYPE = "GAME_ERROR"
    match_id: str
    error_code: str
    error_description: str
    affected_player: str
    action_required: str
    retryable: bool
    retry_count: int
    max_retries: int
    consequence: str


class MatchSeat(_Part):
    """Ours: one player of a match as the League Manager hands it to a referee."""

    player_id: str
    display_name: str = ""
    contact_endpoint: str
    role: Role
    standings: WinLossRecord = Field(default_factory=WinLossRecord)


class Communication(_Part):
    """Ours: whether the players of a match may talk, and how much per move."""

    enabled: bool = False
    max_message_chars: int = Field(default=280, ge=1, le=10_000)


class StartMatch(Message):
    """Ours: the League Manager gives a match to a referee (``start_match``)."""

    MESSAGE_TYPE = "START_MATCH"
    _OPTIONAL_CONTEXT: ClassVar[frozenset[str]] = Message._OPTIONAL_CONTEXT | {"assignment"}
    league_id: str
    round_id: int
    match_id: str
    game_type: str
    game_params: dict[str, Any] = Field(default_factory=dict)
    players: list[MatchSeat] = Field(min_length=2)
    communication: Communication = Field(default_factory=Communication)
    player_proofs: dict[str, str] = Field(default_factory=dict)
    """Each player's proof for this match and referee (``sdk.auth.match_proof``): what the
    referee sends it in auth_token, so that the player knows the referee is the league's."""
    assignment: int | None = Field(default=None, ge=1)
    """Ours: the number of this hand-over of the match, a fencing token that only grows
    (``league_manager.assignments``): the referee's report carries it back, and a report of
    an assignment the League Manager has since given to another is refused."""


class StartMatchAck(Message):
    """Ours: the referee took the match (it reports the result later)."""

    MESSAGE_TYPE = "START_MATCH_ACK"
    match_id: str
    accepted: bool

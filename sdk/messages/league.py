"""League-level messages: results, queries, standings, rounds, completion and errors."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from sdk.messages.envelope import Message

__all__ = [
    "Acknowledgement",
    "Champion",
    "FinalStanding",
    "LeagueCompleted",
    "LeagueError",
    "LeagueQuery",
    "LeagueQueryResponse",
    "LeagueStandings",
    "LeagueStandingsUpdate",
    "MatchResult",
    "MatchResultAck",
    "MatchResultReport",
    "QueryType",
    "RoundAnnouncement",
    "RoundCompleted",
    "RoundMatch",
    "RoundSummary",
    "StandingsRow",
]

QueryType = Literal["GET_STANDINGS", "GET_SCHEDULE", "GET_NEXT_MATCH", "GET_PLAYER_STATS"]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")


class MatchResult(_Part):
    winner: str | None = None
    score: dict[str, float] = Field(default_factory=dict)
    details: dict[str, Any] = Field(default_factory=dict)


class MatchResultReport(Message):
    MESSAGE_TYPE = "MATCH_RESULT_REPORT"
    _OPTIONAL_CONTEXT: ClassVar[frozenset[str]] = Message._OPTIONAL_CONTEXT | {"assignment"}
    league_id: str
    round_id: int
    match_id: str
    game_type: str
    result: MatchResult
    assignment: int | None = Field(default=None, ge=1)
    """Ours: the START_MATCH ``assignment`` this result was played under (left out when the
    League Manager gave none)."""


class MatchResultAck(Message):
    """Ours: the League Manager's answer to a result report."""

    MESSAGE_TYPE = "MATCH_RESULT_ACK"
    status: Literal["RECORDED", "DUPLICATE"]


class Acknowledgement(Message):
    """Ours: the answer to a notification; the protocol accepts any acknowledgement."""

    MESSAGE_TYPE = "ACK"
    status: str = "ok"
    acknowledged: str = ""


class LeagueQuery(Message):
    MESSAGE_TYPE = "LEAGUE_QUERY"
    query_type: QueryType
    query_params: dict[str, Any] = Field(default_factory=dict)


class LeagueQueryResponse(Message):
    MESSAGE_TYPE = "LEAGUE_QUERY_RESPONSE"
    query_type: QueryType
    success: bool
    data: Any = None
    error: str | None = None


class _Listed(BaseModel):
    """An item of a list every player receives each round, n long (a standings row, a
    round's match): it takes unknown fields and keeps only those it declares. Every player
    validates every item of every round, and a model that keeps unknown fields costs half as
    much again (a 200-row standings update 250 µs against 175, ``doc/benchmarks.md``, issue
    22); the message around the list keeps its extra fields as every message does."""

    model_config = ConfigDict(extra="ignore")


class StandingsRow(_Listed):
    rank: int
    player_id: str
    display_name: str = ""
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0
    technical_losses: int = 0
    """Ours: how many of the losses were technical (the League Manager ranks by it)."""


class LeagueStandings(Message):
    """Ours: the answer of ``get_standings``, the standings object in an envelope."""

    MESSAGE_TYPE = "LEAGUE_STANDINGS"
    league_id: str
    version: int
    rounds_completed: int
    standings: list[StandingsRow]


class LeagueStandingsUpdate(Message):
    MESSAGE_TYPE = "LEAGUE_STANDINGS_UPDATE"
    league_id: str
    round_id: int
    standings: list[StandingsRow]


class RoundMatch(_Listed):
    match_id: str
    game_type: str
    player_A_id: str
    player_B_id: str
    referee_endpoint: str | None = None
    player_ids: list[str] | None = Field(
        default=None,
        description="ours, in a match of more than two players only: every "
        "player in seat order (player_A_id and player_B_id are the first two)",
    )

    @model_serializer(mode="wrap")
    def _two_players_as_published(self, handler: SerializerFunctionWrapHandler) -> Any:
        """A two-player match is sent exactly as the protocol has it."""
        data = handler(self)
        if isinstance(data, dict) and data.get("player_ids") is None:
            data.pop("player_ids", None)
        return data


class RoundAnnouncement(Message):
    MESSAGE_TYPE = "ROUND_ANNOUNCEMENT"
    league_id: str
    round_id: int
    matches: list[RoundMatch]


class RoundSummary(_Part):
    total_matches: int = 0
    wins: int = 0
    draws: int = 0
    technical_losses: int = 0


class RoundCompleted(Message):
    MESSAGE_TYPE = "ROUND_COMPLETED"
    league_id: str
    round_id: int
    matches_completed: int
    next_round_id: int | None = None
    summary: RoundSummary = Field(default_factory=RoundSummary)


class Champion(_Part):
    player_id: str
    display_name: str = ""
    points: float = 0


class FinalStanding(_Part):
    rank: int
    player_id: str
    points: float


class LeagueCompleted(Message):
    MESSAGE_TYPE = "LEAGUE_COMPLETED"
    league_id: str
    total_rounds: int
    total_matches: int
    champion: Champion | None = None
    final_standings: list[FinalStanding]


class LeagueError(Message):
    MESSAGE_TYPE = "LEAGUE_ERROR"
    error_code: str
    error_description: str
    original_message_type: str | None = None
    context: dict[str, Any] = Field(default_factory=dict)

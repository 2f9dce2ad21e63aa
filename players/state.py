"""What the player knows about itself and its league, kept in memory for ``/status``."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

from sdk.messages import (
    Champion,
    FinalStanding,
    GameError,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Message,
    RoundAnnouncement,
    RoundCompleted,
    StandingsRow,
)
from sdk.registration import RegistrationProgress, RegistrationState

__all__ = ["Lifecycle", "PlayerState", "Registration", "RegistrationStatus"]

MAX_RECENT_ERRORS = 20
_ERROR_FIELDS = {
    "timestamp",
    "match_id",
    "error_code",
    "error_description",
    "affected_player",
    "retryable",
    "retry_count",
    "max_retries",
    "consequence",
}


class Lifecycle(str, Enum):
    """The protocol's agent states that a player goes through on its own."""

    INIT = "INIT"
    REGISTERED = "REGISTERED"
    ACTIVE = "ACTIVE"
    SHUTDOWN = "SHUTDOWN"


RegistrationStatus = RegistrationProgress
"""DISABLED: standalone (join_league=False); PENDING: trying, ``reason`` the last attempt's
problem (an answer it could not use); REJECTED: refused for good, the process is ending."""

Registration = RegistrationState


class PlayerState(BaseModel):
    """The player's own picture: lifecycle, registration, and the league's latest news."""

    player_id: str | None = None
    lifecycle: Lifecycle = Lifecycle.INIT
    registration: Registration
    league_id: str | None = None
    current_round: int | None = None
    last_completed_round: int | None = None
    next_round: int | None = None
    standings_round: int | None = None
    standings: list[StandingsRow] = Field(default_factory=list)
    champion: Champion | None = None
    final_standings: list[FinalStanding] = Field(default_factory=list)
    recent_errors: list[dict[str, Any]] = Field(default_factory=list)
    fault: str | None = None
    """A problem the player keeps running with (e.g. an unreadable history file)."""

    def apply(self, message: Message) -> None:
        """Keep the latest round, standings, result and errors a notification brings."""
        if isinstance(message, RoundAnnouncement):
            self.league_id = self.league_id or message.league_id
            self.current_round = message.round_id
        elif isinstance(message, LeagueStandingsUpdate):
            self.standings_round = message.round_id
            self.standings = list(message.standings)
        elif isinstance(message, RoundCompleted):
            self.last_completed_round = message.round_id
            self.next_round = message.next_round_id
            if self.current_round == message.round_id:
                self.current_round = None
        elif isinstance(message, LeagueCompleted):
            self.champion = message.champion
            self.final_standings = list(message.final_standings)
            self.current_round = None
        elif isinstance(message, GameError):
            error = message.model_dump(mode="json", include=_ERROR_FIELDS)
            self.recent_errors = [*self.recent_errors, error][-MAX_RECENT_ERRORS:]

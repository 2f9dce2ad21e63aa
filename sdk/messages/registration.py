"""Registration of referees and players with the League Manager."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from sdk.messages.envelope import Message, check_protocol_version
from sdk.types import AgentUrl

__all__ = [
    "LeagueRegisterRequest",
    "LeagueRegisterResponse",
    "PlayerMeta",
    "RefereeMeta",
    "RefereeRegisterRequest",
    "RefereeRegisterResponse",
    "RegistrationStatus",
]

RegistrationStatus = Literal["ACCEPTED", "REJECTED"]
ProtocolVersion = Annotated[str, AfterValidator(check_protocol_version)]


class AgentMeta(BaseModel):
    """What an agent says about itself when it registers."""

    model_config = ConfigDict(extra="allow")

    display_name: str = Field(min_length=1, max_length=100)
    version: str = "1.0.0"
    game_types: list[str] = Field(default_factory=lambda: ["even_odd"])
    contact_endpoint: AgentUrl


class RefereeMeta(AgentMeta):
    max_concurrent_matches: int = Field(default=1, ge=1, le=1000)


class PlayerMeta(AgentMeta):
    protocol_version: ProtocolVersion | None = None


class RefereeRegisterRequest(Message):
    MESSAGE_TYPE = "REFEREE_REGISTER_REQUEST"
    referee_meta: RefereeMeta


class RefereeRegisterResponse(Message):
    MESSAGE_TYPE = "REFEREE_REGISTER_RESPONSE"
    status: RegistrationStatus
    referee_id: str | None = None
    reason: str | None = None
    auth_proofs: str | None = None
    """Ours: the League Manager signs its calls to this agent with proofs of this scheme
    (``sdk.auth``); absent from a League Manager that does not."""
    retry_after_sec: float | None = None
    """Ours: with REJECTED, register again after this many seconds (the League Manager's
    per-address limit turned this attempt away); left out of the message when None."""

    _OPTIONAL_CONTEXT = Message._OPTIONAL_CONTEXT | {"retry_after_sec"}


class LeagueRegisterRequest(Message):
    MESSAGE_TYPE = "LEAGUE_REGISTER_REQUEST"
    player_meta: PlayerMeta


class LeagueRegisterResponse(Message):
    MESSAGE_TYPE = "LEAGUE_REGISTER_RESPONSE"
    status: RegistrationStatus
    player_id: str | None = None
    reason: str | None = None
    auth_proofs: str | None = None
    """Ours: its referees and the League Manager show this player proofs of this scheme
    (``sdk.auth``) in auth_token; absent from a League Manager that does not."""
    retry_after_sec: float | None = None
    """Ours: with REJECTED, register again after this many seconds (the League Manager's
    per-address limit turned this attempt away); left out of the message when None."""

    _OPTIONAL_CONTEXT = Message._OPTIONAL_CONTEXT | {"retry_after_sec"}

"""Registration with the League Manager: one LEAGUE_REGISTER_REQUEST, sent again and again
until the League Manager is up (start-up order between processes is not guaranteed)."""

from __future__ import annotations

import math
import uuid

from players.config import PlayerSettings
from sdk.client import RpcClient
from sdk.messages import (
    PROTOCOL_VERSION,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    PlayerMeta,
)
from sdk.tolerance import answer_defaults, receive

__all__ = ["PLAYER_VERSION", "register", "registration_request"]

PLAYER_VERSION = "1.0.0"


def registration_request(settings: PlayerSettings) -> LeagueRegisterRequest:
    """The request exactly as the protocol shows it; the sender is the display name until
    the League Manager issues an id."""
    return LeagueRegisterRequest(
        sender=f"player:{settings.display_name}",
        conversation_id=f"register-{uuid.uuid4().hex}",
        player_meta=PlayerMeta(
            display_name=settings.display_name,
            version=PLAYER_VERSION,
            game_types=list(settings.game_types),
            contact_endpoint=settings.contact_endpoint,
            protocol_version=PROTOCOL_VERSION,
        ),
    )


async def register(
    client: RpcClient, settings: PlayerSettings, *, give_up_after: float = math.inf
) -> LeagueRegisterResponse:
    """Register, retrying while the League Manager cannot be reached.

    Raises:
        RemoteError: the League Manager answered with an error (LEAGUE_ERROR, HTTP error).
        pydantic.ValidationError: its answer is not a LEAGUE_REGISTER_RESPONSE.
        TransportError: still unreachable after ``give_up_after`` seconds.
    """
    request = registration_request(settings)
    result = await client.call_until_answered(
        settings.league_manager_url, "register_player", request,
        interval=settings.register_retry_sec, give_up_after=give_up_after,
    )
    response, _ = receive(LeagueRegisterResponse, result, "lenient", answer_defaults(
        LeagueRegisterResponse, sender="league_manager", conversation_id=request.conversation_id))
    return response

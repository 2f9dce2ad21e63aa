"""Registration with the League Manager: one LEAGUE_REGISTER_REQUEST conversation, sent
again and again until the League Manager registers this player or refuses it for good
(start-up order between processes is not guaranteed; ``sdk.registration`` says which
answers are which)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable

from players.config import AGENT_ID_PATTERN, PlayerSettings
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.messages import (
    PROTOCOL_VERSION,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    Method,
    PlayerMeta,
)
from sdk.registration import RegistrationDeferred, read_answer, register_until_settled

__all__ = ["PLAYER_VERSION", "register", "registration_request"]

PLAYER_VERSION = "1.0.0"
WHO = "this player"


def registration_request(
    settings: PlayerSettings, conversation_id: str | None = None
) -> LeagueRegisterRequest:
    """The request exactly as the protocol shows it; the sender is the display name until
    the League Manager issues an id."""
    return LeagueRegisterRequest(
        sender=f"player:{settings.display_name}",
        conversation_id=conversation_id or f"register-{uuid.uuid4().hex}",
        player_meta=PlayerMeta(
            display_name=settings.display_name,
            version=PLAYER_VERSION,
            game_types=list(settings.game_types),
            contact_endpoint=settings.contact_endpoint,
            protocol_version=PROTOCOL_VERSION,
        ),
    )


def _accepted(answer: dict[str, object], conversation_id: str) -> LeagueRegisterResponse:
    """An ACCEPTED answer with an id this player can use.

    Raises:
        RegistrationDeferred: an answer this player cannot use (unreadable, an unusable id).
        RegistrationRefused: REJECTED.
    """
    response = read_answer(LeagueRegisterResponse, answer, conversation_id, WHO)
    if not response.player_id or not re.fullmatch(AGENT_ID_PATTERN, response.player_id):
        raise RegistrationDeferred(
            f"the League Manager accepted this player with an "
            f"unusable player_id {response.player_id!r}"
        )
    return response


async def register(
    client: RpcClient, settings: PlayerSettings, *, log: AgentLog, on_problem: Callable[[str], None]
) -> LeagueRegisterResponse:
    """Register, waiting as long as it takes for the League Manager to come up and to
    answer something this player can use; ``on_problem`` hears why each attempt did not
    register.

    Raises:
        RegistrationRefused: it refused this player for good (REJECTED, or an error no
            retry changes: registration closed...).
    """
    conversation_id = f"register-{uuid.uuid4().hex}"
    return await register_until_settled(
        client,
        settings.league_manager_url,
        Method.REGISTER_PLAYER,
        lambda: registration_request(settings, conversation_id),
        lambda answer: _accepted(answer, conversation_id),
        interval=settings.register_retry_sec,
        policy=client.retry_policy,
        log=log,
        on_problem=on_problem,
        who=WHO,
    )

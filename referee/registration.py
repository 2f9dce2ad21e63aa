"""Registration with the League Manager: REFEREE_REGISTER_REQUEST until it registers this
referee, or refuses it for good (``sdk.registration`` says which answers are which)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

from referee.config import REFEREE_VERSION, RefereeSettings
from sdk.agent_log import AgentLog
from sdk.auth import PROOF_SCHEME
from sdk.client import RpcClient
from sdk.config import SharedDir
from sdk.errors import RegistrationRefused
from sdk.ids import is_safe_id
from sdk.messages import Method, RefereeMeta, RefereeRegisterRequest, RefereeRegisterResponse
from sdk.registration import RegistrationDeferred, read_answer, register_until_settled

__all__ = [
    "Registration",
    "RegistrationRefused",
    "referee_secret",
    "register_referee",
]


RETRY_INTERVAL_SEC = 1.0
"""Between calls while the League Manager does not answer."""
WHO = "this referee"


@dataclass(frozen=True)
class Registration:
    """What the League Manager issued: kept in memory only."""

    referee_id: str
    auth_token: str
    league_id: str | None
    proofs: bool = True
    """The League Manager proves its calls with proofs (it said ``auth_proofs``); False: a
    foreign one, which shows this referee its own token instead."""

    def __repr__(self) -> str:
        return f"Registration(referee_id={self.referee_id!r}, league_id={self.league_id!r})"


def referee_secret(settings: RefereeSettings) -> str | None:
    """The secret to register with: given, configured (``$LEAGUE_REFEREE_SECRET``,
    system.json), or the League Manager's file on this machine (read at each attempt: the
    League Manager may start after the referee)."""
    if settings.referee_secret is not None:
        return settings.referee_secret.get_secret_value()
    return SharedDir(settings.shared_dir).referee_secret(settings.league_id)


def _request(
    settings: RefereeSettings, sender: str, conversation_id: str
) -> RefereeRegisterRequest:
    return RefereeRegisterRequest(
        sender=sender,
        conversation_id=conversation_id,
        auth_token=referee_secret(settings),
        referee_meta=RefereeMeta(
            display_name=settings.display_name,
            version=REFEREE_VERSION,
            game_types=list(settings.game_types),
            contact_endpoint=settings.contact_endpoint,
            max_concurrent_matches=settings.max_concurrent_matches,
        ),
    )


def _registration(answer: dict[str, object], conversation_id: str) -> Registration:
    """What an ACCEPTED answer issued.

    Raises:
        RegistrationDeferred: an answer this referee cannot use (unreadable, an unusable
            id, no token).
        RegistrationRefused: REJECTED.
    """
    response = read_answer(RefereeRegisterResponse, answer, conversation_id, WHO)
    if not response.referee_id or not is_safe_id(response.referee_id):
        raise RegistrationDeferred(
            f"the League Manager issued an unusable referee_id {response.referee_id!r}"
        )
    if not response.auth_token:
        raise RegistrationDeferred(
            "the League Manager accepted this referee but sent no auth_token"
        )
    if response.league_id is not None and not is_safe_id(response.league_id):
        raise RegistrationDeferred(
            f"the League Manager sent an unusable league_id {response.league_id!r}"
        )
    return Registration(
        response.referee_id,
        response.auth_token,
        response.league_id,
        proofs=response.auth_proofs == PROOF_SCHEME,
    )


async def register_referee(
    client: RpcClient,
    settings: RefereeSettings,
    *,
    sender: str,
    log: AgentLog,
    on_problem: Callable[[str], None],
) -> Registration:
    """Register, waiting as long as it takes for the League Manager to come up and to
    answer something this referee can use; ``on_problem`` hears why each attempt did not
    register.

    Raises:
        RegistrationRefused: it refused this referee for good (REJECTED, or an error no
            retry changes: a wrong secret, registration closed...).
    """
    conversation_id = f"register:{uuid.uuid4().hex}"
    return await register_until_settled(
        client,
        settings.league_manager_url,
        Method.REGISTER_REFEREE,
        lambda: _request(settings, sender, conversation_id),
        lambda answer: _registration(answer, conversation_id),
        interval=RETRY_INTERVAL_SEC,
        policy=client.retry_policy,
        log=log,
        on_problem=on_problem,
        who=WHO,
    )

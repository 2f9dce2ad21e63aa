"""Registration of referees and players: who may join, the same agent registering again
(a lost answer costs one retry), the referee secret and the per-address limit. An agent
is answered ACCEPTED only once its registration is on disk (the registry's journal)."""

from __future__ import annotations

from collections.abc import Callable

from league_manager.agents import AgentKind, AgentRegistry, RegisteredAgent
from league_manager.answers import Answer
from league_manager.records import LeagueStatus
from league_manager.registration_limit import RegistrationLimit
from league_manager.registry_files import REGISTRY_JOURNAL
from league_manager.schedule_book import ScheduleBook
from league_manager.upkeep import Upkeep
from sdk.auth import PROOF_SCHEME, secret_matches
from sdk.config import LeagueConfig
from sdk.errors import ErrorCode, ProtocolError
from sdk.jsonrpc import caller_address
from sdk.messages import (
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    PlayerMeta,
    RefereeMeta,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
)
from sdk.store import StoreError

__all__ = ["Registrar"]


class Registrar:
    """Answers registrations; ``joined`` is told of each agent accepted (its room made,
    the league started once enough have joined)."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        schedule: ScheduleBook,
        agents: AgentRegistry,
        upkeep: Upkeep,
        limit: RegistrationLimit,
        referee_secret: str,
        referee_secret_env: str,
        joined: Callable[[RegisteredAgent], None],
        event: Callable[..., None],
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._schedule = schedule
        self._agents = agents
        self._upkeep = upkeep
        self._limit = limit
        self._referee_secret = referee_secret
        self._referee_secret_env = referee_secret_env
        self._joined = joined
        self._event = event

    def _registration_refusal(self, kind: AgentKind, meta: RefereeMeta | PlayerMeta) -> str | None:
        game_types = meta.game_types
        if self._schedule.status == LeagueStatus.COMPLETED:
            return "the league has completed"
        if kind == "player" and self._schedule.status != LeagueStatus.REGISTRATION:
            return "registration is closed: the league's schedule is fixed"
        if self._config.game_type not in game_types:
            return (
                f"this league plays {self._config.game_type!r}; game_types "
                f"{game_types} does not include it"
            )
        namesake = self._agents.find_by_name(kind, meta.display_name)
        if namesake is not None:
            return (
                f"the display name {meta.display_name!r} is taken by "
                f"{namesake.agent_id}; register under another"
            )
        if kind == "player" and self._agents.count("player") >= self._config.max_players:
            return f"the league is full ({self._config.max_players} players)"
        return None

    def check_referee_secret(
        self, presented: str | None, purpose: str = "registering a referee"
    ) -> None:
        """Referees (and the play service) are the operator's: ``purpose`` takes the
        league's referee secret.

        Raises:
            ProtocolError: E011 none was sent, E012 a wrong one.
        """
        hint = (
            "the operator gets it with 'league referee-secret' and gives it to the "
            "referee with --referee-secret or $" + self._referee_secret_env
        )
        if not presented:
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_MISSING,
                f"{purpose} needs the league's referee secret in auth_token; {hint}",
            )
        if not secret_matches(presented, self._referee_secret):
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_INVALID, f"the referee secret is wrong; {hint}"
            )

    def _repeated(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, key: str, presented: str | None
    ) -> tuple[RegisteredAgent | None, str | None]:
        """An agent registering again at its endpoint: (it, None) when this is the same
        agent (same kind and name, and it repeats its registration's key or shows its
        token; a referee has shown the secret already), (None, why not) when the endpoint
        belongs to someone else, (None, None) when the endpoint is new."""
        existing = self._agents.find_by_endpoint(meta.contact_endpoint)
        if existing is None:
            return None, None
        same_name = self._agents.find_by_name(kind, meta.display_name) is existing
        if (
            existing.kind == kind
            and same_name
            and (
                kind == "referee"
                or self._agents.same_registration(existing.agent_id, key)
                or self._agents.holds_token(existing.agent_id, presented)
            )
        ):
            return existing, None
        if existing.kind != kind or not same_name:
            return None, (f"{meta.contact_endpoint} is already registered as {existing.agent_id}")
        return None, (
            f"{meta.contact_endpoint} is already registered as {existing.agent_id}; "
            "a retry of a registration whose answer was lost must repeat its "
            "conversation_id, or send the auth_token it was given"
        )

    async def register_referee(self, request: RefereeRegisterRequest) -> RefereeRegisterResponse:
        self.check_referee_secret(request.auth_token)
        agent, token, refusal, wait = await self._register(
            "referee", request.referee_meta, request.conversation_id, request.auth_token
        )
        common: Answer = {
            "sender": self._sender,
            "league_id": self._league_id,
            "conversation_id": request.conversation_id,
        }
        if agent is None:
            return RefereeRegisterResponse(
                status="REJECTED", reason=refusal, retry_after_sec=wait, **common
            )
        self._joined(agent)
        return RefereeRegisterResponse(
            status="ACCEPTED",
            referee_id=agent.agent_id,
            auth_token=token,
            auth_proofs=PROOF_SCHEME,
            **common,
        )

    async def register_player(self, request: LeagueRegisterRequest) -> LeagueRegisterResponse:
        agent, token, refusal, wait = await self._register(
            "player", request.player_meta, request.conversation_id, request.auth_token
        )
        common: Answer = {
            "sender": self._sender,
            "league_id": self._league_id,
            "conversation_id": request.conversation_id,
        }
        if agent is None:
            return LeagueRegisterResponse(
                status="REJECTED", reason=refusal, retry_after_sec=wait, **common
            )
        self._joined(agent)
        return LeagueRegisterResponse(
            status="ACCEPTED",
            player_id=agent.agent_id,
            auth_token=token,
            auth_proofs=PROOF_SCHEME,
            **common,
        )

    async def _register(
        self,
        kind: AgentKind,
        meta: RefereeMeta | PlayerMeta,
        conversation_id: str,
        presented: str | None,
    ) -> tuple[RegisteredAgent | None, str | None, str | None, float | None]:
        """(agent, token, None, None) when accepted, (None, None, reason, wait) when
        refused, ``wait`` the seconds after which to register again when that may help
        (the per-address limit), else None. An agent is answered once its registration is
        kept (an agent registering again, once its first registration is). Decided again
        where the store held a namesake or the endpoint unknown here (another League
        Manager registered it): the answer is the one it would have had here.

        Raises:
            ProtocolError: E022 the registration could not be kept.
        """
        address = caller_address()
        key = f"{address}|{conversation_id}"
        flood = self._limit.refusal(address)  # every attempt counts, a retry too
        if flood:
            return self._refused(kind, meta, flood[0], round(flood[1], 1))
        while True:
            agent, refusal = self._decide(kind, meta, key, presented)
            if refusal is not None:
                return self._refused(kind, meta, refusal, None)
            try:
                if agent is not None:
                    await self._agents.durable()
                    return agent, self._agents.token_of(agent.agent_id), None, None
                registered = await self._agents.register(kind, meta, key)
            except (OSError, StoreError) as exc:
                raise self._unrecorded(exc) from None
            if registered is not None:
                agent, token = registered
                self._event(
                    f"{kind}_registered",
                    agent_id=agent.agent_id,
                    display_name=agent.display_name,
                    endpoint=agent.contact_endpoint,
                    capacity=agent.max_concurrent_matches,
                )
                return agent, token, None, None

    def _refused(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, reason: str, wait: float | None
    ) -> tuple[None, None, str, float | None]:
        self._event(
            "registration_rejected", kind=kind, endpoint=meta.contact_endpoint, reason=reason
        )
        return None, None, reason, wait

    def _unrecorded(self, exc: BaseException) -> ProtocolError:
        self._upkeep.failed(REGISTRY_JOURNAL, exc)
        return ProtocolError(
            ErrorCode.SERVICE_UNAVAILABLE,
            "the League Manager cannot record a registration now (it cannot write its "
            "registry); register again later, with the same conversation_id",
        )

    def _decide(
        self, kind: AgentKind, meta: RefereeMeta | PlayerMeta, key: str, presented: str | None
    ) -> tuple[RegisteredAgent | None, str | None]:
        """(agent, None) for the same agent registering again (it gets its id and token
        back, so a lost answer costs one retry; ``key`` is the conversation and the
        caller's address), (None, reason) when refused, (None, None) for a new agent."""
        again, refusal = self._repeated(kind, meta, key, presented)
        if again is not None:
            self._event(
                "registration_repeated",
                kind=kind,
                agent_id=again.agent_id,
                endpoint=again.contact_endpoint,
            )
            return again, None
        return None, refusal or self._registration_refusal(kind, meta)

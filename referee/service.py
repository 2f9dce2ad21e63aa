"""The referee as one object: its settings, log, client, registration and running matches.

``start`` (registration in the background) and ``stop`` (cancel matches, close the client
and the log) are what the app's lifespan calls; tests call them directly. A registration
the League Manager refuses for good trips ``exit_switch``: the process ends, saying why.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any, Literal

import httpx
from pydantic import BaseModel

from match_engine.decisions import DecisionLog
from match_engine.match_file import MatchFile
from match_engine.plan import MatchPlan, match_seed
from match_engine.remote import RemotePlayers
from match_engine.rules import GameRules, load_rules
from referee.config import RefereeSettings
from referee.match import LeagueReport, referee_match
from referee.matches import LaunchedMatch, RefereeMatches
from referee.registration import Registration, RegistrationRefused, register_referee
from sdk.agent_log import AgentLog
from sdk.auth import league_manager_proof, secret_matches, token_digest, token_matches
from sdk.client import RpcClient
from sdk.config import ConfigError, ScoringConfig, SharedDir
from sdk.errors import ErrorCode, FileSystemError, ProtocolError
from sdk.messages import Communication, MatchSeat
from sdk.registration import RegistrationState
from sdk.service import ExitSwitch, announce
from sdk.tolerance import ProtocolMode

__all__ = ["RefereeService", "RefereeState", "RefereeStatus"]

RefereeState = Literal["INIT", "REGISTERED", "ACTIVE", "SHUTDOWN"]


class RefereeStatus(BaseModel):
    """What ``GET /status`` shows."""

    referee_id: str | None
    display_name: str
    state: RefereeState
    league_id: str | None
    game_types: list[str]
    running_matches: list[str]
    finished_matches: int
    capacity: int
    registration: RegistrationState
    registration_error: str | None
    """Why this referee is not registered (None once it is, or standalone)."""
    league_completed: bool


class RefereeService:
    """One referee process."""

    def __init__(
        self, settings: RefereeSettings, *, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.settings = settings
        self.shared = SharedDir(settings.shared_dir)
        self.system = self.shared.system()
        self.rules: dict[str, GameRules] = {
            game_type: load_rules(self.shared, game_type) for game_type in settings.game_types
        }
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", settings.display_name).strip("_") or "referee"
        self._initial_id = f"referee-{slug}-{settings.port}"
        self.log = AgentLog(self.shared.agent_log_path(self._initial_id), self._initial_id)
        try:  # before serving: a log the file system refuses (a full disk) stops the start
            self.log.log.info(
                "referee_starting",
                endpoint=settings.contact_endpoint,
                game_types=settings.game_types,
                capacity=settings.max_concurrent_matches,
            )
        except FileSystemError:
            self.log.close()
            raise
        self.client = RpcClient(self.system, self.log, transport=transport)
        admin_token = self.system.security.configured_admin_token()
        self._admin_digest = token_digest(admin_token) if admin_token else None
        self._registration: Registration | None = None
        self.registration = RegistrationState(
            status="PENDING" if settings.join_league else "DISABLED"
        )
        self._registration_task: asyncio.Task[None] | None = None
        self.registration_settled = asyncio.Event()
        """Set once registered, or refused for good."""
        self.exit_switch = ExitSwitch()
        self._state: RefereeState = "INIT"
        self._league_completed = False
        self._terms: dict[str, tuple[ScoringConfig, ProtocolMode]] = {}
        self.matches = RefereeMatches(settings.max_concurrent_matches, self.log)
        self._decisions: dict[str, DecisionLog | None] = {}
        """Each league's decisions journal, opened at its first match (None: it could not
        be made, and the league's match files are written when decided as well)."""

    # -- identity and state ---------------------------------------------------------

    @property
    def referee_id(self) -> str | None:
        return self._registration.referee_id if self._registration else None

    @property
    def agent_id(self) -> str:
        return self.referee_id or self._initial_id

    @property
    def state(self) -> RefereeState:
        return self._state

    def sender(self) -> str:
        """``referee:<id>`` once registered, ``referee:<display name>`` before."""
        return f"referee:{self.referee_id or self.settings.display_name}"

    def _set_state(self, state: RefereeState) -> None:
        if state != self._state:
            self._state = state
            self.log.log.info("referee_state", state=state)

    def status(self) -> RefereeStatus:
        return RefereeStatus(
            referee_id=self.referee_id,
            display_name=self.settings.display_name,
            state=self._state,
            league_id=self._registration.league_id if self._registration else None,
            game_types=list(self.settings.game_types),
            running_matches=self.matches.running_ids,
            finished_matches=self.matches.finished_count,
            capacity=self.settings.max_concurrent_matches,
            registration=self.registration,
            registration_error=self.registration.reason,
            league_completed=self._league_completed,
        )

    # -- start and stop -------------------------------------------------------------

    async def start(self) -> None:
        """Register in the background (the HTTP side is up at once), or run standalone."""
        if self.settings.join_league:
            self._registration_task = asyncio.create_task(self._register())
        else:
            self.registration_settled.set()
            self._set_state("ACTIVE")

    def _registration_problem(self, reason: str) -> None:
        self.registration = RegistrationState(status="PENDING", reason=reason)

    async def _register(self) -> None:
        """Register until registered; refused for good, end the process (``exit_switch``)."""
        try:
            registration = await register_referee(
                self.client,
                self.settings,
                sender=self.sender(),
                log=self.log,
                on_problem=self._registration_problem,
            )
        except RegistrationRefused as exc:
            self.registration = RegistrationState(status="REJECTED", reason=str(exc))
            self.exit_switch.trip(exc)
        else:
            self.registration = RegistrationState(status="ACCEPTED")
            self._registration = registration
            self.log.rename(
                self.shared.agent_log_path(registration.referee_id), registration.referee_id
            )
            self.log.log.info(
                "registered", referee_id=registration.referee_id, league_id=registration.league_id
            )
            announce(
                f"Referee {self.settings.display_name} registered as "
                f"{registration.referee_id} in league {registration.league_id}"
            )
            self._set_state("REGISTERED")
        self.registration_settled.set()

    async def stop(self) -> None:
        """Cancel what runs (each match writes itself down first), then close client and log."""
        self._set_state("SHUTDOWN")
        if self._registration_task is not None:
            self._registration_task.cancel()
            await asyncio.gather(self._registration_task, return_exceptions=True)
        await self.matches.cancel_all()
        for decisions in self._decisions.values():
            if decisions is not None:
                await decisions.close()
        await self.client.aclose()
        self.log.log.info("referee_stopped")
        self.log.close()

    # -- matches --------------------------------------------------------------------

    def _decisions_of(self, league_id: str) -> DecisionLog | None:
        if league_id not in self._decisions:
            folder = self.shared.match_path(league_id, "any").parent
            try:
                opened = DecisionLog(folder, self.agent_id, self.log)
            except OSError as exc:
                self.log.log.error("decisions_unavailable", folder=str(folder), reason=str(exc))
                self._decisions[league_id] = None
            else:
                opened.sweep()
                self._decisions[league_id] = opened
        return self._decisions[league_id]

    def _terms_of(self, league_id: str) -> tuple[ScoringConfig, ProtocolMode]:
        """The league's scoring and protocol mode; without its config file (a standalone
        match), the protocol's scoring and a lenient mode."""
        if league_id not in self._terms:
            try:
                config = self.shared.league(league_id)
                self._terms[league_id] = (config.scoring, config.protocol_mode)
            except ConfigError as exc:
                self.log.log.warning("default_league_terms", league_id=league_id, reason=str(exc))
                self._terms[league_id] = (ScoringConfig(), "lenient")
        return self._terms[league_id]

    def protocol_mode(self) -> ProtocolMode:
        """The mode of the league this referee serves (the one it registered in, else the
        one it was started for, else system.json's default), in which its /mcp endpoint
        reads the League Manager's messages: a strict league refuses a variant (E002 for
        the League Manager's other sender form), a lenient one notes it."""
        league_id = (
            (self._registration.league_id if self._registration else None)
            or self.settings.league_id
            or self.system.default_league_id
        )
        return self._terms_of(league_id)[1]

    def launch(
        self,
        *,
        league_id: str,
        round_id: int,
        match_id: str,
        game_type: str,
        seats: list[MatchSeat],
        seed: int | None,
        report: bool,
        game_params: Mapping[str, Any] | None = None,
        communication: Communication | None = None,
        proofs: Mapping[str, str] | None = None,
        assignment: int | None = None,
    ) -> LaunchedMatch:
        """Check and start one match as its own task; returns at once.

        Raises:
            ProtocolError: E019 a game this referee does not run, or a refusal of
                ``RefereeMatches.check`` (E002, E015, E017).
        """
        if game_type not in self.rules:
            raise ProtocolError(
                ErrorCode.UNSUPPORTED_GAME_TYPE,
                f"this referee runs {', '.join(self.rules)}, not {game_type!r}",
            )
        seated = self.matches.check(league_id, match_id, seats, assignment)
        players = [seat.player_id for seat in seated]
        spec = self.rules[game_type].spec
        if not spec.min_players <= len(players) <= spec.max_players:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                f"{game_type} is played by {spec.min_players} to "
                f"{spec.max_players} players, not {len(players)}",
            )
        params = dict(game_params or {})
        try:
            spec.create(players, **params)
        except ValueError as exc:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE, f"game_params for {game_type}: {exc}"
            ) from None
        scoring, protocol_mode = self._terms_of(league_id)
        plan = MatchPlan(
            league_id=league_id,
            round_id=round_id,
            match_id=match_id,
            game_type=game_type,
            seats=seated,
            seed=match_seed(seed, match_id),
            scoring=scoring,
            protocol_mode=protocol_mode,
            game_params=params,
            communication=communication or Communication(),
            proofs=dict(proofs or {}),
            assignment=assignment,
        )
        report_to = None
        if report and self._registration is not None:
            report_to = LeagueReport(
                self.settings.league_manager_url, self._registration.auth_token
            )
        record = MatchFile(
            self.shared.match_path(league_id, match_id),
            match_id=match_id,
            league_id=league_id,
            round_id=round_id,
            game_type=game_type,
            referee_id=self.agent_id,
            conversation_id=plan.conversation_id,
            seats=list(seated),
            report_status="pending" if report_to else "not_required",
            assignment=assignment,
            decisions=self._decisions_of(league_id),
        )
        match = referee_match(
            RemotePlayers(
                plan,
                self.rules[game_type],
                client=self.client,
                system=self.system,
                log=self.log,
                record=record,
                sender=self.sender(),
            ),
            report_to,
        )
        launched = self.matches.start(record, match)
        self.log.log.info(
            "match_started",
            match_id=match_id,
            league_id=league_id,
            round_id=round_id,
            players=players,
        )
        return launched

    def check_league_proof(self, proof: str | None, league_id: str, conversation_id: str) -> None:
        """The League Manager proves itself to this referee with a proof made from the
        referee's token for the call's conversation (``sdk.auth``), never with the token;
        a foreign one that issues no proofs, with this referee's own token.

        Raises:
            ProtocolError: E013 not registered yet, E011 no proof, E012 a wrong one.
        """
        if self._registration is None:
            raise ProtocolError(
                ErrorCode.REFEREE_NOT_REGISTERED,
                "this referee is not registered with a League Manager",
            )
        if not proof:
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_MISSING,
                "the message carries no auth_token: only the League Manager "
                "this referee registered with may send it",
            )
        token = self._registration.auth_token
        if not self._registration.proofs:  # a foreign League Manager shows our own token
            if not secret_matches(proof, token):
                raise ProtocolError(
                    ErrorCode.AUTH_TOKEN_INVALID, "the auth_token is not this referee's"
                )
            return
        if not secret_matches(proof, league_manager_proof(token, league_id, conversation_id)):
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_INVALID,
                "the auth_token is not the League Manager's proof for this conversation",
            )

    def mark_active(self) -> None:
        if self._state == "REGISTERED":
            self._set_state("ACTIVE")

    def mark_league_completed(self, league_id: str) -> None:
        self._league_completed = True
        self.log.log.info("league_completed", league_id=league_id)

    # -- admin ----------------------------------------------------------------------

    @property
    def admin_enabled(self) -> bool:
        return self._admin_digest is not None

    def admin_token_matches(self, presented: str) -> bool:
        return self._admin_digest is not None and token_matches(presented, self._admin_digest)

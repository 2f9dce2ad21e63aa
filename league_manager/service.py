"""The League Manager's state and the rules of what it accepts: registrations, result
reports, queries and the admin's start. The round flow lives in ``rounds.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypedDict

import httpx

from league_manager.admin import AdminError, LeagueControl
from league_manager.agents import AgentKind, AgentRegistry, AgentState, RegisteredAgent
from league_manager.alarms import Alarms
from league_manager.assignments import AssignmentNumbers
from league_manager.book import (
    LeagueBook,
    LeagueStatus,
    MatchRecord,
    ResultRecord,
    ScheduleRecipe,
)
from league_manager.config import LeagueManagerSettings
from league_manager.credentials import secret_file
from league_manager.registration_limit import RegistrationLimit
from league_manager.rounds import RoundRunner
from league_manager.standings import outcomes_of
from league_manager.suspension import PlayerHealth
from league_manager.upkeep import JOURNAL, Upkeep
from sdk.agent_log import AgentLog
from sdk.auth import PROOF_SCHEME, secret_matches
from sdk.client import RpcClient
from sdk.config import ConfigError, SharedDir
from sdk.connections import ConnectionGuard
from sdk.errors import ErrorCode, ProtocolError
from sdk.jsonrpc import caller_address
from sdk.messages import (
    LeagueQuery,
    LeagueQueryResponse,
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    LeagueStandings,
    MatchResult,
    MatchResultAck,
    MatchResultReport,
    Outcome,
    PlayerMeta,
    QueryType,
    RefereeMeta,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
)
from sdk.store import StoreError
from sdk.timeutil import utc_now_str

__all__ = ["AdminError", "LeagueManager"]


class _Answer(TypedDict):
    """The envelope fields an answer of the League Manager shares with its request."""

    sender: str
    conversation_id: str
    league_id: str


class _MatchAnswer(_Answer):
    match_id: str


class _QueryAnswer(_Answer):
    query_type: QueryType


class LeagueManager:
    """One league: who registered, the schedule, the results and the standings."""

    def __init__(
        self, settings: LeagueManagerSettings, *, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.listeners: list[Callable[[str, dict[str, Any]], None]] = []
        """Called with every event's name and data, after it is logged (the dashboard's
        live stream); a listener must return at once and never raise."""
        self.shared = SharedDir(settings.shared_dir)
        self.system = self.shared.system()
        league_id = settings.league_id or self.system.default_league_id
        self.config = self.shared.league(league_id)
        games = self.shared.games().games
        if self.config.game_type not in games:
            raise ConfigError(
                f"league {league_id}: game_type {self.config.game_type!r} is not in "
                f"games_registry.json (known: {', '.join(sorted(games))})"
            )
        self.game = games[self.config.game_type]
        self.players_per_match = self._players_per_match(league_id)
        self.league_id = league_id
        self.sender = self.system.league_manager_sender
        self.auto_start_players = settings.auto_start_players or self.config.auto_start_players
        self._open_files(league_id)
        self.alarms = Alarms(self.event)
        self.upkeep = Upkeep(self, self.shared.league_dir(league_id))
        self.client = RpcClient(self.system, self.log, transport=transport)
        self.connections = ConnectionGuard(
            self.system.http.max_server_connections, self.system.http.request_timeout_sec
        )
        self.health = PlayerHealth(self, self.config.suspend_after_failures)
        self.registrations = RegistrationLimit(self.config.registrations_per_minute)
        self.runner = RoundRunner(self, settings.max_broadcast_concurrency)
        self._run_task: asyncio.Task[None] | None = None

    def _open_files(self, league_id: str) -> None:
        """Open the logs and the league's data files, recovering what a crash damaged. The
        first records are written here, so a full disk stops the start, not the first
        request; a start that fails closes what it opened.

        Raises:
            StoreError: a data file that cannot be recovered.
            FileSystemError: the file system refuses one (read-only, full, a directory in
                the way).
        """
        league_dir = self.shared.league_dir(league_id)
        with ExitStack() as opened:
            self.log = AgentLog(self.shared.agent_log_path("league_manager"), "league_manager")
            opened.callback(self.log.close)
            self.league_log = AgentLog(self.shared.league_log_path(league_id), "league_manager")
            opened.callback(self.league_log.close)
            self.event("league_manager_starting", data_dir=str(league_dir))
            self.agents = AgentRegistry(
                league_dir,
                league_id,
                self.system.security.token_bytes,
                league_files=(league_dir / "journal.jsonl", league_dir / "rounds.json"),
            )
            self.book = LeagueBook(
                league_dir,
                league_id,
                self.config.scoring,
                ScheduleRecipe(
                    [(p.agent_id, p.display_name) for p in self.agents.of_kind("player")],
                    self.players_per_match,
                    self.config.rounds,
                ),
            )
            opened.callback(self.book.close)
            self.assignments = AssignmentNumbers(league_dir, league_id)
            self.control = LeagueControl(self, league_dir)
            for note in (
                self.agents.recovery_notes
                + self.book.recovery_notes
                + self.assignments.recovery_notes
                + self.control.recovery_notes
            ):
                self.event("data_file_recovered", detail=note)
            security = self.system.security
            self.admin_token = security.configured_admin_token() or self._secret_file(
                self.shared.admin_token_path(league_id), "admin_token_written"
            )
            self.referee_secret = security.configured_referee_secret() or self._secret_file(
                self.shared.referee_secret_path(league_id), "referee_secret_written"
            )
            opened.pop_all()  # started: the files stay open until shutdown

    def _players_per_match(self, league_id: str) -> int:
        """The league's match size: configured, or the fewest the game allows."""
        game, wanted = self.game, self.config.players_per_match
        size = wanted or max(2, game.min_players)
        if not game.min_players <= size <= game.max_players:
            raise ConfigError(
                f"league {league_id}: players_per_match {size} is outside what "
                f"{self.config.game_type} allows ({game.min_players} to {game.max_players})"
            )
        return size

    def _secret_file(self, path: Path, event: str) -> str:
        """A secret kept in a 0600 file beside the league's data, made at the first start
        (``league`` commands on this machine read it from there)."""
        secret, made = secret_file(path, self.system.security.token_bytes)
        if made:
            self.log.log.info(event, path=str(path))
        return secret

    def event(self, name: str, **data: Any) -> None:
        """A league-level event, in the league log and the agent log."""
        self.league_log.log.info(name, league_id=self.league_id, data=data)
        self.log.log.info(name, data=data)
        for listener in self.listeners:
            listener(name, data)

    # -- lifecycle -----------------------------------------------------------------

    async def startup(self) -> None:
        """Start the watchdog; resume a league that was running when the process stopped."""
        self.upkeep.start()
        if self.book.status == LeagueStatus.RUNNING:
            self.event(
                "league_resumed",
                rounds_completed=self.book.rounds_completed(),
                results=len(self.book.results),
                paused=self.control.paused,
            )
            self._launch()

    async def shutdown(self) -> None:
        await self.upkeep.stop()
        if self._run_task is not None and not self._run_task.done():
            self._run_task.cancel()
            await asyncio.gather(self._run_task, return_exceptions=True)
        await self.runner.close()
        await self.client.aclose()
        self.book.close()
        self.log.close()
        self.league_log.close()

    def _launch(self) -> None:
        self._run_task = asyncio.create_task(self.runner.run(), name="league-rounds")

    async def wait_until_completed(self) -> None:
        if self._run_task is not None:
            await self._run_task

    # -- registration --------------------------------------------------------------

    def _registration_refusal(self, kind: AgentKind, meta: RefereeMeta | PlayerMeta) -> str | None:
        game_types = meta.game_types
        if self.book.status == LeagueStatus.COMPLETED:
            return "the league has completed"
        if kind == "player" and self.book.status != LeagueStatus.REGISTRATION:
            return "registration is closed: the league's schedule is fixed"
        if self.config.game_type not in game_types:
            return (
                f"this league plays {self.config.game_type!r}; game_types "
                f"{game_types} does not include it"
            )
        namesake = self.agents.find_by_name(kind, meta.display_name)
        if namesake is not None:
            return (
                f"the display name {meta.display_name!r} is taken by "
                f"{namesake.agent_id}; register under another"
            )
        if kind == "player" and self.agents.count("player") >= self.config.max_players:
            return f"the league is full ({self.config.max_players} players)"
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
            "referee with --referee-secret or $" + self.system.security.referee_secret_env
        )
        if not presented:
            raise ProtocolError(
                ErrorCode.AUTH_TOKEN_MISSING,
                f"{purpose} needs the league's referee secret in auth_token; {hint}",
            )
        if not secret_matches(presented, self.referee_secret):
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
        existing = self.agents.find_by_endpoint(meta.contact_endpoint)
        if existing is None:
            return None, None
        same_name = self.agents.find_by_name(kind, meta.display_name) is existing
        if (
            existing.kind == kind
            and same_name
            and (
                kind == "referee"
                or self.agents.same_registration(existing.agent_id, key)
                or self.agents.holds_token(existing.agent_id, presented)
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

    def register_referee(self, request: RefereeRegisterRequest) -> RefereeRegisterResponse:
        self.check_referee_secret(request.auth_token)
        agent, token, refusal, wait = self._register(
            "referee", request.referee_meta, request.conversation_id, request.auth_token
        )
        common: _Answer = {
            "sender": self.sender,
            "league_id": self.league_id,
            "conversation_id": request.conversation_id,
        }
        if agent is None:
            return RefereeRegisterResponse(
                status="REJECTED", reason=refusal, retry_after_sec=wait, **common
            )
        self.runner.add_referee(agent)
        self._auto_start()
        return RefereeRegisterResponse(
            status="ACCEPTED",
            referee_id=agent.agent_id,
            auth_token=token,
            auth_proofs=PROOF_SCHEME,
            **common,
        )

    def register_player(self, request: LeagueRegisterRequest) -> LeagueRegisterResponse:
        agent, token, refusal, wait = self._register(
            "player", request.player_meta, request.conversation_id, request.auth_token
        )
        common: _Answer = {
            "sender": self.sender,
            "league_id": self.league_id,
            "conversation_id": request.conversation_id,
        }
        if agent is None:
            return LeagueRegisterResponse(
                status="REJECTED", reason=refusal, retry_after_sec=wait, **common
            )
        self._auto_start()
        return LeagueRegisterResponse(
            status="ACCEPTED",
            player_id=agent.agent_id,
            auth_token=token,
            auth_proofs=PROOF_SCHEME,
            **common,
        )

    def _auto_start(self) -> None:
        """Start once the configured number of players and a referee have registered,
        whichever registration completes that; never fail the registration itself."""
        if (
            self.auto_start_players is None
            or self.book.status != LeagueStatus.REGISTRATION
            or self.agents.count("player") < self.auto_start_players
        ):
            return
        try:
            self.start(reason="auto_start")
        except AdminError as exc:
            self.event("auto_start_waiting", reason=exc.description)

    def _register(
        self,
        kind: AgentKind,
        meta: RefereeMeta | PlayerMeta,
        conversation_id: str,
        presented: str | None,
    ) -> tuple[RegisteredAgent | None, str | None, str | None, float | None]:
        """(agent, token, None, None) when accepted, (None, None, reason, wait) when
        refused, ``wait`` the seconds after which to register again when that may help
        (the per-address limit), else None. The same agent registering again gets its id
        and token back, so a lost answer costs one retry; its key is the conversation and
        the caller's address."""
        address = caller_address()
        key = f"{address}|{conversation_id}"
        flood = self.registrations.refusal(address)  # every attempt counts, a retry too
        again, refusal = (None, flood[0]) if flood else self._repeated(kind, meta, key, presented)
        if again is not None:
            self.event(
                "registration_repeated",
                kind=kind,
                agent_id=again.agent_id,
                endpoint=again.contact_endpoint,
            )
            return again, self.agents.token_of(again.agent_id), None, None
        refusal = refusal or self._registration_refusal(kind, meta)
        if refusal:
            self.event(
                "registration_rejected", kind=kind, endpoint=meta.contact_endpoint, reason=refusal
            )
            return None, None, refusal, round(flood[1], 1) if flood else None
        try:
            agent, token = self.agents.add(kind, meta, key)
        except (OSError, StoreError) as exc:
            self.upkeep.failed("agents.json", exc)
            raise ProtocolError(
                ErrorCode.SERVICE_UNAVAILABLE,
                "the League Manager cannot record a registration now (it "
                "cannot write agents.json); nothing was recorded: register "
                "again later",
            ) from None
        self.event(
            f"{kind}_registered",
            agent_id=agent.agent_id,
            display_name=agent.display_name,
            endpoint=agent.contact_endpoint,
            capacity=agent.max_concurrent_matches,
        )
        return agent, token, None, None

    def set_state(self, agent_id: str, state: AgentState) -> None:
        self.set_states([agent_id], state)

    def set_states(self, agent_ids: list[str], state: AgentState) -> None:
        """Change agents' states, saving the registry once for all of them."""
        changed = [agent_id for agent_id in agent_ids if self.agents.set_state(agent_id, state)]
        if changed:
            self.upkeep.persist("agents.json", self.agents.save)  # if not now, once it can
        for agent_id in changed:
            self.event("agent_state", agent_id=agent_id, state=state)

    # -- starting ------------------------------------------------------------------

    def check_admin(self, authorization: str | None) -> None:
        """Constant-time check of ``Authorization: Bearer <admin token>``."""
        scheme, _, presented = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not presented:
            raise AdminError(401, "this action needs 'Authorization: Bearer <admin token>'")
        if not secret_matches(presented.strip(), self.admin_token):
            raise AdminError(403, "the admin token is wrong")

    def create_schedule(self) -> dict[str, Any]:
        """Close registration and fix the schedule."""
        if self.book.status != LeagueStatus.REGISTRATION:
            raise AdminError(
                409, f"the schedule exists already (the league is {self.book.status.value})"
            )
        players = self.agents.of_kind("player")
        needed = max(self.players_per_match, self.config.min_players)
        if len(players) < needed:
            raise AdminError(
                409, f"{len(players)} player(s) registered; the league needs at least {needed}"
            )
        self.book.create_schedule(
            [(p.agent_id, p.display_name) for p in players],
            self.players_per_match,
            self.config.rounds,
        )
        self.set_states([player.agent_id for player in players], "ACTIVE")
        self.event(
            "schedule_created",
            players=len(players),
            rounds=len(self.book.rounds),
            matches=self.book.total_matches,
        )
        return self.book.schedule_document()

    def start(self, reason: str = "admin") -> dict[str, Any]:
        """Fix the schedule if needed and start playing rounds in the background."""
        if self.book.status in (LeagueStatus.RUNNING, LeagueStatus.COMPLETED):
            raise AdminError(409, f"the league is already {self.book.status.value}")
        if not self.agents.count("referee"):
            raise AdminError(409, "no referee has registered; start at least one referee first")
        if self.book.status == LeagueStatus.REGISTRATION:
            self.create_schedule()
        self.book.status = LeagueStatus.RUNNING
        self.book.write_rounds()
        self.event(
            "league_started",
            reason=reason,
            rounds=len(self.book.rounds),
            matches=self.book.total_matches,
        )
        self._launch()
        return self.status()

    # -- results -------------------------------------------------------------------

    async def report_result(self, report: MatchResultReport) -> MatchResultAck:
        """Check a referee's report and count it; answered once its journal line is on
        disk (an fsync shared with the reports that arrived meanwhile). Only the referee
        that holds the match's current assignment may report it (a repeat of the counted
        report is a duplicate); a report of an assignment since given to another is
        refused and kept only as a note in the league log."""
        referee = self.agents.authenticate(report.sender, report.auth_token, "referee")
        match = self._reported_match(report)
        recorded = self.book.results.get(report.match_id)
        if recorded is None or recorded.referee_id != referee.agent_id:
            self._check_holder(match, referee.agent_id, report.assignment)
        return await self.take_result(match, referee.agent_id, report)

    def _check_holder(self, match: MatchRecord, referee_id: str, assignment: int | None) -> None:
        """Raises ProtocolError E014 unless ``referee_id`` holds the match under
        ``assignment`` (None: a referee that was given no number, judged by its id)."""
        current = match.assignment
        if referee_id == match.referee_id and assignment in (None, current):
            return
        held = f"it is held by {match.referee_id}" if match.referee_id else "it is not given out"
        if current is not None:
            held += f" under assignment {current}"
        if assignment is not None and referee_id in self.runner.referees_of(match.match_id):
            self.event(
                "report_superseded",
                match_id=match.match_id,
                referee_id=referee_id,
                assignment=assignment,
                holder=match.referee_id,
                current=current,
            )
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"match {match.match_id}: assignment {assignment} of "
                f"{referee_id} was superseded ({held}); this result is not "
                "counted: stop the match and tell its players nothing",
            )
        raise ProtocolError(
            ErrorCode.NOT_AUTHORIZED,
            f"match {match.match_id} is not {referee_id}'s to report: {held}",
        )

    def _reported_match(self, report: MatchResultReport) -> MatchRecord:
        if report.league_id != self.league_id:
            raise ProtocolError(
                ErrorCode.LEAGUE_NOT_FOUND,
                f"this League Manager runs {self.league_id!r}, not {report.league_id!r}",
            )
        match = self.book.match(report.match_id)
        if match is None:
            raise ProtocolError(
                ErrorCode.MATCH_NOT_FOUND, f"match {report.match_id!r} is not in the schedule"
            )
        return match

    async def take_result(
        self, match: MatchRecord, referee_id: str, report: MatchResultReport
    ) -> MatchResultAck:
        """Count a result of ``referee_id``'s (a report, or one the League Manager
        recovered from that referee), once.

        Raises:
            ProtocolError: E002 a report that does not fit the match.
        """
        common: _MatchAnswer = {
            "sender": self.sender,
            "conversation_id": report.conversation_id,
            "league_id": self.league_id,
            "match_id": report.match_id,
        }
        if report.match_id in self.book.results:
            await self.book.durable()  # the first report of it may still be on its way
            return MatchResultAck(status="DUPLICATE", **common)
        if report.round_id != match.round_id:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                f"match {match.match_id} belongs to round {match.round_id}, not {report.round_id}",
            )
        try:
            outcomes = outcomes_of(report.result, match.player_ids)
        except ValueError as exc:
            raise ProtocolError(ErrorCode.INVALID_FIELD_VALUE, str(exc)) from None
        await self._record(match, referee_id, outcomes, report.result.details)
        for player_id, outcome in outcomes.items():
            if outcome == "TECHNICAL_LOSS":
                self.health.failed(player_id, f"technical loss in {match.match_id}")
            else:
                self.health.answered(player_id)
        return MatchResultAck(status="RECORDED", **common)

    async def record_forfeit(self, match: MatchRecord, suspended: list[str]) -> bool:
        """Record a match of SUSPENDED or REMOVED players without playing it: they lose by
        technical loss, the others are decided as in any result with technical losers.
        False if it could not be journaled (the round flow tries again once it can)."""
        removed = [p for p in suspended if (a := self.agents.get(p)) and a.state == "REMOVED"]
        why = [f"{', '.join(removed)} REMOVED by the admin"] if removed else []
        if len(removed) < len(suspended):
            why.append(
                f"{', '.join(p for p in suspended if p not in removed)} SUSPENDED "
                f"after failing {self.config.suspend_after_failures} times in a row"
            )
        reason = f"not played: {'; '.join(why)}"
        result = MatchResult(
            winner=None,
            details={
                "status": "TECHNICAL_LOSS",
                "technical_losers": suspended,
                "reason": reason,
                "forfeit": True,
            },
        )
        self.event("match_forfeited", match_id=match.match_id, suspended=suspended)
        try:
            await self._record(
                match, self.sender, outcomes_of(result, match.player_ids), result.details
            )
        except ProtocolError:
            return False
        return True

    async def _record(
        self,
        match: MatchRecord,
        decided_by: str,
        outcomes: dict[str, Outcome],
        details: dict[str, Any],
    ) -> None:
        """Journal a result and count it; once it is on disk, the match's waiter learns it.
        (Counted at once, so a second report of it meanwhile is a duplicate.)

        Raises:
            ProtocolError: E022 the journal cannot be written (a full disk): the result is
                not acknowledged; a line that could not be written is not in the journal.
        """
        try:
            self.book.record(
                ResultRecord(
                    match_id=match.match_id,
                    round_id=match.round_id,
                    referee_id=decided_by,
                    outcomes=outcomes,
                    points={p: self.book.table.points_for(o) for p, o in outcomes.items()},
                    winner=next((p for p, o in outcomes.items() if o == "WIN"), None),
                    details=details,
                    recorded_at=utc_now_str(),
                ),
                sync=False,
            )
            await self.book.durable()
        except StoreError as exc:
            self.upkeep.failed(JOURNAL, exc)
            raise ProtocolError(
                ErrorCode.SERVICE_UNAVAILABLE,
                f"the League Manager cannot record the result of "
                f"{match.match_id} now ({exc}); it is not acknowledged: the "
                "League Manager asks its referee for it again once it can "
                "write",
            ) from None
        self.upkeep.written(JOURNAL)
        self.runner.result_arrived(match.match_id)
        self.event(
            "result_recorded", match_id=match.match_id, referee_id=decided_by, outcomes=outcomes
        )

    # -- queries -------------------------------------------------------------------

    def standings_message(self, conversation_id: str = "get_standings") -> LeagueStandings:
        document = self.book.standings_document(fresh=False)
        return LeagueStandings(
            sender=self.sender,
            conversation_id=conversation_id,
            league_id=self.league_id,
            version=document["version"],
            rounds_completed=document["rounds_completed"],
            standings=self.book.standings_rows(fresh=False),  # the same ranking as document
        )

    def query(self, request: LeagueQuery) -> LeagueQueryResponse:
        asker = self.agents.authenticate(request.sender, request.auth_token)
        self.health.answered(asker.agent_id)
        params = request.query_params
        common: _QueryAnswer = {
            "sender": self.sender,
            "conversation_id": request.conversation_id,
            "league_id": self.league_id,
            "query_type": request.query_type,
        }
        if request.query_type == "GET_STANDINGS":
            data: Any = self.book.standings_document(fresh=False)
        elif request.query_type == "GET_SCHEDULE":
            data = self._schedule_page(params)
        else:
            player_id = str(params.get("player_id") or asker.agent_id)
            if (agent := self.agents.get(player_id)) is None or agent.kind != "player":
                return LeagueQueryResponse(
                    success=False,
                    data=None,
                    error=f"{player_id!r} is not a registered player",
                    **common,
                )
            data = (
                self.runner.next_match_of(player_id)
                if request.query_type == "GET_NEXT_MATCH"
                else self.player_stats(player_id)
            )
        return LeagueQueryResponse(success=True, data=data, **common)

    def _schedule_page(self, params: dict[str, Any]) -> dict[str, Any]:
        """GET_SCHEDULE: one round (``round_id``) or a page from ``from_round`` on."""
        round_id = params.get("round_id")
        if isinstance(round_id, int) and not isinstance(round_id, bool):
            if not 1 <= round_id <= len(self.book.rounds):
                return self.book.schedule_document(len(self.book.rounds) + 1)
            return self.book.schedule_document(round_id, max_rounds=1)
        start = params.get("from_round")
        return self.book.schedule_document(
            start if isinstance(start, int) and not isinstance(start, bool) else 1
        )

    def player_stats(self, player_id: str) -> dict[str, Any]:
        """A player's record, rank and matches (O(its matches), never O(the league))."""
        matches = [
            {
                "match_id": res.match_id,
                "round_id": res.round_id,
                "outcome": res.outcomes[player_id],
                "points": res.points[player_id],
            }
            for res in self.book.results_of(player_id)
        ]
        agent = self.agents.get(player_id)
        rank = self.book.rank_of(player_id)
        if rank is None:
            return {
                "player_id": player_id,
                "state": agent.state if agent else None,
                "rank": None,
                "record": None,
                "matches": matches,
            }
        return {
            "player_id": player_id,
            "state": agent.state if agent else None,
            "rank": rank,
            "record": self.book.table.record(player_id).model_dump(),
            "matches": matches,
        }

    def status(self) -> dict[str, Any]:
        current = self.book.current_round()
        return {
            "league_id": self.league_id,
            "display_name": self.config.display_name,
            "game_type": self.config.game_type,
            "state": self.book.status.value,
            "paused": self.control.paused,
            "current_round": current.round_id
            if current and self.book.status == LeagueStatus.RUNNING
            else None,
            "total_rounds": len(self.book.rounds),
            "matches_completed": len(self.book.results),
            "total_matches": self.book.total_matches,
            "standings_version": self.book.standings_version,
            "referees": [self._agent_status(a) for a in self.agents.of_kind("referee")],
            "players": [self._agent_status(a) for a in self.agents.of_kind("player")],
            "health": self.alarms.health()["status"],
            "alarms": self.alarms.status(),
        }

    def _agent_status(self, agent: RegisteredAgent) -> dict[str, Any]:
        status = agent.model_dump(
            include={"agent_id", "display_name", "state", "contact_endpoint", "game_types"}
        )
        if agent.kind == "referee":
            status["max_concurrent_matches"] = agent.max_concurrent_matches
            status["running_matches"] = self.runner.running_on(agent.agent_id)
        return status

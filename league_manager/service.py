"""The League Manager: makes the league's parts, each given only what it uses, answers for
them, and keeps the admin's start and the status. The round flow lives in ``rounds.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx

from league_manager.admin import AdminError, LeagueControl, PlayerRemoval, check_admin_token
from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry, RegisteredAgent
from league_manager.alarms import Alarms
from league_manager.assignments import AssignmentNumbers
from league_manager.book import LeagueBook
from league_manager.config import LeagueManagerSettings, league_game
from league_manager.credentials import keep_secret, secret_file
from league_manager.fencing import Fencing, Numbers
from league_manager.handover import RefereeDesk
from league_manager.league_start import LeagueStart
from league_manager.league_status import league_status
from league_manager.match_flow import MatchFlow
from league_manager.news import LeagueNews
from league_manager.notifier import Notifier
from league_manager.peer_follow import PeerFollow
from league_manager.pg.store_url import redact_url
from league_manager.queries import LeagueQueries
from league_manager.records import LeagueStatus, ScheduleRecipe
from league_manager.referee_watch import RefereeWatch
from league_manager.registration import Registrar
from league_manager.registration_limit import RegistrationLimit
from league_manager.registry_files import AGENTS_FILE
from league_manager.results import ResultDesk
from league_manager.rounds import RoundRunner
from league_manager.shared_store import SecretName, SharedStore
from league_manager.suspension import PlayerHealth
from league_manager.upkeep import Upkeep
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import SharedDir
from sdk.connections import ConnectionGuard
from sdk.messages import (
    LeagueRegisterRequest,
    LeagueRegisterResponse,
    MatchResultAck,
    MatchResultReport,
    RefereeRegisterRequest,
    RefereeRegisterResponse,
)

__all__ = ["AdminError", "LeagueManager"]

FOLLOW_SEC = 0.5
"""How often a League Manager on a shared store asks for the agents and results of others."""
UNBOUNDED_PATHS = ("/health", "/status", "/events")
"""Paths whose requests are neither counted against ``http.max_requests_in_progress`` nor
timed: the health and status that must tell of a flood while it lasts (answered from
memory), and the dashboard's event stream, which never ends (bounded by its own count)."""


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
        self.game, self.players_per_match = league_game(self.shared, league_id, self.config)
        self.league_id = league_id
        self.sender = self.system.league_manager_sender
        self.auto_start_players = settings.auto_start_players or self.config.auto_start_players
        store_url = settings.store_url.get_secret_value() if settings.store_url else None
        self.store = (
            None
            if store_url is None
            else SharedStore(store_url, league_id, f"http://{settings.host}:{settings.port}")
        )
        """The PostgreSQL store (None: the league's JSON files)."""
        self._open_files(league_id, store_url)
        self.alarms = Alarms(self.event)
        self.client = RpcClient(self.system, self.log, transport=transport)
        self.connections = ConnectionGuard(self.system.http, unbounded_paths=UNBOUNDED_PATHS)
        self._build_parts(settings.max_broadcast_concurrency)
        self._run_task: asyncio.Task[None] | None = None

    def _build_parts(self, broadcast_concurrency: int) -> None:
        """Make the league's parts, each given only the collaborators it works with (no
        part holds the League Manager)."""
        control, event, config, agents = self.control, self.event, self.config, self.agents
        schedule, results, standings = self.schedule, self.results, self.standings
        self.upkeep = Upkeep(
            self.shared.league_dir(self.league_id),
            alarms=self.alarms,
            event=event,
            schedule=schedule,
            results=results,
            standings=standings,
            agents=agents,
            assignments=self.assignments,
            connections=self.connections,
            paused=lambda: control.paused,
            stall_after_sec=config.stall_after_sec,
            results_retry=None if self.store is None else results.durable,
            journal=self._journal,
        )
        self.states = AgentStates(agents, self.upkeep.persist, event)
        self.removal = PlayerRemoval(schedule, results, agents, self.states, event)
        self.health = PlayerHealth(
            agents,
            self.states,
            event,
            config.suspend_after_failures,
            shared=None if self.store is None else self.store.registry,
        )
        self.registrations = RegistrationLimit(config.registrations_per_minute)
        self.registrar = Registrar(
            league_id=self.league_id,
            sender=self.sender,
            config=config,
            schedule=schedule,
            agents=agents,
            upkeep=self.upkeep,
            limit=self.registrations,
            referee_secret=self.referee_secret,
            referee_secret_env=self.system.security.referee_secret_env,
            joined=self._joined,
            event=event,
        )
        store = self.store
        self.fencing = Fencing(
            self._numbers,
            self.upkeep,
            event,
            schedule.rounds,
            shared=None if store is None else store.leader_store,
            leading=lambda: store is None or store.leads(),
        )
        self.result_desk = ResultDesk(
            league_id=self.league_id,
            sender=self.sender,
            schedule=schedule,
            results=results,
            standings=standings,
            agents=agents,
            fencing=self.fencing,
            health=self.health,
            upkeep=self.upkeep,
            event=event,
            suspend_after_failures=config.suspend_after_failures,
            refresh=None if store is None else store.refresh,
        )
        watch = RefereeWatch(
            league_id=self.league_id,
            sender=self.sender,
            config=config,
            client=self.client,
            results=results,
            upkeep=self.upkeep,
            states=self.states,
            fencing=self.fencing,
            take_result=self.result_desk.take_result,
            event=event,
        )
        self.referees = RefereeDesk(
            league_id=self.league_id,
            sender=self.sender,
            config=config,
            client=self.client,
            agents=agents,
            standings=standings,
            states=self.states,
            fencing=self.fencing,
            watch=watch,
            event=event,
        )
        self.notifier = Notifier(
            self.client,
            self.health,
            event,
            concurrency=broadcast_concurrency,
            lenient=config.protocol_mode == "lenient",
            max_batch_bytes=self.system.http.max_body_bytes,
        )
        self._matches = matches = MatchFlow(
            retry_policy=self.system.retry_policy,
            results=results,
            desk=self.result_desk,
            referees=self.referees,
            control=control,
            upkeep=self.upkeep,
            health=self.health,
            event=event,
            unsettled=self._unsettled,
        )
        news = LeagueNews(
            league_id=self.league_id,
            sender=self.sender,
            config=config,
            schedule=schedule,
            standings=standings,
            agents=agents,
            notifier=self.notifier,
        )
        self.runner = RoundRunner(
            schedule=schedule,
            results=results,
            standings=standings,
            matches=matches,
            news=news,
            control=control,
            upkeep=self.upkeep,
            states=self.states,
            event=event,
        )
        self.starter = LeagueStart(
            config=config,
            players_per_match=self.players_per_match,
            auto_start_players=self.auto_start_players,
            schedule=schedule,
            standings=standings,
            agents=agents,
            states=self.states,
            event=event,
            launch=self._launch,
            drives=self.check_drives,
            shared=None if store is None else store.leader_store,
        )
        self.peers = (
            None
            if store is None
            else PeerFollow(
                agents.follow, self.result_desk.follow, self._joined, event, every_sec=FOLLOW_SEC
            )
        )
        """The look at the other League Managers' work on a shared store."""
        self.queries = LeagueQueries(
            league_id=self.league_id,
            sender=self.sender,
            schedule=schedule,
            results=results,
            standings=standings,
            agents=agents,
            health=self.health,
        )

    def _open_files(self, league_id: str, store_url: str | None) -> None:
        """Open the logs and the league's data files, recovering what a crash damaged, and
        the results in the PostgreSQL store at ``store_url`` (its schema upgraded first)
        where one is given. The first records are written here, so a full disk stops the
        start, not the first request; a start that fails closes what it opened.

        Raises:
            PgStoreError: the store cannot be used (the driver, the server, the database).
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
            self.event(
                "league_manager_starting",
                data_dir=str(league_dir),
                results_store=redact_url(store_url) if store_url else "journal.jsonl",
            )
            self.agents = AgentRegistry(
                league_dir,
                league_id,
                self.system.security.token_bytes,
                league_files=(league_dir / "journal.jsonl", league_dir / "rounds.json"),
                store=None if self.store is None else self.store.registry,
            )
            opened.callback(self.agents.close)
            read = None if self.store is None else self.store.read(league_dir / "journal.jsonl")
            book = LeagueBook.open(
                league_dir,
                league_id,
                self.config.scoring,
                ScheduleRecipe(
                    [(p.agent_id, p.display_name) for p in self.agents.of_kind("player")],
                    self.players_per_match,
                    self.config.rounds,
                ),
                read,
            )
            opened.callback(book.close)
            # The book's parts, each handed on alone to the parts that use it.
            self.schedule, self.results = book.schedule, book.results
            self.standings, self._unsettled = book.standings, book.unsettled
            self._journal = book.journal
            self._numbers: Numbers = (
                AssignmentNumbers(league_dir, league_id)
                if self.store is None
                else self.store.numbers
            )
            self.assignments = (
                self._numbers if isinstance(self._numbers, AssignmentNumbers) else None
            )
            self.control = LeagueControl(
                league_dir,
                league_id,
                self.schedule,
                self.event,
                **({} if self.store is None else self.store.pause_switch()),
            )
            for note in (
                self.agents.recovery_notes
                + book.recovery_notes
                + (self.assignments.recovery_notes if self.assignments else [])
                + self.control.recovery_notes
            ):
                self.event("data_file_recovered", detail=note)
            security = self.system.security
            self.admin_token = security.configured_admin_token() or self._secret_file(
                "admin_token", self.shared.admin_token_path(league_id)
            )
            self.referee_secret = security.configured_referee_secret() or self._secret_file(
                "referee_secret", self.shared.referee_secret_path(league_id)
            )
            opened.pop_all()  # started: the files stay open until shutdown

    def _secret_file(self, name: SecretName, path: Path) -> str:
        """A secret kept in a 0600 file beside the league's data, made at the first start
        (``league`` commands on this machine read it from there); on a shared store, the
        one the League Managers of the league agreed on (the first one's)."""
        secret, made = secret_file(path, self.system.security.token_bytes)
        if made:
            self.log.log.info(f"{name}_written", path=str(path))
        if self.store is not None:
            agreed = self.store.league_secret(name, secret)
            if agreed != secret:
                keep_secret(path, agreed)
            return agreed
        return secret

    def event(self, name: str, **data: Any) -> None:
        """A league-level event, in the league log (once: the agent log has the traffic;
        two lines each, a match's start and its result, were about 2 % of its CPU)."""
        self.league_log.log.info(name, league_id=self.league_id, data=data)
        for listener in self.listeners:
            listener(name, data)

    # -- lifecycle -----------------------------------------------------------------

    async def startup(self) -> None:
        """Start the watchdog; resume a league that was running when the process stopped."""
        self.upkeep.start()
        if self.store is not None and self.peers is not None:
            self.store.start(
                self.peers,
                schedule=self.schedule,
                results=self.results,
                standings=self.standings,
                fencing=self.fencing,
                matches=self._matches,
                control=self.control,
                launch=self._lead,
                stop=self._stop_rounds,
                event=self.event,
                alarms=self.alarms,
            )
        elif self.schedule.status == LeagueStatus.RUNNING:
            self.event(
                "league_resumed",
                rounds_completed=self.schedule.rounds_completed(),
                results=len(self.results),
                paused=self.control.paused,
            )
            self._launch()

    async def shutdown(self) -> None:
        await self.upkeep.stop()
        await self._stop_rounds()  # before the store closes: the rounds write to it
        if self.store is not None:
            await self.store.close()
        await self.notifier.close()
        await self.client.aclose()
        if self.agents.snapshot_due(at_once=True):
            self.upkeep.persist(AGENTS_FILE, self.agents.save)
        self.agents.close()
        self.results.close()
        self.log.close()
        self.league_log.close()

    def _launch(self) -> None:
        self._run_task = asyncio.create_task(self.runner.run(), name="league-rounds")

    async def _stop_rounds(self) -> None:
        if self._run_task is not None and not self._run_task.done():
            self._run_task.cancel()
            await asyncio.gather(self._run_task, return_exceptions=True)

    def _lead(self) -> None:
        """Elected to drive the rounds: run them, or start the league when it is due."""
        if self.schedule.status == LeagueStatus.RUNNING:
            self._launch()
        else:
            self._auto_start()

    async def wait_until_completed(self) -> None:
        if self._run_task is not None:
            await self._run_task

    # -- registration --------------------------------------------------------------

    async def register_referee(self, request: RefereeRegisterRequest) -> RefereeRegisterResponse:
        return await self.registrar.register_referee(request)

    async def register_player(self, request: LeagueRegisterRequest) -> LeagueRegisterResponse:
        return await self.registrar.register_player(request)

    def _joined(self, agent: RegisteredAgent) -> None:
        """A registration accepted: a referee gets its room for matches; the league
        starts once enough have joined."""
        if agent.kind == "referee":
            self.referees.add_referee(agent)
        self._auto_start()

    def _auto_start(self) -> None:
        if self.store is None or self.store.leads():  # else the leader starts it
            self.starter.auto_start()

    # -- starting ------------------------------------------------------------------

    def check_admin(self, authorization: str | None) -> None:
        check_admin_token(authorization, self.admin_token)

    def check_drives(self) -> None:
        """Raises AdminError 409 where another League Manager on the store drives the
        rounds: what changes their course is done there; 503 where none is known to lead
        yet (the first takes the lead within a campaign or two of starting)."""
        if self.store is None or self.store.leads():
            return
        if (leader := self.store.leader_named()) is None:
            raise AdminError(
                503,
                "no League Manager is known to lead this league's rounds yet (one takes the "
                "lead within seconds of starting): try again in a moment",
            )
        raise AdminError(
            409, f"this League Manager does not drive the league's rounds: send this to {leader}"
        )

    async def create_schedule(self) -> dict[str, Any]:
        return await self.starter.create_schedule()

    async def start(self, reason: str = "admin") -> dict[str, Any]:
        await self.starter.start(reason)
        return self.status()

    # -- results and the admin's switches --------------------------------------------

    async def report_result(self, report: MatchResultReport) -> MatchResultAck:
        return await self.result_desk.report_result(report)

    def pause(self) -> dict[str, Any]:
        """Stop handing out matches and starting rounds; running matches finish."""
        self.check_drives()
        self.control.pause(self.referees.running_matches())
        return self.status()

    def resume(self) -> dict[str, Any]:
        self.check_drives()
        self.control.resume()
        return self.status()

    def status(self, *, every_agent: bool = True) -> dict[str, Any]:
        return league_status(
            league_id=self.league_id,
            config=self.config,
            schedule=self.schedule,
            results=self.results,
            standings=self.standings,
            agents=self.agents,
            referees=self.referees,
            control=self.control,
            alarms=self.alarms,
            every_agent=every_agent,
        )

"""The player host: one strategy, the player's identity and history, and what each protocol
message does to them. ``handlers.py`` turns these into answers; ``app.py`` serves them."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import httpx

from players.callers import CallerCheck
from players.config import AGENT_ID_PATTERN, PlayerSettings
from players.errors import HistoryError
from players.history import PlayerHistory
from players.matches import MatchInfo, OpenMatches, record_of
from players.move_space import check_move_space
from players.registration import register
from players.reports import StatsReport, StatusReport, stats_report, status_report
from players.state import Lifecycle, PlayerState, Registration
from sdk.agent_log import AgentLog
from sdk.auth import redact
from sdk.client import RpcClient
from sdk.config import SharedDir
from sdk.errors import ErrorCode, FileSystemError, ProtocolError, RegistrationRefused
from sdk.messages import (
    ChooseParityCall,
    GameError,
    GameInvitation,
    GameMoveCall,
    GameOver,
    LeagueCompleted,
    Message,
    Method,
    RoundAnnouncement,
)
from sdk.service import ExitSwitch, announce
from strategies import PARITIES, MoveView, Record, build_strategy
from strategies.runner import Decision, StrategyRunner
from strategies.view import PastMatch

__all__ = ["PlayerHost"]


def _log_name(display_name: str) -> str:
    """A file-safe agent id for the log kept before the League Manager issues one."""
    return "player_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", display_name)


class PlayerHost:
    """Everything one player process holds; ``start``/``stop`` bracket its life."""

    def __init__(
        self, settings: PlayerSettings, *, transport: httpx.AsyncBaseTransport | None = None
    ):
        self.settings = settings
        self.shared = SharedDir(settings.shared_dir)
        self.system = self.shared.system()
        agent_id = settings.player_id or _log_name(settings.display_name)
        self.log = AgentLog(self.shared.agent_log_path(agent_id), agent_id)
        self.runner = StrategyRunner(
            build_strategy(settings.strategy, settings.strategy_options),
            self.log,
            margin_sec=settings.decision_margin_sec,
            max_budget_sec=self.system.timeout_for(Method.CHOOSE_PARITY),
        )
        self.history = PlayerHistory(display_name=settings.display_name, strategy=settings.strategy)
        self.matches = OpenMatches()
        self.state = PlayerState(
            registration=Registration(status="PENDING" if settings.join_league else "DISABLED")
        )
        self._transport = transport
        self._client: RpcClient | None = None
        self._auth_token: str | None = None
        self.callers = CallerCheck()
        self._registration: asyncio.Task[None] | None = None
        self.exit_switch = ExitSwitch()
        """Tripped when the League Manager refuses this player for good."""
        self._write_fault: str | None = None  # set by a failed history write, until one works
        self._load_known_identity()

    def _load_known_identity(self) -> None:
        """Log the start and load a known history before serving: a log or a history the
        file system refuses, or an unusable history, stops the start (the log is closed).

        Raises:
            HistoryError: the history file of ``settings.player_id`` cannot be used.
            FileSystemError: the file system refuses the log or the history.
        """
        try:
            self.log.log.info(
                "player_starting",
                display_name=self.settings.display_name,
                strategy=self.settings.strategy,
                endpoint=self.settings.contact_endpoint,
            )
            if self.settings.player_id:
                self._take_identity(self.settings.player_id, source="settings", strict=True)
        except (HistoryError, FileSystemError):
            self.log.close()
            raise

    # -- life ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Register in the background so the HTTP routes answer at once."""
        await self.runner.reset()
        if self.settings.join_league:
            self._client = RpcClient(self.system, self.log, transport=self._transport)
            self._registration = asyncio.create_task(self._register(self._client))

    async def stop(self) -> None:
        if self._registration is not None:
            self._registration.cancel()
            await asyncio.gather(self._registration, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()
        try:
            self.history.fold()  # refused: the journal holds every match, folded at next start
        except FileSystemError as exc:
            self.log.log.error("history_fold_failed", error=str(exc))
        self.log.log.info("player_stopped", state=self.state.lifecycle.value)
        self.log.close()

    async def wait_for_registration(self) -> Registration:
        """The registration's outcome: accepted, or refused for good (an answer this
        player cannot use is tried again, and this waits on)."""
        if self._registration is not None:
            await asyncio.shield(self._registration)
        return self.state.registration

    def _registration_problem(self, reason: str) -> None:
        self.state.registration = Registration(status="PENDING", reason=reason)

    async def _register(self, client: RpcClient) -> None:
        """The background registration, shown in ``/status`` and ``/health`` while it
        tries; refused for good, it ends the process (``exit_switch``)."""
        try:
            response = await register(
                client, self.settings, log=self.log, on_problem=self._registration_problem
            )
        except RegistrationRefused as exc:
            self.state.registration = Registration(status="REJECTED", reason=str(exc))
            self.exit_switch.trip(exc)
            return
        assert response.player_id is not None  # register() returns a usable id only
        self._auth_token = response.auth_token
        self.callers.registered(response.auth_token, response.auth_proofs)
        self.state.league_id = response.league_id or self.state.league_id
        self.log.log.info(
            "registration_accepted",
            player_id=response.player_id,
            league_id=response.league_id,
            auth_token=redact(response.auth_token),
            callers_verified=self.callers.verifying,
        )
        if not self.callers.verifying:
            self.log.log.warning("callers_unverified", detail=self.callers.status.detail)
        self._take_identity(response.player_id, source="registration")
        self.state.registration = Registration(status="ACCEPTED")
        announce(
            f"Player {self.settings.display_name} registered as {response.player_id} "
            f"in league {self.state.league_id}"
        )
        if self.state.lifecycle == Lifecycle.INIT:
            self._enter(Lifecycle.REGISTERED)

    def _enter(self, lifecycle: Lifecycle) -> None:
        if lifecycle != self.state.lifecycle:
            self.log.log.info(
                "state_changed", previous=self.state.lifecycle.value, state=lifecycle.value
            )
            self.state.lifecycle = lifecycle

    # -- identity and history -----------------------------------------------------------

    @property
    def sender(self) -> str:
        return f"player:{self.state.player_id or self.settings.display_name}"

    def _take_identity(self, player_id: str, *, source: str, strict: bool = False) -> None:
        """Become ``player_id``: log to its file, load its history (``strict``: an unusable
        history file raises; otherwise it is reported and left untouched)."""
        if player_id != self.state.player_id:
            new_log = self.shared.agent_log_path(player_id)
            if new_log != self.log.path:
                self.log.log.info("log_moved", player_id=player_id, continues_in=str(new_log))
                self.log.rename(new_log, player_id)
            self.state.player_id = player_id
            self.log.log.info("identity_taken", player_id=player_id, source=source)
        path = self.shared.player_history_path(player_id)
        if self.history.path == path:  # loaded already, and written by this host since
            return
        try:
            loaded = PlayerHistory.load(
                path,
                player_id=player_id,
                display_name=self.settings.display_name,
                strategy=self.settings.strategy,
            )
        except (HistoryError, FileSystemError) as exc:
            if strict:
                self.log.log.error("history_unreadable", error=str(exc))
                raise
            self.state.fault = f"{exc} (kept in memory only; the file is left as it is)"
            self.log.log.error("history_unreadable", error=str(exc))
            self.history.player_id = player_id
            return
        loaded.absorb(self.history.matches)
        self.history = loaded
        self.log.log.info("history_loaded", path=str(path), matches=len(loaded.matches))

    def claim(self, player_id: str, message_type: str) -> str:
        """Refuse a message meant for another player; a player with no id yet adopts it."""
        if self.state.player_id is None:
            if not re.fullmatch(AGENT_ID_PATTERN, player_id):
                raise ProtocolError(
                    ErrorCode.INVALID_FIELD_VALUE,
                    f"player_id {player_id!r} is not a usable agent id",
                )
            self._take_identity(player_id, source=message_type)
        elif player_id != self.state.player_id:
            raise ProtocolError(
                ErrorCode.PLAYER_NOT_REGISTERED,
                f"this is player {self.state.player_id}; the {message_type} is for {player_id}",
            )
        return player_id

    def envelope(
        self, conversation_id: str, league_id: str | None = None, proof: str | None = None
    ) -> dict[str, Any]:
        """The envelope fields of an answer: our sender, the request's conversation, and
        at most the proof the caller sent (never our token: it is for the League Manager
        alone)."""
        return {
            "sender": self.sender,
            "conversation_id": conversation_id,
            "auth_token": proof,
            "league_id": self.state.league_id or league_id,
        }

    def authenticate(self, message: Message) -> str | None:
        """Refuse a message whose proof does not check out (E011/E012), in every protocol
        mode; the id of the referee that sent a verified match message, else None."""
        return self.callers.check(message, self.state.league_id)

    # -- matches ------------------------------------------------------------------------

    def invited(self, invitation: GameInvitation, referee_id: str | None = None) -> bool:
        """Remember the match and who invited to it (``referee_id``, when verified); False
        for a game this host cannot play.

        Raises:
            ProtocolError: from a verified referee, E015 a match already recorded, E014 an
                invitation older than the one this player has for the match (the League
                Manager has given the match to another run since).
        """
        self._check_invitation(invitation, referee_id)
        claimed = invitation.extras.get("player_id")
        if isinstance(claimed, str):
            self.claim(claimed, invitation.message_type)
        if invitation.game_type not in self.settings.game_types:
            self.log.log.warning(
                "invitation_declined", match_id=invitation.match_id, game_type=invitation.game_type
            )
            return False
        self.matches.add(MatchInfo.from_invitation(invitation, referee_id))
        if self.state.lifecycle in (Lifecycle.INIT, Lifecycle.REGISTERED):
            self._enter(Lifecycle.ACTIVE)
        return True

    def _check_invitation(self, invitation: GameInvitation, referee_id: str | None) -> None:
        if referee_id is None:  # unverified callers: shapes only
            return
        self._check_not_over(invitation.league_id, invitation.match_id)
        known = self.matches.get(invitation.match_id)
        if (
            known is not None
            and known.assignment is not None
            and invitation.assignment is not None
            and invitation.assignment < known.assignment
        ):
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"match {invitation.match_id}: this player has an invitation "
                f"of assignment {known.assignment} from {known.referee_id}; "
                f"assignment {invitation.assignment} is superseded",
            )

    def _check_not_over(self, league_id: str | None, match_id: str) -> None:
        if self.history.knows(league_id or self.state.league_id, match_id):
            raise ProtocolError(
                ErrorCode.INVALID_STATE,
                f"match {match_id} is over for this player: its result is recorded",
            )

    def check_move_caller(
        self, call: ChooseParityCall | GameMoveCall, referee_id: str | None
    ) -> None:
        """A verified referee asks for a move only in a match it invited this player to and
        that is not over: a referee the League Manager has replaced (it was paused or cut
        off) learns here that the match is not its own any more.

        Raises:
            ProtocolError: E015 the match is recorded already; E014 another referee
                invited this player to it since.
        """
        if referee_id is None:  # unverified callers: shapes only
            return
        self._check_not_over(call.league_id, call.match_id)
        known = self.matches.get(call.match_id)
        if known is not None and known.referee_id not in (None, referee_id):
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"match {call.match_id} is refereed by {known.referee_id} now, not {referee_id}",
            )

    async def choose_parity(self, call: ChooseParityCall) -> Decision:
        player_id = self.claim(call.player_id, call.message_type)
        match = self.matches.get(call.match_id)
        if match is None:
            match = MatchInfo(
                match_id=call.match_id,
                league_id=call.league_id,
                round_id=call.context.round_id,
                game_type=call.game_type,
                opponent_id=call.context.opponent_id,
                invited_at=call.timestamp,
            )
            self.matches.add(match)
        record = call.context.your_standings
        view = MoveView(
            game_type=call.game_type,
            match_id=call.match_id,
            league_id=call.league_id,
            round_id=call.context.round_id if call.context.round_id is not None else match.round_id,
            player_id=player_id,
            opponent_id=call.context.opponent_id,
            role=match.role,
            legal_moves=PARITIES,
            my_record=Record(wins=record.wins, losses=record.losses, draws=record.draws),
            history=self.history.matches,
            deadline=call.deadline,
        )
        decision = await self.runner.choose(view)
        match.my_choice = decision.choice
        return decision

    async def make_move(self, call: GameMoveCall) -> Decision:
        """A move of any game other than even/odd: the strategy sees the referee's
        observation and action space, and a move outside that space is never sent."""
        player_id = self.claim(call.player_id, call.message_type)
        match = self.matches.get(call.match_id)
        context = call.move_request.context
        space = context.get("action_space")
        options = call.move_request.valid_options
        if space is not None:
            check_move_space(space)
        elif not options:
            raise ProtocolError(
                ErrorCode.INVALID_FIELD_VALUE,
                "move_request: no move is legal "
                "(valid_options is empty and context has no action_space)",
            )
        view = MoveView(
            game_type=call.game_type,
            match_id=call.match_id,
            league_id=call.league_id,
            round_id=context.get("round_id")
            if isinstance(context.get("round_id"), int)
            else (match.round_id if match else None),
            player_id=player_id,
            opponent_id=(match.opponent_id or "") if match else "",
            role=match.role if match else None,
            legal_moves=tuple(options) if space is None or space.get("kind") == "choice" else (),
            action_space=space if isinstance(space, dict) else None,
            observation=context.get("observation") or {},
            messages=tuple(
                note for note in context.get("messages") or () if isinstance(note, dict)
            ),
            history=self.history.matches,
            deadline=call.deadline,
        )
        return await self.runner.choose(view)

    async def game_over(self, message: GameOver, referee_id: str | None = None) -> PastMatch | None:
        """Record the match once (a repeated GAME_OVER is acknowledged, not counted again);
        from a verified ``referee_id``, only a match that referee invited this player to."""
        player_id = self.state.player_id
        known = self.matches.get(message.match_id)
        result = message.game_result
        if known is None and self.history.knows(
            message.league_id or self.state.league_id, message.match_id
        ):
            self.log.log.info("game_over_repeated", match_id=message.match_id)
            await self._history_durable(message.match_id)
            return None
        if self.callers.verifying and (known is None or known.referee_id != referee_id):
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"{referee_id} did not invite this player to match {message.match_id}"
                + (f" ({known.referee_id} did)" if known and known.referee_id else "")
                + "; its GAME_OVER is not recorded",
            )
        if player_id is None:
            self.log.log.warning(
                "game_over_unattributed",
                match_id=message.match_id,
                reason="this player has no id yet",
            )
            return None
        if (
            known is None
            and result.choices
            and player_id not in result.choices
            and result.winner_player_id != player_id
        ):
            raise ProtocolError(
                ErrorCode.PLAYER_NOT_REGISTERED,
                f"match {message.match_id} was played by {', '.join(result.choices)}; "
                f"this is player {player_id}",
            )
        self.matches.pop(message.match_id)
        record = record_of(message, player_id, known)
        if self.history.knows(record.league_id, record.match_id):
            self.log.log.info("game_over_repeated", match_id=message.match_id)
            await self._history_durable(message.match_id)
            return None
        self.history.add(record)
        self.log.log.info(
            "match_recorded",
            match_id=record.match_id,
            outcome=record.outcome,
            my_choice=record.my_choice,
            opponent_choice=record.opponent_choice,
        )
        await self.runner.match_over(record)
        await self._history_durable(record.match_id)
        return record

    async def _history_durable(self, match_id: str) -> None:
        """Return once the history's journal holds ``match_id`` and every match before it,
        fsynced: a GAME_OVER is acknowledged only then. A refused write is this host's fault
        until one succeeds (ProtocolError E022 meanwhile); the match stays in memory."""
        try:
            await self.history.durable()
        except FileSystemError as exc:
            self._write_fault = self.state.fault = f"cannot write the player history: {exc}"
            self.log.log.error("history_write_failed", match_id=match_id, error=str(exc))
            raise ProtocolError(
                ErrorCode.SERVICE_UNAVAILABLE,
                f"match {match_id} is recorded in this player's memory, but its history file "
                f"cannot be written now ({exc}); the GAME_OVER is not acknowledged",
            ) from None
        if self._write_fault is not None:
            self.log.log.info("history_write_recovered", match_id=match_id)
            self.state.fault = None if self.state.fault == self._write_fault else self.state.fault
            self._write_fault = None

    # -- league news and reports --------------------------------------------------------

    def league_news(self, message: Message) -> None:
        """Apply a league notification; the lifecycle follows the league."""
        self.state.apply(message)
        if isinstance(message, RoundAnnouncement):
            if self.state.lifecycle in (Lifecycle.INIT, Lifecycle.REGISTERED):
                self._enter(Lifecycle.ACTIVE)
        elif isinstance(message, LeagueCompleted):
            self.log.log.info(
                "league_completed",
                league_id=message.league_id,
                champion=message.champion.player_id if message.champion else None,
            )
            self._enter(Lifecycle.SHUTDOWN)
        elif isinstance(message, GameError):
            self.log.log.warning(
                "game_error",
                match_id=message.match_id,
                error_code=message.error_code,
                retry_count=message.retry_count,
            )

    def status(self) -> StatusReport:
        return status_report(
            self.settings,
            self.state,
            self.matches.all(),
            has_auth_token=self._auth_token is not None,
            callers=self.callers.status,
        )

    def stats(self) -> StatsReport:
        return stats_report(
            self.settings,
            self.state,
            self.history.totals,
            self.runner.stats,
            strategy_report=self.runner.strategy.report(),
        )

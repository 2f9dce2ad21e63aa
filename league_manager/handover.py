"""Handing matches to referees: each referee's capacity, the choice of referee, and the
``start_match`` call.

A referee's capacity is a semaphore held from ``start_match`` until the match's result
arrives, so no referee ever runs more than its max_concurrent_matches. A round's matches
are spread over the referees in proportion to their capacity; a match whose referee failed
goes to the least loaded other one. Each hand-over is fenced by a new assignment number
(``fencing.py``)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from typing import Literal

from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry, RegisteredAgent
from league_manager.fencing import Fencing
from league_manager.records import MatchProgress
from league_manager.referee_watch import RefereeWatch
from league_manager.standings_book import StandingsBook
from sdk.client import RpcClient
from sdk.config import LeagueConfig
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import Communication, MatchSeat, Method, StartMatch, WinLossRecord, seat_role

__all__ = ["Handed", "RefereeDesk"]

Handed = Literal["started", "busy", "failed"]


class RefereeDesk:
    """The referees' room for matches and the hand-over of one match to one of them."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        client: RpcClient,
        agents: AgentRegistry,
        standings: StandingsBook,
        states: AgentStates,
        fencing: Fencing,
        watch: RefereeWatch,
        event: Callable[..., None],
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._client = client
        self._agents = agents
        self._standings = standings
        self._states = states
        self._fencing = fencing
        self._watch = watch
        self._event = event
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._running: dict[str, int] = defaultdict(int)
        for referee in agents.of_kind("referee"):
            self.add_referee(referee)

    def add_referee(self, referee: RegisteredAgent) -> None:
        """Make room for a referee's matches (a referee registering again keeps its room)."""
        self._slots.setdefault(referee.agent_id, asyncio.Semaphore(referee.max_concurrent_matches))

    def running_on(self, referee_id: str) -> int:
        return self._running.get(referee_id, 0)

    def running_matches(self) -> int:
        """Matches the referees play right now."""
        return sum(self.running_on(r.agent_id) for r in self._agents.of_kind("referee"))

    def slot(self, referee_id: str) -> asyncio.Semaphore:
        """Held while the referee plays one of its matches."""
        return self._slots[referee_id]

    async def await_result(
        self, match: MatchProgress, referee: RegisteredAgent, done: asyncio.Event
    ) -> bool:
        """Wait for the match's result from ``referee``, counting it as running there;
        False if the match must go to another referee (``RefereeWatch.wait_for_result``)."""
        self._running[referee.agent_id] += 1
        try:
            return await self._watch.wait_for_result(match, referee, done)
        finally:
            self._running[referee.agent_id] -= 1

    async def holder_after_restart(self, match: MatchProgress) -> RegisteredAgent | None:
        """After a restart, the referee still playing the match, asked among the usable
        ones (``RefereeWatch.holder_after_restart``); None if none is."""
        return await self._watch.holder_after_restart(match, self.usable_referees())

    def usable_referees(self) -> list[RegisteredAgent]:
        """The referees not shut down; if all are, all of them: the end of a league shuts
        every referee down, and a league resumed after that (a result lost from a damaged
        journal) still needs them; a hand-over tells which ones still serve."""
        referees = self._agents.of_kind("referee")
        return [r for r in referees if r.state != "SHUTDOWN"] or referees

    def _load_key(self, referee: RegisteredAgent, extra: dict[str, int]) -> tuple[int, float]:
        load = self._running[referee.agent_id] + extra.get(referee.agent_id, 0)
        return (referee.state == "SUSPENDED", load / referee.max_concurrent_matches)

    def preassign(self, matches: list[MatchProgress]) -> None:
        """Spread a round's matches over the referees in proportion to their capacity."""
        referees = self.usable_referees()
        if not referees:
            return
        planned: dict[str, int] = defaultdict(int)
        for match in matches:
            referee = min(referees, key=lambda r: self._load_key(r, planned))
            planned[referee.agent_id] += 1
            match.referee_id = referee.agent_id
            match.referee_endpoint = referee.contact_endpoint

    def pick_referee(self, match: MatchProgress, failures: int) -> RegisteredAgent | None:
        referees = self.usable_referees()
        if not referees:
            return None
        planned = self._agents.get(match.referee_id) if match.referee_id else None
        if failures == 0 and planned is not None and planned in referees:
            return planned
        others = [r for r in referees if r.agent_id != match.referee_id] or referees
        return min(others, key=lambda r: self._load_key(r, {}))

    def _start_message(self, match: MatchProgress, referee: RegisteredAgent) -> StartMatch:
        agents, config = self._agents, self._config
        seats = []
        for index, player_id in enumerate(match.player_ids):
            player = agents.get(player_id)
            record = self._standings.record(player_id)
            seats.append(
                MatchSeat(
                    player_id=player_id,
                    display_name=player.display_name if player else "",
                    contact_endpoint=player.contact_endpoint if player else "",
                    role=seat_role(index),
                    standings=WinLossRecord(
                        wins=record.wins, losses=record.losses, draws=record.draws
                    ),
                )
            )
        conversation_id = f"{self._league_id}:{match.match_id}"
        return StartMatch(
            sender=self._sender,
            conversation_id=conversation_id,
            auth_token=agents.proof_for(referee.agent_id, conversation_id),
            league_id=self._league_id,
            round_id=match.round_id,
            match_id=match.match_id,
            game_type=config.game_type,
            game_params=config.game_params,
            players=seats,
            communication=Communication(**config.communication.model_dump()),
            player_proofs={
                player_id: agents.match_proof_for(player_id, match.match_id, referee.agent_id)
                for player_id in match.player_ids
                if agents.get(player_id)
            },
            assignment=match.assignment,
        )

    async def hand_over(self, match: MatchProgress, referee: RegisteredAgent) -> Handed:
        """Give the match to ``referee`` under a new assignment and call its start_match."""
        if not await self._fencing.assign(match, referee):
            return "failed"
        try:
            await self._client.call(
                referee.contact_endpoint,
                Method.START_MATCH,
                self._start_message(match, referee),
                method_aliases=self._config.protocol_mode == "lenient",
                together=True,  # a round's start hands tens of matches to each referee at once
            )
        except TransportError as exc:
            self._states.set_state(referee.agent_id, "SUSPENDED")
            self._event(
                "start_match_failed",
                match_id=match.match_id,
                referee_id=referee.agent_id,
                error_code=exc.code.value,
                reason=exc.description,
            )
            return "failed"
        except RemoteError as exc:
            if exc.code == ErrorCode.CAPACITY_EXCEEDED.value:
                return "busy"
            if exc.code == ErrorCode.INVALID_STATE.value and await self._watch.held_by(
                match, referee
            ):
                return "started"  # it has the match already: wait for (or took) its result
            self._event(
                "start_match_refused",
                match_id=match.match_id,
                referee_id=referee.agent_id,
                error_code=exc.code,
                reason=exc.description,
            )
            return "failed"
        self._states.set_state(referee.agent_id, "ACTIVE")
        if match.status == "ASSIGNED":
            match.status = "RUNNING"
        self._event("match_started", match_id=match.match_id, referee_id=referee.agent_id)
        return "started"

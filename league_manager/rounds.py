"""The round flow: announce a round, hand each match to a referee with free capacity, wait
for the results, then send standings and the round's completion; at the end, the champion.

A referee's capacity is a semaphore held from ``start_match`` until the match's result
arrives, so no referee ever runs more than its max_concurrent_matches. A match whose referee
cannot be reached, refuses, or never reports within the league's match timeout is given to
another referee (a late report of the first is still accepted once, by match_id). While it
waits, the League Manager asks the referee about the match every second, so a referee that
died mid-match loses it in seconds, not after the match timeout; after a restart it asks
the referees about each match given out before, so a match still running is waited for, not
started twice, and one decided while it was down is recorded from the referee's record
(``referee_watch.py``).
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from league_manager.agents import RegisteredAgent
from league_manager.assignments import ASSIGNMENTS_FILE
from league_manager.book import LeagueStatus, MatchRecord, RoundRecord
from league_manager.referee_watch import RefereeWatch
from sdk.errors import ErrorCode, RemoteError, TransportError
from sdk.messages import (
    Champion,
    Communication,
    FinalStanding,
    LeagueCompleted,
    LeagueStandingsUpdate,
    MatchSeat,
    Message,
    RoundAnnouncement,
    RoundCompleted,
    RoundMatch,
    RoundSummary,
    StartMatch,
    WinLossRecord,
    seat_role,
)

if TYPE_CHECKING:
    from league_manager.service import LeagueManager

__all__ = ["RoundRunner"]

HandOver = Literal["started", "busy", "failed"]
_BUSY_RETRY_SEC = 0.05
ANNOUNCE_GRACE_SEC = 2.0
"""How long a match waits for the round's announcement to reach its own players: prompt
ones have it before their invitation; a slow one gets it later, delaying its match by this
at most and the others' not at all."""
_OUTBOX_LIMIT = 8
"""Notifications on their way to one agent beyond which new ones to it are dropped (a dead
player's backlog stays bounded; it can ask league_query for what it missed)."""


class RoundRunner:
    """Plays the league's rounds one after another."""

    def __init__(self, manager: LeagueManager, broadcast_concurrency: int):
        self._lm = manager
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._running: dict[str, int] = defaultdict(int)
        self._given: dict[str, set[str]] = defaultdict(set)
        self._done: dict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self._broadcast_limit = asyncio.Semaphore(broadcast_concurrency)
        self._broadcasts = manager.config.broadcasts
        self._outbox: dict[str, int] = defaultdict(int)
        self._in_order: dict[str, asyncio.Lock] = {}
        self._sending: set[asyncio.Task[None]] = set()
        for referee in manager.agents.of_kind("referee"):
            self.add_referee(referee)
        for round_record in manager.book.rounds:
            for match in round_record.matches:  # the live rounds' records
                if match.referee_id:
                    self._given[match.match_id].add(match.referee_id)
        self._watch = RefereeWatch(manager, self._given)
        self._unsettled = set(manager.book.unsettled)
        """Matches a referee may hold since before this process started: asked about first."""

    @property
    def _lenient(self) -> bool:
        """A lenient league also calls peers by message_type when they serve it that way."""
        return self._lm.config.protocol_mode == "lenient"

    # -- what the service asks -------------------------------------------------------

    def add_referee(self, referee: RegisteredAgent) -> None:
        """Make room for a referee's matches (a referee registering again keeps its room)."""
        self._slots.setdefault(referee.agent_id, asyncio.Semaphore(referee.max_concurrent_matches))

    def referees_of(self, match_id: str) -> set[str]:
        """Every referee this match was ever given to (only the one holding it now may
        report it)."""
        return set(self._given.get(match_id, ()))

    def running_on(self, referee_id: str) -> int:
        return self._running.get(referee_id, 0)

    def result_arrived(self, match_id: str) -> None:
        self._done[match_id].set()

    def next_match_of(self, player_id: str) -> dict[str, Any] | None:
        match = self._lm.book.next_match_of(player_id)
        if match is None:
            return None
        others = [other for other in match.player_ids if other != player_id]
        found = {
            "match_id": match.match_id,
            "round_id": match.round_id,
            "opponent_id": others[0],
            "role": seat_role(match.player_ids.index(player_id)),
            "referee_endpoint": match.referee_endpoint,
            "status": match.status,
        }
        return found | ({"opponent_ids": others} if len(others) > 1 else {})

    # -- the flow --------------------------------------------------------------------

    async def run(self) -> None:
        book = self._lm.book
        while True:
            await self._lm.control.resumed()  # paused: no round starts, nor does the end
            if (round_record := book.current_round()) is None:
                break
            await self._play_round(round_record)
        book.status = LeagueStatus.COMPLETED
        self._lm.upkeep.persist("rounds.json", book.write_rounds)
        ranked = book.table.ranked()
        champion = ranked[0][1] if ranked else None
        self._lm.event(
            "league_completed",
            champion=champion.player_id if champion else None,
            matches=len(book.results),
        )
        completed = LeagueCompleted(
            sender=self._lm.sender,
            conversation_id=f"{book.league_id}:completed",
            league_id=book.league_id,
            total_rounds=len(book.rounds),
            total_matches=book.total_matches,
            champion=Champion(
                player_id=champion.player_id,
                display_name=champion.display_name,
                points=champion.points,
            )
            if champion
            else None,
            final_standings=[
                FinalStanding(rank=rank, player_id=r.player_id, points=r.points)
                for rank, r in ranked
            ],
        )
        everyone = [
            agent
            for agent in self._lm.agents.of_kind("player") + self._lm.agents.of_kind("referee")
            if agent.state != "REMOVED"
        ]
        await self._broadcast(
            "notify_league_completed",
            everyone,
            lambda agent: completed.model_copy(
                update={
                    "auth_token": self._lm.agents.proof_for(
                        agent.agent_id, completed.conversation_id
                    )
                }
            ),
        )
        self._lm.set_states([agent.agent_id for agent in everyone], "SHUTDOWN")

    async def _play_round(self, round_record: RoundRecord) -> None:
        lm, book = self._lm, self._lm.book
        matches = book.open_round(round_record)
        pending = [m for m in matches if m.match_id not in book.results]
        self._preassign(pending)
        lm.upkeep.persist("rounds.json", lambda: book.mark_round(round_record, "RUNNING"))
        lm.event("round_started", round_id=round_record.round_id, matches=len(pending))
        told: dict[str, asyncio.Task[None]] = {}
        if self._broadcasts:
            announced = [self._announced(m) for m in matches]
            told = await self._broadcast(
                "notify_round",
                self._scheduled_players(),
                lambda agent: RoundAnnouncement(
                    **self._envelope(agent, f"round-{round_record.round_id}"),
                    round_id=round_record.round_id,
                    matches=announced,
                ),
                grace=0,
            )
        deadline = asyncio.get_running_loop().time() + ANNOUNCE_GRACE_SEC
        await asyncio.gather(*(self._play_match(match, told, deadline) for match in pending))
        summary = self._summary(matches)
        for match in matches:
            self._done.pop(match.match_id, None)
        lm.upkeep.persist("rounds.json", lambda: book.mark_round(round_record, "COMPLETED"))
        lm.upkeep.persist("standings.json", book.write_standings)
        lm.event("round_completed", round_id=round_record.round_id, **summary.model_dump())
        if not self._broadcasts:
            return
        next_round = book.current_round()
        standings = book.standings_rows()
        topic = f"round-{round_record.round_id}"
        await self._broadcast(
            "update_standings",
            self._scheduled_players(),
            lambda agent: LeagueStandingsUpdate(
                **self._envelope(agent, topic), round_id=round_record.round_id, standings=standings
            ),
            grace=0,
        )
        await self._broadcast(
            "notify_round_completed",
            self._scheduled_players(),
            lambda agent: RoundCompleted(
                **self._envelope(agent, topic),
                round_id=round_record.round_id,
                matches_completed=summary.total_matches,
                next_round_id=next_round.round_id if next_round else None,
                summary=summary,
            ),
            grace=0,
        )

    def _announced(self, match: MatchRecord) -> RoundMatch:
        more = {"player_ids": match.player_ids} if len(match.player_ids) > 2 else {}
        return RoundMatch(
            match_id=match.match_id,
            game_type=self._lm.config.game_type,
            player_A_id=match.player_A_id,
            player_B_id=match.player_B_id,
            referee_endpoint=match.referee_endpoint,
            **more,
        )

    def _summary(self, matches: list[MatchRecord]) -> RoundSummary:
        results = [self._lm.book.results[m.match_id] for m in matches]
        outcomes = [set(r.outcomes.values()) for r in results]
        return RoundSummary(
            total_matches=len(results),
            wins=sum(1 for o in outcomes if "WIN" in o),
            draws=sum(1 for o in outcomes if "DRAW" in o and "WIN" not in o),
            technical_losses=sum(1 for o in outcomes if "TECHNICAL_LOSS" in o),
        )

    def _envelope(self, agent: RegisteredAgent, topic: str) -> dict[str, Any]:
        league_id = self._lm.league_id
        conversation_id = f"{league_id}:{topic}"
        return {
            "sender": self._lm.sender,
            "conversation_id": conversation_id,
            "auth_token": self._lm.agents.proof_for(agent.agent_id, conversation_id),
            "league_id": league_id,
        }

    def _scheduled_players(self) -> list[RegisteredAgent]:
        agents = self._lm.agents
        return [
            a
            for pid, _ in self._lm.book.players
            if (a := agents.get(pid)) is not None and a.state != "REMOVED"
        ]

    # -- referees --------------------------------------------------------------------

    def _usable_referees(self) -> list[RegisteredAgent]:
        """The referees not shut down; if all are, all of them: the end of a league shuts
        every referee down, and a league resumed after that (a result lost from a damaged
        journal) still needs them; a hand-over tells which ones still serve."""
        referees = self._lm.agents.of_kind("referee")
        return [r for r in referees if r.state != "SHUTDOWN"] or referees

    def _load_key(self, referee: RegisteredAgent, extra: dict[str, int]) -> tuple[int, float]:
        load = self._running[referee.agent_id] + extra.get(referee.agent_id, 0)
        return (referee.state == "SUSPENDED", load / referee.max_concurrent_matches)

    def _preassign(self, matches: list[MatchRecord]) -> None:
        """Spread a round's matches over the referees in proportion to their capacity."""
        referees = self._usable_referees()
        if not referees:
            return
        planned: dict[str, int] = defaultdict(int)
        for match in matches:
            referee = min(referees, key=lambda r: self._load_key(r, planned))
            planned[referee.agent_id] += 1
            match.referee_id = referee.agent_id
            match.referee_endpoint = referee.contact_endpoint

    def _pick_referee(self, match: MatchRecord, failures: int) -> RegisteredAgent | None:
        referees = self._usable_referees()
        if not referees:
            return None
        planned = self._lm.agents.get(match.referee_id) if match.referee_id else None
        if failures == 0 and planned is not None and planned in referees:
            return planned
        others = [r for r in referees if r.agent_id != match.referee_id] or referees
        return min(others, key=lambda r: self._load_key(r, {}))

    def _start_message(self, match: MatchRecord, referee: RegisteredAgent) -> StartMatch:
        lm = self._lm
        seats = []
        for index, player_id in enumerate(match.player_ids):
            player = lm.agents.get(player_id)
            record = lm.book.table.record(player_id)
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
        conversation_id = f"{lm.league_id}:{match.match_id}"
        return StartMatch(
            sender=lm.sender,
            conversation_id=conversation_id,
            auth_token=lm.agents.proof_for(referee.agent_id, conversation_id),
            league_id=lm.league_id,
            round_id=match.round_id,
            match_id=match.match_id,
            game_type=lm.config.game_type,
            game_params=lm.config.game_params,
            players=seats,
            communication=Communication(**lm.config.communication.model_dump()),
            player_proofs={
                player_id: lm.agents.match_proof_for(player_id, match.match_id, referee.agent_id)
                for player_id in match.player_ids
                if lm.agents.get(player_id)
            },
            assignment=match.assignment,
        )

    async def _play_match(
        self,
        match: MatchRecord,
        told: dict[str, asyncio.Task[None]] | None = None,
        deadline: float = 0.0,
    ) -> None:
        """Give the match to referees until its result is recorded; first, until
        ``deadline`` at most, wait for its players to have the round's announcement
        (``told``: the announcement on its way to each player)."""
        lm, book = self._lm, self._lm.book
        on_way = [task for p in match.player_ids if (task := (told or {}).get(p)) is not None]
        left = deadline - asyncio.get_running_loop().time()
        if on_way and left > 0:
            await asyncio.wait(on_way, timeout=left)
        policy = lm.system.retry_policy
        done = self._done[match.match_id]
        failures = 0
        busy = False
        holder: RegisteredAgent | None = None
        if match.match_id in self._unsettled:
            self._unsettled.discard(match.match_id)
            holder = await self._watch.holder_after_restart(match, self._usable_referees())
        while match.match_id not in book.results:
            if holder is None:
                await lm.control.resumed()  # paused: nothing is handed over nor forfeited
                await lm.upkeep.writable()  # nor while what it brings cannot be recorded
                if match.match_id in book.results:
                    return
            suspended = lm.health.suspended(match.player_ids)
            if suspended and holder is None:
                if await lm.record_forfeit(match, suspended):
                    return
                continue
            if busy:  # the referee is still finishing a match we counted as done: no fault
                await asyncio.sleep(_BUSY_RETRY_SEC)
            elif failures:
                await asyncio.sleep(policy.delay(min(failures, policy.max_retries or 1)))
            referee = holder or self._pick_referee(match, failures)
            if referee is None:
                failures += 1
                lm.event("no_referee_available", match_id=match.match_id)
                continue
            async with self._slots[referee.agent_id]:
                if match.match_id in book.results:
                    return
                if holder is None and (lm.control.paused or lm.health.suspended(match.player_ids)):
                    continue  # paused or a player removed while this waited for the slot
                # A holder plays the match since before a restart: only its result is awaited.
                handed: HandOver = "started" if holder else await self._hand_over(match, referee)
                holder = None
                busy = handed == "busy"
                if busy:
                    continue
                if handed == "failed":
                    failures += 1
                    continue
                self._running[referee.agent_id] += 1
                try:
                    if not await self._watch.wait_for_result(match, referee, done):
                        failures += 1
                finally:
                    self._running[referee.agent_id] -= 1

    async def _hand_over(self, match: MatchRecord, referee: RegisteredAgent) -> HandOver:
        lm = self._lm
        try:
            assignment = lm.assignments.next()
        except OSError as exc:  # a full disk: nothing is handed out until it takes writes
            lm.upkeep.failed(ASSIGNMENTS_FILE, exc)
            return "failed"
        lm.upkeep.written(ASSIGNMENTS_FILE)
        match.referee_id, match.referee_endpoint = referee.agent_id, referee.contact_endpoint
        match.status = "ASSIGNED"
        match.attempts += 1
        match.assignment = assignment
        self._given[match.match_id].add(referee.agent_id)
        try:
            await lm.client.call(
                referee.contact_endpoint,
                "start_match",
                self._start_message(match, referee),
                method_aliases=self._lenient,
            )
        except TransportError as exc:
            lm.set_state(referee.agent_id, "SUSPENDED")
            lm.event(
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
            lm.event(
                "start_match_refused",
                match_id=match.match_id,
                referee_id=referee.agent_id,
                error_code=exc.code,
                reason=exc.description,
            )
            return "failed"
        lm.set_state(referee.agent_id, "ACTIVE")
        if match.status == "ASSIGNED":
            match.status = "RUNNING"
        lm.event("match_started", match_id=match.match_id, referee_id=referee.agent_id)
        return "started"

    # -- notifications ---------------------------------------------------------------

    async def _broadcast(
        self,
        method: str,
        recipients: list[RegisteredAgent],
        build: Callable[[RegisteredAgent], Message],
        *,
        grace: float | None = None,
    ) -> dict[str, asyncio.Task[None]]:
        """Send one notification to each recipient, at most ``broadcast_concurrency`` at a
        time, each once (no retry) within its method's timeout; a failure is logged and
        never stops the league. Waits ``grace`` seconds at most (None: until all are sent):
        a slow or dead player does not hold the round up for the others, and what is still
        on its way goes on in the background, in order for each recipient. Returns each
        recipient's sending, by agent id."""
        tasks: dict[str, asyncio.Task[None]] = {}
        for agent in recipients:
            if self._outbox[agent.agent_id] >= _OUTBOX_LIMIT:
                self._lm.event(
                    "notification_dropped",
                    agent_id=agent.agent_id,
                    method=method,
                    reason=f"{_OUTBOX_LIMIT} notifications to it still on their way",
                )
                continue
            self._outbox[agent.agent_id] += 1
            task = asyncio.create_task(self._notify(agent, method, build(agent)))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)
            tasks[agent.agent_id] = task
        if tasks and grace != 0:
            await asyncio.wait(tasks.values(), timeout=grace)
        return tasks

    async def _notify(self, agent: RegisteredAgent, method: str, message: Message) -> None:
        lock = self._in_order.setdefault(agent.agent_id, asyncio.Lock())
        try:
            async with lock, self._broadcast_limit:
                try:
                    await self._lm.client.call(
                        agent.contact_endpoint,
                        method,
                        message,
                        method_aliases=self._lenient,
                        retries=0,
                    )
                except (TransportError, RemoteError) as exc:
                    self._lm.event(
                        "notification_failed",
                        agent_id=agent.agent_id,
                        method=method,
                        error_code=str(exc.code),
                        reason=exc.description,
                    )
                    if isinstance(exc, TransportError):  # silence, not an error answer
                        self._lm.health.failed(agent.agent_id, f"{method}: {exc.description}")
                        return
                self._lm.health.answered(agent.agent_id)
        finally:
            self._outbox[agent.agent_id] -= 1

    async def close(self) -> None:
        """Stop the notifications still on their way (at shutdown)."""
        for task in list(self._sending):
            task.cancel()
        await asyncio.gather(*self._sending, return_exceptions=True)

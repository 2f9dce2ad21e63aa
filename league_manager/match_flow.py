"""One match's flow in a round: a moment's wait for the round's announcement to reach its
players, then hand-overs to referees until its result is recorded, or a forfeit.

A referee's capacity is held from ``start_match`` until the match's result arrives
(``handover.py``). A match whose referee cannot be reached, refuses, or never reports within
the league's match timeout is given to another referee (a late report of the first is still
accepted once, by match_id). While it waits, the League Manager asks the referee about the
match every second, so a referee that died mid-match loses it in seconds, not after the match
timeout; after a restart it asks the referees about each match given out before, so a match
still running is waited for, not started twice, and one decided while it was down is
recorded from the referee's record (``referee_watch.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from league_manager.admin import LeagueControl
from league_manager.agents import RegisteredAgent
from league_manager.handover import Handed, RefereeDesk
from league_manager.records import MatchProgress
from league_manager.results import ResultDesk
from league_manager.results_book import ResultsBook
from league_manager.suspension import PlayerHealth
from league_manager.upkeep import Upkeep
from sdk.config import RetryPolicy

__all__ = ["ANNOUNCE_GRACE_SEC", "MatchFlow"]

_BUSY_RETRY_SEC = 0.05
ANNOUNCE_GRACE_SEC = 2.0
"""How long a match waits for the round's announcement to reach its own players: prompt
ones have it before their invitation; a slow one gets it later, delaying its match by this
at most and the others' not at all."""


class MatchFlow:
    """Hands a round's matches to referees, each until its result is recorded."""

    def __init__(
        self,
        *,
        retry_policy: RetryPolicy,
        results: ResultsBook,
        desk: ResultDesk,
        referees: RefereeDesk,
        control: LeagueControl,
        upkeep: Upkeep,
        health: PlayerHealth,
        event: Callable[..., None],
        unsettled: Iterable[str],
    ):
        self._retry_policy = retry_policy
        self._results = results
        self._desk = desk
        self._referees = referees
        self._control = control
        self._upkeep = upkeep
        self._health = health
        self._event = event
        self._unsettled = set(unsettled)
        """Matches a referee may hold since before this process started: asked about first."""

    def recheck(self, match_ids: Iterable[str]) -> None:
        """Matches a referee may hold since before this League Manager took the lead: asked
        about first, as after a restart."""
        self._unsettled.update(match_ids)

    def preassign(self, matches: list[MatchProgress]) -> None:
        """Plan the round's matches over the referees, before the round is announced."""
        self._referees.preassign(matches)

    async def play(
        self, matches: list[MatchProgress], told: dict[str, asyncio.Future[None]]
    ) -> None:
        """Play the matches at once, each until its result is recorded; each waits first,
        ANNOUNCE_GRACE_SEC at most, for its players to have the round's announcement
        (``told``: the announcement on its way to each player)."""
        deadline = asyncio.get_running_loop().time() + ANNOUNCE_GRACE_SEC
        await asyncio.gather(*(self._play_match(match, told, deadline) for match in matches))

    def forget(self, matches: list[MatchProgress]) -> None:
        """Drop what was kept for a finished round's matches (their results' waiters)."""
        self._desk.forget(match.match_id for match in matches)

    async def _play_match(
        self,
        match: MatchProgress,
        told: dict[str, asyncio.Future[None]],
        deadline: float,
    ) -> None:
        """Give the match to referees until its result is recorded; first, until
        ``deadline`` at most, wait for its players to have the round's announcement."""
        results, referees = self._results, self._referees
        on_way = [task for p in match.player_ids if (task := told.get(p)) is not None]
        left = deadline - asyncio.get_running_loop().time()
        if on_way and left > 0:
            await asyncio.wait(on_way, timeout=left)
        policy = self._retry_policy
        done = self._desk.waiter(match.match_id)
        failures = 0
        busy = False
        holder: RegisteredAgent | None = None
        if match.match_id in self._unsettled:
            self._unsettled.discard(match.match_id)
            holder = await referees.holder_after_restart(match)
        while match.match_id not in results:
            if holder is None:
                await self._control.resumed()  # paused: nothing is handed over nor forfeited
                await self._upkeep.writable()  # nor while what it brings cannot be recorded
                await self._health.judged()  # a failure just counted may suspend a player
                if match.match_id in results:
                    return
            suspended = self._health.suspended(match.player_ids)
            if suspended and holder is None:
                if await self._desk.record_forfeit(match, suspended):
                    return
                continue
            if busy:  # the referee is still finishing a match we counted as done: no fault
                await asyncio.sleep(_BUSY_RETRY_SEC)
            elif failures:
                await asyncio.sleep(policy.delay(min(failures, policy.max_retries or 1)))
            referee = holder or referees.pick_referee(match, failures)
            if referee is None:
                failures += 1
                self._event("no_referee_available", match_id=match.match_id)
                continue
            async with referees.slot(referee.agent_id):
                if match.match_id in results:
                    return
                paused = self._control.paused
                if holder is None and (paused or self._health.suspended(match.player_ids)):
                    continue  # paused or a player removed while this waited for the slot
                # A holder plays the match since before a restart: only its result is awaited.
                handed: Handed = "started" if holder else await referees.hand_over(match, referee)
                holder = None
                busy = handed == "busy"
                if busy:
                    continue
                if handed == "failed":
                    failures += 1
                    continue
                if not await referees.await_result(match, referee, done):
                    failures += 1

"""Players that keep failing are SUSPENDED, and come back when they answer again.

A player fails when it loses a match by technical loss or never takes a notification; after
the league's ``suspend_after_failures`` failures in a row it is SUSPENDED, and each of its
matches still to play is recorded at once as a forfeit (a technical loss for the suspended
players, decided like any result with technical losers) instead of keeping a referee
waiting through every retry. Anything it answers clears the count and makes it ACTIVE again:
a notification taken (every round announcement still goes to it), a match played soundly,
a request of its own. The count lives in memory, or, where several League Managers share a
store, in the store (``SharedFailures``), so that a player failing through several of them
is suspended as on one (each failure is counted by the League Manager that took it: the one
whose result the store kept, or the leader, which sends the notifications); the state is
saved with the agents. A player the admin REMOVED (``admin.py``) is out of play the same
way, but nothing it answers brings it back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Protocol

from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry
from sdk.store import StoreError

__all__ = ["PlayerHealth", "SharedFailures"]


class SharedFailures(Protocol):
    """Players' failures in a row counted in a store every League Manager of the league
    shares: each change is queued and written in the store's order, and the count it leads
    to is told back to ``listen``'s callable once written (a count at 0 may go untold)."""

    def count_failure(self, player_id: str, *, failed: bool) -> None:
        """One failure more (``failed``), or the row ended (the player answered)."""
        ...

    def listen(self, counted: Callable[[str, int], None]) -> None: ...

    async def durable(self) -> None:
        """Return once every change queued so far is written (and its count told).

        Raises:
            StoreError: the store cannot write now.
        """
        ...


class PlayerHealth:
    """Failures in a row per player, and the SUSPENDED/ACTIVE switch they drive."""

    def __init__(
        self,
        agents: AgentRegistry,
        states: AgentStates,
        event: Callable[..., None],
        limit: int,
        shared: SharedFailures | None = None,
    ):
        """``shared``: where the counts are kept (None: this League Manager's memory)."""
        self._agents = agents
        self._states = states
        self._event = event
        self._limit = limit
        self._shared = shared
        self._failures: dict[str, int] = defaultdict(int)
        """The counts, where they are kept in memory."""
        self._why: dict[str, str] = {}
        """The shared store's: the last failure counted here of each player, until the
        store tells its count."""
        if shared is not None:
            shared.listen(self._counted)

    def failed(self, player_id: str, why: str) -> None:
        agent = self._agents.get(player_id)
        if agent is None or agent.kind != "player" or agent.state in ("SHUTDOWN", "REMOVED"):
            return
        if self._shared is not None:
            self._why[player_id] = why
            self._shared.count_failure(player_id, failed=True)
            return
        self._failures[player_id] += 1
        self._judge(player_id, self._failures[player_id], why)

    def _counted(self, player_id: str, failures: int) -> None:
        """The shared store's count of the player's failures in a row, just written."""
        why = self._why.get(player_id, "failures counted by other League Managers")
        agent = self._agents.get(player_id)
        if failures and agent is not None and agent.state not in ("SHUTDOWN", "REMOVED"):
            self._judge(player_id, failures, why)

    def _judge(self, player_id: str, failures: int, why: str) -> None:
        agent = self._agents.get(player_id)
        if failures >= self._limit and agent is not None and agent.state != "SUSPENDED":
            self._states.set_state(player_id, "SUSPENDED")
            self._event("player_suspended", player_id=player_id, failures=failures, last=why)

    def answered(self, player_id: str) -> None:
        agent = self._agents.get(player_id)
        if agent is None or agent.kind != "player":
            return
        self._failures.pop(player_id, None)
        if self._shared is not None:
            self._shared.count_failure(player_id, failed=False)
        if agent.state == "SUSPENDED":
            self._states.set_state(player_id, "ACTIVE")
            self._event("player_recovered", player_id=player_id)

    async def judged(self) -> None:
        """Return once every failure counted so far has been judged: at once where they are
        counted in memory; on a shared store once it has told their counts, so a round
        hands no match to a player its failures just suspended (where the store cannot
        write now, at once: its counts are told once it can)."""
        if self._shared is None:
            return
        try:
            await self._shared.durable()
        except StoreError:
            return

    def suspended(self, player_ids: Sequence[str]) -> list[str]:
        """Those of ``player_ids`` that are SUSPENDED now, or REMOVED (for good): their
        matches are forfeits."""
        return [
            player_id
            for player_id in player_ids
            if (agent := self._agents.get(player_id)) is not None
            and agent.state in ("SUSPENDED", "REMOVED")
        ]

"""Players that keep failing are SUSPENDED, and come back when they answer again.

A player fails when it loses a match by technical loss or never takes a notification; after
the league's ``suspend_after_failures`` failures in a row it is SUSPENDED, and each of its
matches still to play is recorded at once as a forfeit (a technical loss for the suspended
players, decided like any result with technical losers) instead of keeping a referee
waiting through every retry. Anything it answers clears the count and makes it ACTIVE again:
a notification taken (every round announcement still goes to it), a match played soundly,
a request of its own. The count lives in memory; the state is saved with the agents.
A player the admin REMOVED (``admin.py``) is out of play the same way, but nothing it
answers brings it back.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry

__all__ = ["PlayerHealth"]


class PlayerHealth:
    """Failures in a row per player, and the SUSPENDED/ACTIVE switch they drive."""

    def __init__(
        self,
        agents: AgentRegistry,
        states: AgentStates,
        event: Callable[..., None],
        limit: int,
    ):
        self._agents = agents
        self._states = states
        self._event = event
        self._limit = limit
        self._failures: dict[str, int] = defaultdict(int)

    def failed(self, player_id: str, why: str) -> None:
        agent = self._agents.get(player_id)
        if agent is None or agent.kind != "player" or agent.state in ("SHUTDOWN", "REMOVED"):
            return
        self._failures[player_id] += 1
        if self._failures[player_id] >= self._limit and agent.state != "SUSPENDED":
            self._states.set_state(player_id, "SUSPENDED")
            self._event(
                "player_suspended",
                player_id=player_id,
                failures=self._failures[player_id],
                last=why,
            )

    def answered(self, player_id: str) -> None:
        agent = self._agents.get(player_id)
        if agent is None or agent.kind != "player":
            return
        self._failures.pop(player_id, None)
        if agent.state == "SUSPENDED":
            self._states.set_state(player_id, "ACTIVE")
            self._event("player_recovered", player_id=player_id)

    def suspended(self, player_ids: Sequence[str]) -> list[str]:
        """Those of ``player_ids`` that are SUSPENDED now, or REMOVED (for good): their
        matches are forfeits."""
        return [
            player_id
            for player_id in player_ids
            if (agent := self._agents.get(player_id)) is not None
            and agent.state in ("SUSPENDED", "REMOVED")
        ]

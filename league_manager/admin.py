"""The course staff's hold on a league: pause and resume, and removing a player for good.

**Pause.** While paused no match is handed to a referee, no forfeit is recorded and no
round starts (nor does the league complete); matches a referee already plays finish and
their results are recorded as always, so nothing accepted is lost. The round runner awaits
``LeagueControl.resumed()`` before each hand-over and each round. The flag is kept in
``admin.json`` beside the league's data (atomic write, previous version as ``.bak``), so a
League Manager restarted while paused stays paused; a file found damaged with no usable
backup starts the league paused (the safe side: the admin resumes it) and says so.

**Remove.** A removed player's agent state becomes ``REMOVED``, saved in ``agents.json``:
a suspension nothing lifts (SUSPENDED ends when the player answers; REMOVED never ends).
Each of its matches not being played at that moment is recorded, when the round runner
comes to it, as a forfeit through the same path as a SUSPENDED player's (a technical loss
for it, the opponents decided as in any result with technical losers), so the journal and
the standings agree; a match a referee already plays finishes and counts as reported. It
gets no notification any more (rounds, standings, the league's end), and keeps its
standings row with what it played. A player is removed once the schedule is fixed (before
that it is in no match; the schedule is made from the registered players).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from league_manager.agent_states import AgentStates
from league_manager.agents import AgentRegistry
from league_manager.records import LeagueStatus
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from sdk.auth import secret_matches
from sdk.store import StoreError, load_with_backup, quarantine, write_document

__all__ = [
    "ADMIN_FILE",
    "AdminError",
    "LeagueControl",
    "PlayerRemoval",
    "check_admin_token",
    "save_pause",
]

ADMIN_FILE = "admin.json"
"""The admin's switches, in the league's data folder."""


class AdminError(Exception):
    """An admin request that cannot be done now; ``status`` is the HTTP status to answer."""

    def __init__(self, status: int, description: str):
        super().__init__(description)
        self.status = status
        self.description = description


def check_admin_token(authorization: str | None, admin_token: str) -> None:
    """Constant-time check of ``Authorization: Bearer <admin token>``.

    Raises:
        AdminError: 401 without it or malformed, 403 a wrong token.
    """
    scheme, _, presented = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not presented:
        raise AdminError(401, "this action needs 'Authorization: Bearer <admin token>'")
    if not secret_matches(presented.strip(), admin_token):
        raise AdminError(403, "the admin token is wrong")


class LeagueControl:
    """The pause switch (an asyncio.Event the runner awaits), saved in admin.json."""

    def __init__(
        self,
        league_dir: Path,
        league_id: str,
        schedule: ScheduleBook,
        event: Callable[..., None],
        *,
        publish: Callable[[bool], None] | None = None,
        paused: bool = False,
    ):
        """``publish``: where the switch is kept instead of admin.json (a shared store's
        queue), and ``paused``, its value there at start-up."""
        self._league_id = league_id
        self._publish = publish
        self._schedule = schedule
        self._event = event
        self._path = league_dir / ADMIN_FILE
        self.recovery_notes: list[str] = []
        """What start-up found damaged in admin.json and what it did, a sentence each."""
        self.paused = paused if publish is not None else self._load()
        self.held = 0
        """How many hand-overs and rounds wait for the admin to resume right now."""
        self._resumed = asyncio.Event()
        if not self.paused:
            self._resumed.set()

    def _load(self) -> bool:
        try:
            loaded = load_with_backup(self._path, _paused_of)
        except StoreError as exc:
            kept = quarantine(self._path).name if self._path.exists() else None
            self.recovery_notes.append(
                f"{exc}; the league starts paused (resume it with POST /admin/resume)"
                + (f"; kept the damaged file as {kept}" if kept else "")
            )
            self._save(True)
            return True
        if loaded is None:
            return False
        if loaded.problem is not None:
            kept = quarantine(self._path).name if self._path.exists() else None
            self.recovery_notes.append(
                f"{loaded.problem}; recovered it from {loaded.source.name}"
                + (f", kept the damaged file as {kept}" if kept else "")
            )
            self._save(loaded.value)
        return loaded.value

    def _save(self, paused: bool) -> None:
        if self._publish is not None:
            self._publish(paused)
        else:
            save_pause(self._path.parent, self._league_id, paused)

    def adopt(self, paused: bool) -> None:
        """The switch as the League Manager that leads set it (a shared store's)."""
        self.paused = paused
        if paused:
            self._resumed.clear()
        else:
            self._resumed.set()

    async def resumed(self) -> None:
        """Return at once unless paused; then when the admin resumes."""
        if self._resumed.is_set():
            return
        self.held += 1
        try:
            await self._resumed.wait()
        finally:
            self.held -= 1

    def pause(self, running_matches: int) -> None:
        """Stop handing out matches and starting rounds; the ``running_matches`` finish."""
        status = self._schedule.status
        if status != LeagueStatus.RUNNING:
            raise _refusal(
                f"the league is not running (it is {status.value}); only a "
                "running league can be paused"
            )
        if self.paused:
            raise _refusal("the league is paused already")
        self._save(True)
        self.paused = True
        self._resumed.clear()
        self._event("league_paused", running_matches=running_matches)

    def resume(self) -> None:
        """Let the runner hand out matches and start rounds again."""
        if not self.paused:
            raise _refusal("the league is not paused")
        self._save(False)
        self.paused = False
        self._resumed.set()
        self._event("league_resumed_by_admin")


class PlayerRemoval:
    """The admin's removal of a player, given the records it changes."""

    def __init__(
        self,
        schedule: ScheduleBook,
        results: ResultsBook,
        agents: AgentRegistry,
        states: AgentStates,
        event: Callable[..., None],
    ):
        self._schedule = schedule
        self._results = results
        self._agents = agents
        self._states = states
        self._event = event

    def remove_player(self, player_id: str) -> dict[str, Any]:
        """Remove a player for good; its matches not being played become forfeits."""
        status = self._schedule.status
        agent = self._agents.get(player_id)
        if agent is None or agent.kind != "player":
            raise AdminError(404, f"there is no player {player_id!r} in this league")
        if agent.state == "REMOVED":
            raise _refusal(f"{player_id} was removed already")
        if status == LeagueStatus.COMPLETED:
            raise _refusal("the league has completed: its results are final")
        if status == LeagueStatus.REGISTRATION:
            raise _refusal(
                f"registration is open: {player_id} is in no match yet; fix the schedule "
                "first (POST /create_schedule), then remove it and its matches become "
                "technical losses"
            )
        unplayed = [
            m.match_id
            for m in self._schedule.matches_of(player_id)
            if m.match_id not in self._results
        ]
        self._states.set_state(player_id, "REMOVED")
        self._event("player_removed", player_id=player_id, unplayed_matches=len(unplayed))
        return {"player_id": player_id, "state": "REMOVED", "unplayed_matches": unplayed}


def save_pause(league_dir: Path, league_id: str, paused: bool) -> None:
    """Write admin.json's pause switch (the version replaced kept as .bak).

    Raises:
        FileSystemError: the file system refused the file.
    """
    write_document(
        league_dir / ADMIN_FILE, {"league_id": league_id, "paused": paused}, keep_backup=True
    )


def _refusal(description: str) -> AdminError:
    return AdminError(409, description)


def _paused_of(document: Any) -> bool:
    """admin.json's pause flag.

    Raises:
        ValueError, KeyError, TypeError: it does not hold one.
    """
    paused = document["paused"]
    if not isinstance(paused, bool):
        raise ValueError("paused is not true or false")
    return paused

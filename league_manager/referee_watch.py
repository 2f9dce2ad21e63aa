"""What the League Manager learns by asking a referee about a match it gave it.

The referee's ``get_match_state`` answers in a few milliseconds and says whether the
referee still holds the match, and how far it got. The League Manager asks:

- **while it waits for a result**, once a second: a referee that no longer answers
  (killed, crashed, its machine gone) is noticed after ``PROBE_MISSES`` asks, a couple of
  seconds, instead of after the league's ``match_timeout_sec`` (300 s by default); one that
  answers that it does not hold the match (it restarted) is noticed at once. Either way
  the match goes to another referee. A referee that answers but is slow keeps the match
  until the match timeout, as before.
- **after its own restart**, once per match that may have been given out before it: a
  referee still playing it keeps it (the League Manager waits for its report instead of
  starting the match a second time elsewhere), and a referee that decided it while the
  League Manager was down, and could not report it, has its result recorded from its own
  match record, exactly once, as if it had reported it.

A referee that does not serve ``get_match_state`` (the method is the protocol's debugging
tool, and published referees may lack it) is taken as alive and waited for until the match
timeout; only silence, never an error answer, counts as gone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from league_manager.agent_states import AgentStates
from league_manager.agents import RegisteredAgent
from league_manager.fencing import Fencing
from league_manager.records import MatchProgress
from league_manager.results_book import ResultsBook
from league_manager.upkeep import Upkeep
from sdk.client import RpcClient
from sdk.config import LeagueConfig
from sdk.errors import ErrorCode, ProtocolError, RemoteError, TransportError
from sdk.messages import MatchResult, MatchResultAck, MatchResultReport, Method
from sdk.timeouts import within

__all__ = [
    "PROBE_MISSES",
    "TakeResult",
    "PROBE_SEC",
    "PROBE_TIMEOUT_SEC",
    "MatchView",
    "RefereeWatch",
    "Verdict",
    "view_of",
]

PROBE_SEC = 1.0
"""How often a match's referee is asked about it while its result is awaited."""
PROBE_TIMEOUT_SEC = 2.0
"""How long one ask may take (a referee answers it from memory, in milliseconds)."""
PROBE_MISSES = 2
"""Asks in a row without an answer after which the referee is taken for gone."""

Verdict = Literal["gone", "dropped", "running", "reporting", "decided", "alive"]
"""gone: no answer. dropped: it does not hold the match, or aborted it (a restart). running:
being played. reporting: decided, its report on the way. decided: decided, and the referee
gave up reporting it (it could not reach us, or we refused it). alive: it answered, but not
with a match state (a referee without get_match_state)."""

TakeResult = Callable[[MatchProgress, str, MatchResultReport], Awaitable[MatchResultAck]]
"""``ResultDesk.take_result``: count a referee's result once, through a report's checks."""


@dataclass(frozen=True)
class MatchView:
    """One referee's answer about one match."""

    verdict: Verdict
    detail: str = ""
    result: dict[str, Any] | None = None
    """The referee's result of a decided match: MATCH_RESULT_REPORT's ``result``."""
    assignment: int | None = None
    """The assignment the referee plays it under (None: it names none)."""


def view_of(answer: dict[str, Any], expected: int | None = None) -> MatchView:
    """What a get_match_state answer says about the match (see ``Verdict``); a referee that
    plays it under another assignment than ``expected`` (when both are known) no longer
    holds the one it was given."""
    match = answer.get("match")
    if not isinstance(match, dict):
        return MatchView("alive", "the answer holds no match state")
    number = match.get("assignment")
    assignment = number if isinstance(number, int) and not isinstance(number, bool) else None
    if None not in (expected, assignment) and assignment != expected:
        return MatchView("dropped", f"it plays assignment {assignment}, not {expected}")
    lifecycle = match.get("lifecycle") or [{}]
    state = lifecycle[-1].get("state") if isinstance(lifecycle[-1], dict) else None
    if state == "ABORTED" or match.get("report_status") == "superseded":
        return MatchView("dropped", "the referee aborted it")
    if state != "FINISHED":
        return MatchView("running", f"state {state}", assignment=assignment)
    result = match.get("result")
    report = result.get("report") if isinstance(result, dict) else None
    if not isinstance(report, dict):
        return MatchView("dropped", "finished without a result")
    if match.get("report_status") == "pending":
        return MatchView("reporting", "decided, reporting", assignment=assignment)
    return MatchView("decided", f"decided, report {match.get('report_status')}", report, assignment)


class RefereeWatch:
    """Asks referees about matches for the round flow; a referee found holding a match
    joins the ones it was given to (``fencing``), so that its report is accepted."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        config: LeagueConfig,
        client: RpcClient,
        results: ResultsBook,
        upkeep: Upkeep,
        states: AgentStates,
        fencing: Fencing,
        take_result: TakeResult,
        event: Callable[..., None],
    ):
        self._league_id = league_id
        self._sender = sender
        self._config = config
        self._client = client
        self._results = results
        self._upkeep = upkeep
        self._states = states
        self._fencing = fencing
        self._take_result = take_result
        self._event = event

    async def ask(
        self, match: MatchProgress, referee: RegisteredAgent, *, holding: bool = False
    ) -> MatchView:
        """``holding``: the referee holds the match's current assignment, so an answer
        about another one means it holds it no more."""
        params: dict[str, Any] = {
            "match_id": match.match_id,
            "league_id": self._league_id,
            "sender": self._sender,
            "conversation_id": f"{self._league_id}:{match.match_id}",
        }
        expected = match.assignment if holding else None
        if expected is not None:
            params["assignment"] = expected
        try:
            answer = await self._client.call(
                referee.contact_endpoint,
                Method.GET_MATCH_STATE,
                params,
                timeout=PROBE_TIMEOUT_SEC,
                retries=0,
                method_aliases=False,
            )
        except TransportError as exc:
            return MatchView("gone", exc.description)
        except RemoteError as exc:
            if exc.code == ErrorCode.MATCH_NOT_FOUND.value:
                return MatchView("dropped", exc.description)
            return MatchView("alive", f"{exc.code}: {exc.description}")
        return view_of(answer, expected)

    async def adopt(self, match: MatchProgress, referee: RegisteredAgent, view: MatchView) -> bool:
        """Record the result a referee decided but could not report, through the same
        checks as a report; True if the match now has its result."""
        self._fencing.gave(match.match_id, referee.agent_id)
        try:
            report = MatchResultReport(
                sender=f"referee:{referee.agent_id}",
                conversation_id=f"{self._league_id}:{match.match_id}",
                league_id=self._league_id,
                round_id=match.round_id,
                match_id=match.match_id,
                game_type=self._config.game_type,
                result=MatchResult.model_validate(view.result),
            )
            ack = await self._take_result(match, referee.agent_id, report)
        except (ProtocolError, ValidationError) as exc:
            self._event(
                "referee_result_unusable",
                match_id=match.match_id,
                referee_id=referee.agent_id,
                reason=" ".join(str(exc).split())[:300],
            )
            return False
        self._event(
            "referee_result_recovered",
            match_id=match.match_id,
            referee_id=referee.agent_id,
            status=ack.status,
        )
        return True

    async def holder_after_restart(
        self, match: MatchProgress, referees: list[RegisteredAgent]
    ) -> RegisteredAgent | None:
        """After a restart, before the match is handed out again: the referee still playing
        it (None if none is), having recorded the result of one that decided it."""
        views = await asyncio.gather(*(self.ask(match, referee) for referee in referees))
        holders = [
            (referee, view)
            for referee, view in zip(referees, views, strict=True)
            if view.verdict in ("running", "reporting", "decided")
        ]
        for referee, _ in holders:
            self._fencing.gave(match.match_id, referee.agent_id)
        for referee, view in holders:
            if view.verdict == "decided" and await self.adopt(match, referee, view):
                return None
        for referee, view in holders:
            if view.verdict in ("running", "reporting"):
                self._event(
                    "match_resumed",
                    match_id=match.match_id,
                    referee_id=referee.agent_id,
                    detail=view.detail,
                )
                match.referee_id, match.referee_endpoint = (
                    referee.agent_id,
                    referee.contact_endpoint,
                )
                match.assignment = view.assignment  # its reports carry the number it has
                return referee
        return None

    async def wait_for_result(
        self, match: MatchProgress, referee: RegisteredAgent, done: asyncio.Event
    ) -> bool:
        """Wait for the match's result, up to the league's match timeout, asking the
        referee about it every ``PROBE_SEC``; False if the match must go to another
        referee (timed out, referee gone, or the referee no longer holds it)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._config.match_timeout_sec
        misses = 0
        while match.match_id not in self._results:
            if not self._upkeep.can_write:  # the League Manager's own disk holds it up
                deadline = max(deadline, loop.time() + 2 * PROBE_SEC)
            left = deadline - loop.time()
            if left <= 0:
                self._event("match_timed_out", match_id=match.match_id, referee_id=referee.agent_id)
                return False
            try:
                await within(done.wait(), min(left, PROBE_SEC))
                continue
            except asyncio.TimeoutError:
                pass
            view = await self.ask(match, referee, holding=True)
            misses = misses + 1 if view.verdict == "gone" else 0
            if misses >= PROBE_MISSES:
                self._states.set_state(referee.agent_id, "SUSPENDED")
                self._event(
                    "referee_lost",
                    match_id=match.match_id,
                    referee_id=referee.agent_id,
                    reason=view.detail,
                )
                return False
            if view.verdict == "dropped":
                self._event(
                    "match_dropped",
                    match_id=match.match_id,
                    referee_id=referee.agent_id,
                    reason=view.detail,
                )
                return False
            if view.verdict == "decided":
                await self.adopt(match, referee, view)
        return True

    async def held_by(self, match: MatchProgress, referee: RegisteredAgent) -> bool:
        """A referee refused ``start_match`` because it has the match already: True if it
        is still playing it (then wait for it) or its result is now recorded."""
        view = await self.ask(match, referee)
        if view.verdict in ("running", "reporting"):
            self._fencing.gave(match.match_id, referee.agent_id)
            return True
        return view.verdict == "decided" and await self.adopt(match, referee, view)

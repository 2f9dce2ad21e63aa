"""Seats: whatever answers a match's moves. The engine asks every seat the same way, so a
remote player over HTTP (``match_engine.remote``), a strategy in process (here), or a
person behind a terminal or a web page (the playroom's) plays a seat of the same match.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from games import ActionSpace
from match_engine.outcome import Fault, MatchOutcome
from match_engine.plan import MatchPlan
from match_engine.rules import GameRules
from sdk.agent_log import AgentLog
from sdk.messages import Method, MoveData
from sdk.timeutil import utc_now
from strategies import MoveView, Strategy
from strategies.runner import Decision, StrategyRunner

__all__ = ["MoveCall", "Seat", "StrategySeat"]


@dataclass(frozen=True)
class MoveCall:
    """One move asked of one seat at one stage: what its player may see and do."""

    stage: int
    observation: Mapping[str, Any]
    space: ActionSpace
    timeout: float
    """Seconds the seat has to answer (each attempt of a remote call gets them afresh)."""
    messages: list[dict[str, Any]] = field(default_factory=list)
    """The other players' messages this player has not been shown yet."""

    def deadline(self) -> datetime:
        """The deadline of an attempt that starts now."""
        return utc_now() + _span(self.timeout)


@functools.lru_cache(maxsize=8)
def _span(seconds: float) -> timedelta:
    """A call's timeout as a duration: a match's calls share one (made once, not per move)."""
    return timedelta(seconds=seconds)


class Seat(Protocol):
    """One player's seat in a match: invited, asked a move per stage it acts in, told the
    result. A failure is the seat's ``Fault`` (its technical loss), never an exception."""

    async def invite(self) -> Fault | None:
        """Seat the player; a refusal or a failure is its fault."""
        ...

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        """The player's move for this stage, in ``call.space``."""
        ...

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        """Tell the player the result (best effort: it changes no result)."""
        ...


class StrategySeat:
    """A strategy (``strategies.Strategy``) played in process, as a player host plays it:
    shown the view the host would build from the wire call (even/odd's ``choose_parity``
    carries no observation), run by the host's ``StrategyRunner`` (its deadline, and a
    random legal move, logged, when the strategy raises, answers late or plays an illegal
    move), told nothing of the result."""

    def __init__(
        self,
        strategy: Strategy,
        *,
        plan: MatchPlan,
        rules: GameRules,
        player_id: str,
        log: AgentLog,
        fallback_seed: int | str | None = None,
    ):
        """``fallback_seed`` seeds the random legal moves that replace failed answers."""
        self._runner = StrategyRunner(
            strategy, log, margin_sec=0.0, max_budget_sec=math.inf, fallback_seed=fallback_seed
        )
        """No margin: the answer has no trip back; the call's deadline bounds the budget."""
        self._move_type = rules.spec.move_types[0]
        self._parity = rules.move_method == Method.CHOOSE_PARITY
        """Even/odd's choose_parity carries no observation: the view keeps its defaults."""
        self._shown = MoveView(
            game_type=plan.game_type,
            match_id=plan.match_id,
            league_id=plan.league_id,
            round_id=plan.round_id,
            player_id=player_id,
            opponent_id=next(p for p in plan.player_ids if p != player_id),
            role=next(seat.role for seat in plan.seats if seat.player_id == player_id),
            deadline=utc_now(),
        )
        """The view's part that is the same at every call (the deadline is each call's)."""

    async def invite(self) -> Fault | None:
        return None

    async def ask(self, call: MoveCall) -> MoveData | Fault:
        return self._move(await self._runner.choose(self.view(call)))

    @property
    def answers_now(self) -> bool:
        """The strategy runs inline (``StrategyRunner.inline``): ``answer_now`` gives its
        move with no await, so the match needs no task to ask it."""
        return self._runner.inline

    def answer_now(self, call: MoveCall) -> MoveData:
        """``ask`` for a seat that ``answers_now``."""
        return self._move(self._runner.choose_now(self.view(call), call.space))

    def _move(self, decision: Decision) -> MoveData:
        return MoveData(
            move_type=self._move_type,
            move=decision.choice,
            message=decision.message,
            reasoning=decision.reasoning,
        )

    async def announce(self, outcome: MatchOutcome, faulty: bool) -> None:
        return None

    def view(self, call: MoveCall) -> MoveView:
        """What the player host shows its strategy for this call: the seat's own part,
        checked once, with this call's part, which the engine made (no check per move)."""
        if self._parity:
            return self._shown.model_copy(update={"deadline": call.deadline()})
        space = call.space
        return self._shown.model_copy(
            update={
                "deadline": call.deadline(),
                "legal_moves": tuple(space.choices) if space.kind == "choice" else (),
                "action_space": space.describe(),
                "observation": dict(call.observation),
                "messages": tuple(call.messages),
            }
        )

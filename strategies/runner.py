"""Running a strategy safely: off the event loop, one call at a time, bounded by the
move's deadline, and never sending an illegal move because of a bug in the strategy
(an illegal answer, an exception or a late answer becomes a random legal move, logged and
counted)."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from games import Action, ActionSpace
from sdk.agent_log import AgentLog
from sdk.timeouts import within
from sdk.timeutil import utc_now
from strategies import MoveView, Say, Strategy
from strategies.view import PastMatch

__all__ = ["STRATEGY_DEFAULT", "Decision", "DecisionStats", "FallbackReason", "StrategyRunner"]

FallbackReason = Literal["illegal", "raised", "timeout"]
"""Why the host replaced the strategy's answer with a random legal move."""
STRATEGY_DEFAULT = "strategy:"
"""The prefix of a fallback the strategy declared itself (``Say.fallback``): its own
default move, ``strategy:invalid`` for an llm whose model answered no legal move."""
MIN_BUDGET_SEC = 0.05
"""Even past its deadline (clock skew between machines) a strategy gets this long."""
HOOK_BUDGET_SEC = 2.0
"""How long ``on_match_over`` and ``reset`` may take before the host stops waiting."""


@dataclass(frozen=True)
class Decision:
    """The move sent, and why it is not the strategy's decision if it is a fallback: the
    host's reason (``FallbackReason``), or ``strategy:<reason>`` for the strategy's own
    default move."""

    choice: Action
    elapsed_ms: float
    fallback: str | None = None
    message: str | None = None
    reasoning: str | None = None


@dataclass
class DecisionStats:
    """Counters of this run's decisions (the history file keeps the lifetime results).

    ``fallbacks`` has one meaning: moves sent that the strategy did not decide, each move
    once, whoever chose it: the host, for an illegal, failed or late answer (``illegal``,
    ``raised``, ``timeout``), or the strategy's declared default (``strategy:<reason>``). A
    strategy's own report may count its defaults too (the llm's ``default_moves``), and
    counts there an answer the host found too late, which this counts as ``timeout``.

    A plain dataclass, read by attribute (``players.reports``): it counts every move, and a
    pydantic model's assignment costs more than the counting."""

    decisions: int = 0
    choices: dict[str, int] = field(default_factory=dict)
    fallbacks: int = 0
    fallbacks_by_reason: dict[str, int] = field(default_factory=dict)
    total_ms: float = 0.0

    def add(self, decision: Decision) -> None:
        self.decisions += 1
        self.total_ms += decision.elapsed_ms
        shown = decision.choice if isinstance(decision.choice, str) else json.dumps(decision.choice)
        self.choices[shown] = self.choices.get(shown, 0) + 1
        if decision.fallback is not None:
            self.fallbacks += 1
            reasons = self.fallbacks_by_reason
            reasons[decision.fallback] = reasons.get(decision.fallback, 0) + 1

    @property
    def average_ms(self) -> float | None:
        return round(self.total_ms / self.decisions, 3) if self.decisions else None


@dataclass(frozen=True)
class _Outcome:
    value: Any = None
    error: Exception | None = None


class StrategyRunner:
    """Calls one strategy for the host; its calls never overlap (strategies keep state)."""

    def __init__(
        self,
        strategy: Strategy,
        log: AgentLog,
        *,
        margin_sec: float,
        max_budget_sec: float,
        fallback_seed: int | str | None = None,
    ):
        """``fallback_seed`` seeds the random legal moves that replace a failed answer (an
        evaluation's episode repeats with its seed); None draws fresh."""
        self.strategy = strategy
        self.stats = DecisionStats()
        self._log = log
        self._margin = margin_sec
        self._max_budget = max_budget_sec
        self._lock = threading.Lock()
        self._fallback_rng = random.Random(fallback_seed)

    def _guarded(self, function: Callable[..., Any], *args: Any) -> _Outcome:
        with self._lock:
            try:
                return _Outcome(value=function(*args))
            except Exception as exc:
                return _Outcome(error=exc)

    async def _run(self, budget: float, function: Callable[..., Any], *args: Any) -> _Outcome:
        """Run in a worker thread; a call still running after ``budget`` is abandoned (a
        thread cannot be stopped; the lock keeps the next call waiting until it returns).
        A strategy classified ``inline`` runs here directly: a thread hop per move costs
        more than such a strategy's whole decision."""
        if self.inline:
            return self._guarded(function, *args)
        return await within(asyncio.to_thread(self._guarded, function, *args), budget)

    def budget(self, view: MoveView) -> float:
        """Seconds the strategy may think: until the deadline (at most the call's timeout)
        less the margin for the answer's trip back."""
        left = min((view.deadline - utc_now()).total_seconds(), self._max_budget)
        return max(left - self._margin, MIN_BUDGET_SEC)

    @property
    def inline(self) -> bool:
        """The strategy runs on the caller's thread (``Classifier.inline``): ``choose_now``
        decides without awaiting anything."""
        return self.strategy.classifier.inline

    async def choose(self, view: MoveView) -> Decision:
        started = time.perf_counter()
        budget = self.budget(view)
        try:
            outcome = await self._run(budget, self.strategy.choose, view)
        except asyncio.TimeoutError:
            return self._decided(view, started, None, detail={"budget_sec": round(budget, 3)})
        return self._decided(view, started, outcome)

    def choose_now(self, view: MoveView, space: ActionSpace) -> Decision:
        """``choose`` for an ``inline`` strategy, on this thread with no await (an inline
        strategy has no deadline enforced either way: it is never abandoned), by a caller
        that holds the ``space`` the view describes (no rebuilding it from the view)."""
        started = time.perf_counter()
        return self._decided(view, started, self._guarded(self.strategy.choose, view), space)

    def _decided(
        self,
        view: MoveView,
        started: float,
        outcome: _Outcome | None,
        space: ActionSpace | None = None,
        detail: dict[str, Any] | None = None,
    ) -> Decision:
        """The move sent for the strategy's ``outcome`` (None: it answered too late), its
        fallback logged and every decision counted."""
        space = space or view.space()
        reason: FallbackReason | None = "timeout" if outcome is None else None
        detail = detail or {}
        answer: Any = None
        said: Say | None = None
        if outcome is not None:
            answer = outcome.value
            said = answer if isinstance(answer, Say) else None
            if said is not None:
                answer = said.move
            if outcome.error is not None:
                reason, detail = "raised", {"exc_info": outcome.error}
            elif not space.contains(answer):
                reason, detail = "illegal", {"answer": repr(answer)[:80]}
        choice = answer if reason is None else space.sample(self._fallback_rng)
        spoke = said if reason is None else None
        fallback = reason or (
            STRATEGY_DEFAULT + spoke.fallback if spoke and spoke.fallback else None
        )
        decision = Decision(
            choice=choice,
            fallback=fallback,
            elapsed_ms=(time.perf_counter() - started) * 1000,
            message=spoke.message if spoke else None,
            reasoning=spoke.reasoning if spoke else None,
        )
        if fallback is not None:
            self._log.log.warning(
                "strategy_fallback",
                match_id=view.match_id,
                reason=fallback,
                choice=choice,
                legal_moves=list(view.legal_moves),
                action_space=view.action_space,
                **detail,
            )
        self.stats.add(decision)
        return decision

    async def match_over(self, record: PastMatch) -> None:
        await self._hook("on_match_over", self.strategy.on_match_over, record)

    async def reset(self) -> None:
        await self._hook("reset", self.strategy.reset)

    async def _hook(self, name: str, function: Callable[..., Any], *args: Any) -> None:
        """A hook's failure is the strategy's problem, never the protocol's: logged only."""
        try:
            outcome = await self._run(HOOK_BUDGET_SEC, function, *args)
        except asyncio.TimeoutError:
            self._log.log.warning(
                "strategy_hook_failed",
                hook=name,
                reason=f"still running after {HOOK_BUDGET_SEC:g} s",
            )
            return
        if outcome.error is not None:
            self._log.log.warning("strategy_hook_failed", hook=name, exc_info=outcome.error)

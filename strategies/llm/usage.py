"""The record of every LLM call and default move, with totals per match and per league:
what the player's ``/stats`` shows under ``strategy_report``.

A *default move* is an answer the strategy gave without its model's decision (the model's
answers were invalid, late or failed). The host also counts each one it sent among
``/stats``' ``fallbacks`` (``strategies.runner.DecisionStats``): that is the one count of
moves sent undecided; this one is the model's side, per match and league.

Written from the strategy's worker thread, read from the event loop: one lock guards it.
"""

from __future__ import annotations

import threading
from collections import deque
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from sdk.timeutil import utc_now

__all__ = ["CallRecord", "FallbackReason", "LlmReport", "UsageBook", "UsageTotals"]

FallbackReason = Literal["invalid", "timeout", "http_error", "bad_response", "error"]
RECENT_CALLS = 50
"""How many calls, raw text included, ``/stats`` shows (the totals count every call)."""
NO_LEAGUE = "standalone"
"""The league key of matches played outside a league (a referee's ``/run_match``)."""


class CallRecord(BaseModel):
    """One chat-completions call: the attempt it was, what it cost, what came back."""

    match_id: str
    league_id: str | None
    attempt: Literal["move", "clarification"]
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float
    text: str | None = None
    """The raw completion text (None: the call failed, see ``error``)."""
    error: str | None = None
    at: datetime = Field(default_factory=utc_now)


class UsageTotals(BaseModel):
    """Sums over some calls and moves."""

    moves: int = 0
    calls: int = 0
    failed_calls: int = 0
    clarifications: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    default_moves: int = 0
    """Moves answered with the default move: the model gave no legal move in time."""
    default_moves_by_reason: dict[str, int] = Field(default_factory=dict)

    def add_call(self, call: CallRecord) -> None:
        self.calls += 1
        self.failed_calls += call.error is not None
        self.clarifications += call.attempt == "clarification"
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.latency_ms = round(self.latency_ms + call.latency_ms, 3)

    def add_move(self, fallback: FallbackReason | None) -> None:
        self.moves += 1
        if fallback is not None:
            self.default_moves += 1
            reasons = self.default_moves_by_reason
            reasons[fallback] = reasons.get(fallback, 0) + 1


class LlmReport(BaseModel):
    """The ``llm`` strategy's part of ``/stats``."""

    model: str
    base_url: str
    totals: UsageTotals
    by_league: dict[str, UsageTotals]
    by_match: dict[str, UsageTotals]
    recent_calls: list[CallRecord]


class UsageBook:
    """Every call and move of this run, summed three ways (all, per league, per match)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._totals = UsageTotals()
        self._by_league: dict[str, UsageTotals] = {}
        self._by_match: dict[str, UsageTotals] = {}
        self._recent: deque[CallRecord] = deque(maxlen=RECENT_CALLS)

    def _rows(self, match_id: str, league_id: str | None) -> tuple[UsageTotals, ...]:
        league = self._by_league.setdefault(league_id or NO_LEAGUE, UsageTotals())
        return self._totals, league, self._by_match.setdefault(match_id, UsageTotals())

    def add_call(self, call: CallRecord) -> None:
        with self._lock:
            self._recent.append(call)
            for row in self._rows(call.match_id, call.league_id):
                row.add_call(call)

    def add_move(
        self, match_id: str, league_id: str | None, fallback: FallbackReason | None
    ) -> None:
        with self._lock:
            for row in self._rows(match_id, league_id):
                row.add_move(fallback)

    def report(self, model: str, base_url: str) -> LlmReport:
        with self._lock:
            return LlmReport(
                model=model,
                base_url=base_url,
                totals=self._totals.model_copy(deep=True),
                by_league={k: v.model_copy(deep=True) for k, v in self._by_league.items()},
                by_match={k: v.model_copy(deep=True) for k, v in self._by_match.items()},
                recent_calls=list(self._recent),
            )

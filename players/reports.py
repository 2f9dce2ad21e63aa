"""What the player shows about itself: ``/status``, ``/stats`` and ``get_player_state``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from players.callers import CallerStatus
from players.config import PlayerSettings
from players.history import Totals
from players.matches import MatchInfo
from players.state import Lifecycle, PlayerState, Registration
from sdk.messages import Champion, FinalStanding, Message, StandingsRow
from strategies.runner import DecisionStats

__all__ = ["PlayerStateReport", "StatsReport", "StatusReport", "stats_report", "status_report"]


class StatusReport(BaseModel):
    player_id: str | None
    display_name: str
    state: Lifecycle
    registration: Registration
    has_auth_token: bool
    callers: CallerStatus
    """Whether the player checks its callers' proofs, and what that means."""
    league_id: str | None
    strategy: str
    contact_endpoint: str
    current_round: int | None
    last_completed_round: int | None
    next_round: int | None
    current_matches: list[MatchInfo]
    standings_round: int | None
    standings: list[StandingsRow]
    champion: Champion | None
    final_standings: list[FinalStanding]
    recent_errors: list[dict[str, Any]]
    fault: str | None


class StatsReport(BaseModel):
    """Match results over the player's whole history; decision counters since this start."""

    player_id: str | None
    strategy: str
    played: int
    wins: int
    draws: int
    losses: int
    technical_losses: int
    win_rate: float
    decisions: int
    choices: dict[str, int]
    fallbacks: int
    """Moves sent that the strategy did not decide, each once: the host's random legal move
    for an illegal, failed or late answer (``illegal``, ``raised``, ``timeout``) or the
    strategy's own default move (``strategy:<reason>``, e.g. ``strategy:invalid``)."""
    fallbacks_by_reason: dict[str, int]
    average_decision_ms: float | None
    strategy_report: dict[str, Any] | None = None
    """What the strategy counts of itself (the ``llm`` strategy: calls, tokens and default
    moves per match and per league); None for a strategy that counts nothing."""


class PlayerStateReport(Message):
    """Ours: the answer of the ``get_player_state`` debugging method."""

    MESSAGE_TYPE = "PLAYER_STATE"
    status: StatusReport
    stats: StatsReport
    history: dict[str, Any]


def status_report(
    settings: PlayerSettings,
    state: PlayerState,
    matches: list[MatchInfo],
    *,
    has_auth_token: bool,
    callers: CallerStatus,
) -> StatusReport:
    """``/status``: who the player is, where it stands and what it is playing now."""
    return StatusReport(
        player_id=state.player_id,
        display_name=settings.display_name,
        state=state.lifecycle,
        registration=state.registration,
        has_auth_token=has_auth_token,
        callers=callers,
        league_id=state.league_id,
        strategy=settings.strategy,
        contact_endpoint=settings.contact_endpoint,
        current_round=state.current_round,
        last_completed_round=state.last_completed_round,
        next_round=state.next_round,
        current_matches=matches,
        standings_round=state.standings_round,
        standings=state.standings,
        champion=state.champion,
        final_standings=state.final_standings,
        recent_errors=state.recent_errors,
        fault=state.fault,
    )


def stats_report(
    settings: PlayerSettings,
    state: PlayerState,
    totals: Totals,
    decisions: DecisionStats,
    strategy_report: dict[str, Any] | None = None,
) -> StatsReport:
    """``/stats``: lifetime results from the history, this run's decisions."""
    return StatsReport(
        player_id=state.player_id,
        strategy=settings.strategy,
        **totals.model_dump(),
        win_rate=round(totals.wins / totals.played, 4) if totals.played else 0.0,
        decisions=decisions.decisions,
        choices=decisions.choices,
        fallbacks=decisions.fallbacks,
        fallbacks_by_reason=decisions.fallbacks_by_reason,
        average_decision_ms=decisions.average_ms,
        strategy_report=strategy_report,
    )

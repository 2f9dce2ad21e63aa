"""League analytics: what the league's match files say beyond the points table.

- The **meta-game** (``league_manager.meta_game``): one row and column per player, each
  cell what the row player earned against the column player, with its count of matches
  and its 95% interval; a cell no match measured is unobserved, the diagonal included.
- Its **symmetric Nash equilibria**, checked against the cells' intervals, and the
  **replicator dynamics**, on the players whose cells are all observed
  (``league_manager.meta_solution``, ``league_manager.meta_equilibria``): in a league,
  none, since no match measures a player against itself, and the answer says so.
- **Ratings**: Elo and openskill's Plackett-Luce from the league points, match by match.
- Per-agent **metrics**: average payoffs, and cooperation and reciprocity where the game has
  a notion of cooperation.

``analyse_league`` is pure and blocking (its solver runs in a worker process); the League
Manager calls it through ``AnalysisCache``, in a thread, bounded, once per standings version.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel

from games.analysis import (
    COOPERATION,
    AnalysisError,
    History,
    average_payoffs,
    bayesian_ratings,
    cooperation_levels,
    cooperation_rates,
    elo_ratings,
    history_from_match,
    reciprocity,
    record_from_match,
)
from league_manager.meta_game import MetaGame, build_meta_game
from league_manager.meta_solution import MetaGameSolution, solve_meta_game
from sdk.timeouts import within

__all__ = [
    "AgentMetrics",
    "AnalysisCache",
    "AnalysisUnavailable",
    "LeagueAnalysis",
    "Ratings",
    "analyse_folder",
    "analyse_league",
    "read_match_files",
]


class EloRow(BaseModel):
    rating: float
    matches: int


class BayesianRow(BaseModel):
    mu: float
    sigma: float
    ordinal: float
    matches: int


class Ratings(BaseModel):
    """Both ratings by player id, best first."""

    elo: dict[str, EloRow]
    bayesian: dict[str, BayesianRow]


class AgentMetrics(BaseModel):
    """One player's metrics over its analysable matches (None: the game has no notion of
    cooperation, or the player's cooperation never varied)."""

    matches: int
    payoff_per_match: float | None
    payoff_per_stage: float | None
    cooperation: float | None
    reciprocity: float | None


class LeagueAnalysis(BaseModel):
    """Everything ``GET /analysis`` and the HTML report show."""

    league_id: str
    game_type: str
    version: int
    """The standings version (results counted) the analysis was computed at."""
    standings: list[dict[str, Any]]
    meta_game: MetaGame
    solution: MetaGameSolution
    """The equilibria, their check and the dynamics, where the observed cells allow them."""
    ratings: Ratings
    metrics: dict[str, AgentMetrics]
    cooperation_meaning: str | None
    cooperation_by_stage: list[float]
    """The mean cooperation level at each stage over all matches (empty: no notion)."""
    matches_analysed: int
    skipped: dict[str, str]
    """Match id → why it was left out of the meta-game or the metrics."""
    seconds: float


class AnalysisUnavailable(Exception):
    """There is nothing to analyse yet (no results, or no usable match file)."""


def read_match_files(
    folder: Path, accepted: Iterable[str] | None = None
) -> tuple[list[dict[str, Any]], dict[str, str]]:
    """The match files in ``folder`` (only ``accepted`` match ids when given), and the
    ones that could not be read, with why: a running referee may be mid-write."""
    wanted = None if accepted is None else set(accepted)
    documents, unreadable = [], {}
    for path in sorted(folder.glob("*.json")):
        if wanted is not None and path.stem not in wanted:
            continue
        try:
            documents.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            unreadable[path.stem] = f"unreadable match file: {type(exc).__name__}"
    return documents, unreadable


def _match_order(document: Mapping[str, Any]) -> tuple[int, str]:
    return int(document.get("round_id") or 0), str(document.get("match_id", ""))


def _ratings(documents: list[dict[str, Any]], skipped: dict[str, str]) -> Ratings:
    records = []
    for document in sorted(documents, key=_match_order):
        try:
            records.append(record_from_match(document))
        except AnalysisError as exc:
            skipped[str(document.get("match_id", "?"))] = str(exc)
    elo = elo_ratings(records)
    return Ratings(
        elo={p: EloRow(rating=round(r, 2), matches=elo.matches[p]) for p, r in elo.ranking()},
        bayesian={
            p: BayesianRow(mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, matches=r.matches)
            for p, r in bayesian_ratings(records).items()
        },
    )


def _histories(documents: list[dict[str, Any]], skipped: dict[str, str]) -> list[History]:
    histories = []
    for document in sorted(documents, key=_match_order):
        try:
            histories.append(history_from_match(document))
        except AnalysisError as exc:
            skipped.setdefault(str(document.get("match_id", "?")), str(exc))
    return histories


def _cooperation_by_stage(histories: list[History]) -> list[float]:
    by_stage: dict[int, list[float]] = defaultdict(list)
    for history in histories:
        for stage, levels in enumerate(cooperation_levels(history)):
            by_stage[stage].extend(levels.values())
    return [float(np.mean(by_stage[s])) for s in sorted(by_stage)]


def _metrics(
    players: list[str], histories: list[History], cooperative: bool
) -> dict[str, AgentMetrics]:
    payoffs = average_payoffs(histories)
    rates = cooperation_rates(histories) if cooperative else {}
    reciprocal = reciprocity(histories) if cooperative else {}
    metrics = {}
    for player in players:
        paid = payoffs.get(player)
        metrics[player] = AgentMetrics(
            matches=paid.matches if paid else 0,
            payoff_per_match=paid.per_match if paid else None,
            payoff_per_stage=paid.per_stage if paid and paid.stages else None,
            cooperation=rates.get(player),
            reciprocity=reciprocal.get(player),
        )
    return metrics


def analyse_league(
    league_id: str,
    game_type: str,
    standings: Mapping[str, Any],
    documents: list[dict[str, Any]],
    *,
    solver_timeout: float = 10.0,
    skipped: Mapping[str, str] | None = None,
) -> LeagueAnalysis:
    """The league's analytics from its standings document and its match files.

    Args:
        league_id: the league.
        game_type: its game (chooses the meta-game's measure and the cooperation notion).
        standings: the standings document (``GET /standings``): its rows name the players.
        documents: the referees' match files of the league's accepted results.
        solver_timeout: seconds each call of the equilibrium solver may take.
        skipped: match ids already left out (unreadable files), with why.

    Returns:
        The analysis (module doc).

    Raises:
        AnalysisUnavailable: no standings rows or no match to analyse.
        SolverTimeoutError: a call of the equilibrium solver went past ``solver_timeout``.
    """
    started = time.perf_counter()
    rows = list(standings.get("standings") or [])
    if not rows or not documents:
        raise AnalysisUnavailable("no results to analyse yet")
    players = [str(row["player_id"]) for row in rows]
    names = {str(row["player_id"]): str(row["display_name"]) for row in rows}
    left_out = dict(skipped or {})
    meta = build_meta_game(players, names, documents, left_out)
    if not meta.observed().any():
        raise AnalysisUnavailable("no match has a usable result yet")
    solution = solve_meta_game(meta, solver_timeout)
    histories = _histories(documents, left_out)
    notion = COOPERATION.get(game_type)
    return LeagueAnalysis(
        league_id=league_id,
        game_type=game_type,
        version=int(standings.get("version", 0)),
        standings=rows,
        meta_game=meta,
        solution=solution,
        ratings=_ratings(documents, left_out),
        metrics=_metrics(players, histories, notion is not None),
        cooperation_meaning=notion.meaning if notion else None,
        cooperation_by_stage=_cooperation_by_stage(histories) if notion else [],
        matches_analysed=sum(str(d.get("match_id")) not in left_out for d in documents),
        skipped=left_out,
        seconds=round(time.perf_counter() - started, 4),
    )


def analyse_folder(
    folder: Path,
    league_id: str,
    game_type: str,
    standings: Mapping[str, Any],
    *,
    accepted: Iterable[str] | None = None,
    solver_timeout: float = 10.0,
) -> LeagueAnalysis:
    """``analyse_league`` over the match files in ``folder`` (only ``accepted`` match ids
    when given: the League Manager counts only the results it journaled).

    Raises:
        AnalysisUnavailable, SolverTimeoutError: as ``analyse_league``.
    """
    documents, unreadable = read_match_files(folder, accepted)
    return analyse_league(
        league_id,
        game_type,
        standings,
        documents,
        solver_timeout=solver_timeout,
        skipped=unreadable,
    )


class AnalysisCache:
    """The League Manager's analyses, one per standings version: computed in a thread so
    the event loop keeps serving, bounded by ``timeout``, one computation at a time."""

    def __init__(self, timeout: float = 60.0):
        self._timeout = timeout
        self._lock = asyncio.Lock()
        self._cached: LeagueAnalysis | None = None

    async def get(self, version: int, compute: Callable[[], LeagueAnalysis]) -> LeagueAnalysis:
        """The analysis at standings ``version``; ``compute`` (run in a thread, so it must
        work on a snapshot taken on the event loop) makes it when the cache is older.

        Raises:
            AnalysisUnavailable: nothing to analyse yet.
            asyncio.TimeoutError: the computation went past the bound (nothing is cached).
        """
        async with self._lock:
            if self._cached is None or self._cached.version != version:
                self._cached = await within(asyncio.to_thread(compute), self._timeout)
            return self._cached

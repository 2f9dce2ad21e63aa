"""League analytics: what the league's match files say beyond the points table.

- The **meta-game**: a symmetric game over the registered players, ``payoffs[i][j]`` the
  average of what player i earned in its matches with player j. The measure is the game's
  payoffs; in even/odd (pure chance, no payoffs) a pairwise win 1, draw 0.5, loss 0 from the
  league points; in a league whose files carry no payoffs, the league points.
- Its **symmetric Nash equilibria**: which agents a population playing the meta-game keeps.
  They are computed as the equilibria of the *imitation game* (McLennan and Tourky 2010):
  the row player gets the meta-game's payoffs, the column player 1 for playing the row's
  action; the column strategy of any equilibrium of it is a symmetric equilibrium of the
  meta-game. Small leagues get every extreme one (``enummixed``), larger ones one
  (Lemke-Howson), each call bounded by the solver's timeout.
- The **replicator dynamics** of a population of the registered agents on the meta-game.
- **Ratings**: Elo and openskill's Plackett-Luce from the league points, match by match.
- Per-agent **metrics**: average payoffs, and cooperation and reciprocity where the game has
  a notion of cooperation.

No self-play is observed, so the meta-game's diagonal (and a pair that never met) is filled
with the mean of the observed entries, a neutral value (0.5 in even/odd, exact there by
symmetry); ``observed`` says which entries are measured.

``analyse_league`` is pure and blocking (its solver runs in a worker process); the League
Manager calls it through ``AnalysisCache``, in a thread, bounded, once per standings version.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from itertools import permutations
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel

from games.analysis import (
    COOPERATION,
    AnalysisError,
    History,
    NormalFormGame,
    all_equilibria,
    average_payoffs,
    bayesian_ratings,
    cooperation_levels,
    cooperation_rates,
    elo_ratings,
    history_from_match,
    one_equilibrium,
    reciprocity,
    record_from_match,
    replicator_dynamics,
)

__all__ = [
    "ENUMERATE_UP_TO",
    "AgentMetrics",
    "AnalysisCache",
    "AnalysisUnavailable",
    "LeagueAnalysis",
    "MetaGame",
    "Population",
    "Ratings",
    "SymmetricEquilibrium",
    "analyse_folder",
    "analyse_league",
    "read_match_files",
]

Measure = Literal["payoffs", "win_draw_loss"]
"""What a meta-game cell holds: the game's payoffs where the matches report them, otherwise
(even/odd, whose result is who won) 1 for a win, 0.5 for a draw, 0 for a loss."""

ENUMERATE_UP_TO = 8
"""The most players whose meta-game gets every extreme equilibrium (enummixed grows fast
with the size, doc/benchmarks.md); above it, one equilibrium by Lemke-Howson."""
SUPPORT_THRESHOLD = 1e-6
"""The smallest share that counts as being in an equilibrium's support."""
TRAJECTORY_POINTS = 50
"""How many points of the replicator trajectory are returned after the start."""


class MetaGame(BaseModel):
    """The empirical game between the players: ``payoffs[i][j]`` what ``players[i]`` earned
    on average against ``players[j]`` (filled where ``observed[i][j]`` is false), over
    ``matches[i][j]`` matches."""

    players: list[str]
    names: dict[str, str]
    measure: Measure
    payoffs: list[list[float]]
    observed: list[list[bool]]
    matches: list[list[int]]
    fill: float


class SymmetricEquilibrium(BaseModel):
    """A population share per player that no player outside it can invade."""

    shares: dict[str, float]
    support: list[str]
    payoff: float


class Population(BaseModel):
    """The replicator dynamics from equal shares: ``shares[t]`` (one per player, in the
    meta-game's order) at ``times[t]``, in units of the meta-game's payoff spread."""

    times: list[float]
    shares: list[list[float]]
    final: dict[str, float]


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
    equilibrium_method: Literal["enummixed", "lemke_howson"]
    equilibria: list[SymmetricEquilibrium]
    support: list[str]
    """The support of the best-paying equilibrium found."""
    population: Population
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


def _outcomes(document: Mapping[str, Any], measure: Measure) -> dict[tuple[str, str], float]:
    """What each player earned against each other player of one match under ``measure``.

    Raises:
        AnalysisError: the match has no value of that measure for every player.
    """
    if measure == "payoffs":
        details = ((document.get("result") or {}).get("report") or {}).get("details") or {}
        payoffs = details.get("payoffs") or {}
        players = [str(seat["player_id"]) for seat in document["players"]]
        if any(p not in payoffs for p in players):
            raise AnalysisError(
                f"match {document.get('match_id')} has no payoff for every "
                f"player (a technical loss)"
            )
        return {(a, b): float(payoffs[a]) for a, b in permutations(players, 2)}
    record = record_from_match(document)
    score = dict(zip(record.players, record.outcomes, strict=True))
    return {
        (a, b): 1.0 if score[a] > score[b] else 0.5 if score[a] == score[b] else 0.0
        for a, b in permutations(record.players, 2)
    }


def _measure(documents: list[dict[str, Any]]) -> Measure:
    has_payoffs = any(
        ((d.get("result") or {}).get("report") or {}).get("details", {}).get("payoffs")
        for d in documents
    )
    return "payoffs" if has_payoffs else "win_draw_loss"


def _meta_game(
    players: list[str],
    names: dict[str, str],
    measure: Measure,
    documents: list[dict[str, Any]],
    skipped: dict[str, str],
) -> MetaGame:
    index = {p: i for i, p in enumerate(players)}
    size = len(players)
    totals, counts = np.zeros((size, size)), np.zeros((size, size), dtype=int)
    for document in documents:
        try:
            outcomes = _outcomes(document, measure)
        except (AnalysisError, KeyError, TypeError) as exc:
            skipped[str(document.get("match_id", "?"))] = str(exc)
            continue
        for (a, b), value in outcomes.items():
            if a in index and b in index:
                totals[index[a], index[b]] += value
                counts[index[a], index[b]] += 1
    observed = counts > 0
    means = np.divide(totals, counts, out=np.zeros_like(totals), where=observed)
    fill = (
        0.5
        if measure == "win_draw_loss"
        else (float(means[observed].mean()) if observed.any() else 0.0)
    )
    matrix = np.where(observed, means, fill)
    return MetaGame(
        players=players,
        names=names,
        measure=measure,
        payoffs=matrix.tolist(),
        observed=observed.tolist(),
        matches=counts.tolist(),
        fill=fill,
    )


def _symmetric_equilibria(
    meta: MetaGame, timeout: float
) -> tuple[Literal["enummixed", "lemke_howson"], list[SymmetricEquilibrium]]:
    """The symmetric equilibria of the meta-game, from its imitation game (module doc)."""
    matrix = np.array(meta.payoffs)
    size = len(matrix)
    imitation = NormalFormGame.bimatrix(matrix, np.eye(size))
    if size <= ENUMERATE_UP_TO:
        method: Literal["enummixed", "lemke_howson"] = "enummixed"
        found = all_equilibria(imitation, timeout=timeout).equilibria
    else:
        method, found = "lemke_howson", (one_equilibrium(imitation, timeout=timeout),)
    unique: dict[tuple[float, ...], SymmetricEquilibrium] = {}
    for equilibrium in found:
        shares = np.array(equilibrium.strategies[1])
        key = tuple(np.round(shares, 9).tolist())
        support = [p for p, s in zip(meta.players, shares, strict=True) if s > SUPPORT_THRESHOLD]
        unique.setdefault(
            key,
            SymmetricEquilibrium(
                shares={p: float(s) for p, s in zip(meta.players, shares, strict=True)},
                support=support,
                payoff=float(shares @ matrix @ shares),
            ),
        )
    ranked = sorted(unique.values(), key=lambda e: (-e.payoff, len(e.support), e.support))
    return method, ranked


def _population(meta: MetaGame) -> Population:
    """Replicator dynamics on the meta-game rescaled to a payoff spread of 1 (the dynamics'
    paths do not change, only their speed), so one bound on time suits every league."""
    matrix = np.array(meta.payoffs)
    spread = float(np.ptp(matrix)) or 1.0
    steps = TRAJECTORY_POINTS * 4
    trajectory = replicator_dynamics(
        (matrix - matrix.min()) / spread, time=100.0, steps=steps, names=meta.players
    )
    kept = slice(0, steps + 1, 4)
    return Population(
        times=trajectory.times[kept].tolist(),
        shares=np.round(trajectory.shares[kept], 6).tolist(),
        final={p: round(s, 6) for p, s in trajectory.final.items()},
    )


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
        solver_timeout: seconds the equilibrium solver may take.
        skipped: match ids already left out (unreadable files), with why.

    Returns:
        The analysis (module doc).

    Raises:
        AnalysisUnavailable: no standings rows or no match to analyse.
        SolverTimeoutError: the equilibrium solver went past ``solver_timeout``.
    """
    started = time.perf_counter()
    rows = list(standings.get("standings") or [])
    if not rows or not documents:
        raise AnalysisUnavailable("no results to analyse yet")
    players = [str(row["player_id"]) for row in rows]
    names = {str(row["player_id"]): str(row["display_name"]) for row in rows}
    left_out = dict(skipped or {})
    meta = _meta_game(players, names, _measure(documents), documents, left_out)
    if not any(any(row) for row in meta.observed):
        raise AnalysisUnavailable("no match has a usable result yet")
    method, equilibria = _symmetric_equilibria(meta, solver_timeout)
    histories = _histories(documents, left_out)
    notion = COOPERATION.get(game_type)
    return LeagueAnalysis(
        league_id=league_id,
        game_type=game_type,
        version=int(standings.get("version", 0)),
        standings=rows,
        meta_game=meta,
        equilibrium_method=method,
        equilibria=equilibria,
        support=equilibria[0].support,
        population=_population(meta),
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
                self._cached = await asyncio.wait_for(asyncio.to_thread(compute), self._timeout)
            return self._cached

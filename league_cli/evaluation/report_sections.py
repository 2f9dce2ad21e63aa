"""What the reports hold beside the metrics: what a suite's ``report.include_*`` flags add
— each agent's strategy profile, the payoff of each pairing of agents, and the episodes
round by round —, the welfare of a 2-player table game's rounds, which every report of one
holds, and each agent's cooperation round by round, which the HTML report plots.

Each is computed from the finished episodes' histories and bounded, so a long run's report
stays readable: a profile keeps an agent's most frequent actions, the round-by-round
section the first episodes' first rounds, and each says what it left out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from games.analysis import (
    AnalysisError,
    History,
    NormalFormGame,
    cooperation_levels,
    optimal_profiles,
    pareto_frontier,
    welfare_analysis,
)
from games.spec import Action
from league_cli.evaluation.episodes import Episode
from league_cli.evaluation.scoring import interval
from league_cli.evaluation.suite import ReportSpec
from league_cli.evaluation.welfare import outcome_actions, pareto_share, welfare_per_round

__all__ = [
    "PROFILE_MAX_ACTIONS",
    "ROUND_BY_ROUND_EPISODES",
    "ROUND_BY_ROUND_ROUNDS",
    "action_key",
    "cooperation_by_round",
    "payoff_matrix",
    "round_by_round",
    "strategy_profile",
    "welfare_section",
]

PROFILE_MAX_ACTIONS = 64
"""A profile lists at most this many actions an agent played (a bid or an allocation game
has hundreds); the others' share is ``other``."""
ROUND_BY_ROUND_EPISODES = 10
ROUND_BY_ROUND_ROUNDS = 1000
"""The round-by-round section holds the first 10 finished episodes' first 1,000 rounds
(at most 10,000 rounds, a few hundred KiB of JSON, whatever the run's length)."""


def action_key(action: Action) -> str:
    """An action as a JSON key: a string as it is, a number or an allocation as compact
    JSON (``17``, ``[4,3,3]``)."""
    return action if isinstance(action, str) else json.dumps(action, separators=(",", ":"))


def cooperation_by_round(histories: Sequence[History]) -> dict[str, list[float]]:
    """Each agent's cooperation level at its n-th cooperation choice (each round of the
    games that have a notion of cooperation, ``games.analysis.cooperation``, read as the
    ``cooperation_rate`` reads it: the actions chosen), averaged over the episodes that
    reached it; every agent's series as long as the shortest, so they share one axis.

    Raises:
        AnalysisError: the game has no notion of cooperation.
    """
    episodes: dict[str, list[list[float]]] = {}
    for history in histories:
        choices: dict[str, list[float]] = {}
        for levels in cooperation_levels(history):
            for player, level in levels.items():
                choices.setdefault(player, []).append(level)
        for player, levels_of_player in choices.items():
            episodes.setdefault(player, []).append(levels_of_player)
    length = min((max(map(len, runs)) for runs in episodes.values()), default=0)
    return {
        player: [
            sum(run[n] for run in runs if len(run) > n) / sum(len(run) > n for run in runs)
            for n in range(length)
        ]
        for player, runs in episodes.items()
    }


def strategy_profile(
    histories: Sequence[History], *, max_actions: int = PROFILE_MAX_ACTIONS
) -> dict[str, dict[str, Any]]:
    """Each agent's empirical strategy over every stage of every episode: how often it
    played each action, most frequent first.

    Returns:
        Per agent: ``moves`` (how many it made), ``actions`` (action → share, at most
        ``max_actions`` of them), ``distinct`` (how many actions it played) and, when some
        were left out, ``other`` (their share).
    """
    counts: dict[str, Counter[str]] = {}
    for history in histories:
        for player in history.players:
            counts.setdefault(player, Counter())
        for stage in history.stages:
            for player, move in stage.moves.items():
                counts[player][action_key(move)] += 1
    profile: dict[str, dict[str, Any]] = {}
    for player, counted in counts.items():
        moves = sum(counted.values())
        ranked = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
        kept = ranked[:max_actions]
        entry: dict[str, Any] = {
            "moves": moves,
            "actions": {action: count / moves for action, count in kept},
            "distinct": len(ranked),
        }
        if len(ranked) > max_actions:
            entry["other"] = sum(count for _, count in ranked[max_actions:]) / moves
        profile[player] = entry
    return profile


def _summary(values: Sequence[float], report: ReportSpec, seed: int) -> dict[str, Any]:
    """The mean of ``values`` with the interval the report asks for, and the count."""
    low, high = interval(values, report, seed)
    mean = sum(values) / len(values) if values else None
    return {"mean": mean, "ci_low": low, "ci_high": high, "n": len(values)}


def payoff_matrix(
    agents: Sequence[str], histories: Sequence[History], report: ReportSpec, seed: int
) -> dict[str, Any]:
    """The mean payoff of each pairing: ``cells[i][j]`` is agent i's payoff per episode (its
    return, discounted where the game discounts) over the episodes it played with agent j,
    with the interval the report asks for and the count; ``None`` on the diagonal, since
    a suite never seats an agent against itself."""
    cells: list[list[dict[str, Any] | None]] = []
    for row in agents:
        line: list[dict[str, Any] | None] = []
        for column in agents:
            if row == column:
                line.append(None)
                continue
            values = [h.payoffs[row] for h in histories if {row, column} <= set(h.players)]
            line.append(_summary(values, report, seed))
        cells.append(line)
    return {"agents": list(agents), "cells": cells}


def round_by_round(
    episodes: Sequence[Episode],
    *,
    max_episodes: int = ROUND_BY_ROUND_EPISODES,
    max_rounds: int = ROUND_BY_ROUND_ROUNDS,
) -> dict[str, Any]:
    """The first ``max_episodes`` finished episodes, each with its first ``max_rounds``
    rounds: every agent's move as chosen and what the round added to its return (discounted
    where the game discounts; ``null`` when the record does not say)."""
    finished = [(e, e.history) for e in episodes if e.history is not None]
    shown = [
        {
            "episode": episode.index,
            "seed": episode.seed,
            "rounds_played": len(history.stages),
            "rounds": [stage.model_dump(mode="json") for stage in history.stages[:max_rounds]],
        }
        for episode, history in finished[:max_episodes]
    ]
    return {
        "max_episodes": max_episodes,
        "max_rounds": max_rounds,
        "episodes_left_out": len(finished) - len(shown),
        "episodes": shown,
    }


def welfare_section(
    game: NormalFormGame,
    players: Sequence[str],
    histories: Sequence[History],
    report: ReportSpec,
    seed: int,
) -> dict[str, Any]:
    """The stage game's welfare and the rounds': the best social welfare of any outcome and
    the outcomes that reach it, the worst and best equilibrium's welfare, the prices of
    anarchy and stability (``games.analysis.welfare_analysis``) or why they are undefined;
    the Pareto-optimal outcomes; then per episode (mean, interval over episodes, count) the
    mean social welfare per round and the share of rounds whose outcome was Pareto optimal
    (``league_cli.evaluation.welfare``), with a ``note`` when the rounds cannot be read.
    Outcomes are mappings of ``players`` (in seat order) to actions."""

    def outcome(profile: tuple[int, ...]) -> dict[str, str]:
        return dict(zip(players, outcome_actions(game, profile), strict=True))

    optimum, optimal = optimal_profiles(game)
    section: dict[str, Any] = {
        "optimum": optimum,
        "optimal_outcomes": [outcome(p) for p in optimal],
        "pareto_optimal_outcomes": [outcome(p) for p in pareto_frontier(game)],
    }
    try:
        found = welfare_analysis(game)
        section.update(
            worst_equilibrium=found.worst_equilibrium,
            best_equilibrium=found.best_equilibrium,
            price_of_anarchy=found.price_of_anarchy,
            price_of_stability=found.price_of_stability,
            undefined=found.undefined,
        )
    except AnalysisError as exc:
        section.update(
            dict.fromkeys(
                ("worst_equilibrium", "best_equilibrium", "price_of_anarchy", "price_of_stability")
            ),
            undefined=f"no equilibrium to compare: {exc}",
        )
    try:
        rounds = [welfare_per_round(h, game) for h in histories]
        pareto = [pareto_share(h, game) for h in histories]
    except AnalysisError as exc:
        rounds, pareto, section["note"] = [], [], f"the rounds cannot be read: {exc}"
    section["social_welfare"] = _summary(rounds, report, seed)
    section["pareto_rate"] = _summary(pareto, report, seed)
    return section

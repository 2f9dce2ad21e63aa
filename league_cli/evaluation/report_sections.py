"""What a suite's ``report.include_*`` flags add to the JSON report: each agent's strategy
profile, the payoff of each pairing of agents, and the episodes round by round.

Each is computed from the finished episodes' histories and bounded, so a long run's report
stays readable: a profile keeps an agent's most frequent actions, the round-by-round
section the first episodes' first rounds, and each says what it left out.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from games.analysis import History
from games.spec import Action
from league_cli.evaluation.episodes import Episode
from league_cli.evaluation.scoring import interval
from league_cli.evaluation.suite import ReportSpec

__all__ = [
    "PROFILE_MAX_ACTIONS",
    "ROUND_BY_ROUND_EPISODES",
    "ROUND_BY_ROUND_ROUNDS",
    "action_key",
    "payoff_matrix",
    "round_by_round",
    "strategy_profile",
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
            low, high = interval(values, report, seed)
            line.append(
                {
                    "mean": sum(values) / len(values) if values else None,
                    "ci_low": low,
                    "ci_high": high,
                    "n": len(values),
                }
            )
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

"""The welfare of an episode of a 2-player table game, round by round: the social welfare of
each round's outcome and whether that outcome was Pareto optimal in the stage game
(``games.analysis.welfare``).

A round's outcome is the pure profile the players *played*, after the game's ``noise``
flipped any chosen action: what the round's payoffs were paid for, kept in the final state's
record of the rounds (``MatrixState.to_json``). The cooperation rate and ``nash_distance``
read the actions *chosen* instead: they describe the agent, these the table's result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from games.analysis import AnalysisError, History, NormalFormGame, pareto_optimal

__all__ = ["outcome_actions", "pareto_share", "played_outcomes", "welfare_per_round"]

PureProfile = tuple[int, ...]


def played_outcomes(history: History, game: NormalFormGame) -> list[PureProfile]:
    """Each round's outcome as action indices of ``game``, in seat order.

    Raises:
        AnalysisError: the history keeps no record of the rounds played, or names an
            action the table does not have.
    """
    rounds = (history.state or {}).get("history")
    if not isinstance(rounds, list) or not rounds:
        raise AnalysisError(
            f"the {history.game_type} history keeps no record of the actions played"
        )
    outcomes = []
    for number, entry in enumerate(rounds, start=1):
        played: Mapping[str, Any] = entry.get("actions") or {}
        try:
            outcomes.append(
                tuple(
                    game.actions[seat].index(played[player])
                    for seat, player in enumerate(history.players)
                )
            )
        except (KeyError, ValueError):
            raise AnalysisError(
                f"round {number} records {dict(played)}, not an outcome of the table"
            ) from None
    return outcomes


def outcome_actions(game: NormalFormGame, profile: PureProfile) -> tuple[str, ...]:
    """A pure profile's action names, in seat order."""
    return tuple(game.actions[seat][action] for seat, action in enumerate(profile))


def welfare_per_round(history: History, game: NormalFormGame) -> float:
    """The episode's mean social welfare per round: the sum of both players' stage payoffs
    at each outcome (undiscounted, so comparable with the stage game's optimum).

    Raises:
        AnalysisError: as ``played_outcomes``.
    """
    welfare = game.payoffs.sum(axis=-1)
    return float(np.mean([welfare[profile] for profile in played_outcomes(history, game)]))


def pareto_share(history: History, game: NormalFormGame) -> float:
    """The share of the episode's rounds whose outcome is Pareto optimal: no outcome of the
    table gives both players at least as much and one of them more.

    Raises:
        AnalysisError: as ``played_outcomes``.
    """
    outcomes = played_outcomes(history, game)
    optimal = {profile: pareto_optimal(game, profile) for profile in set(outcomes)}
    return sum(optimal[profile] for profile in outcomes) / len(outcomes)

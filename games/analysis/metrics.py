"""Metrics of match histories: payoffs, cooperation, reciprocity, fairness, and how far play
was from a Nash equilibrium.

Every function takes ``History`` objects (``games.analysis.history``), so the same numbers
come out of in-process episodes and of a league's match files. Functions over many
histories pool them by player id.

    >>> from games.analysis.history import History, Stage
    >>> pd = History(game_type="prisoners_dilemma", players=("A", "B"),
    ...              stages=(Stage(moves={"A": "C", "B": "D"}),
    ...                      Stage(moves={"A": "D", "B": "D"})),
    ...              payoffs={"A": 1.0, "B": 6.0})
    >>> cooperation_rates([pd])
    {'A': 0.5, 'B': 0.0}
    >>> fairness(pd).envy
    {'A': 5.0, 'B': 0.0}
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games import bargaining, ultimatum
from games.analysis.cooperation import cooperation_levels
from games.analysis.equilibria import DEFAULT_TIMEOUT, EquilibriumSet, all_equilibria
from games.analysis.errors import AnalysisError
from games.analysis.history import History
from games.analysis.nash_subsets import NashDistance, distance_to_nash
from games.analysis.normal_form import NormalFormGame
from games.analysis.solver_process import SolverProcess
from games.matrix import parse_table

__all__ = [
    "AGREEMENT_GAMES",
    "Fairness",
    "PlayerPayoff",
    "average_payoffs",
    "cooperation_rates",
    "empirical_profile",
    "fairness",
    "gini",
    "nash_distance",
    "reciprocity",
    "stage_game",
]

AGREEMENT_GAMES = frozenset({ultimatum.GAME_ID, bargaining.GAME_ID})
"""Games whose outcome is a split agreed by an ``"accept"``: they have surplus shares."""
_ACCEPT = "accept"


@dataclass(frozen=True)
class PlayerPayoff:
    """A player's payoffs over the histories it played: the total, per match and per stage
    (every stage of its matches counts, whoever moved)."""

    matches: int
    stages: int
    total: float
    per_match: float
    per_stage: float


@dataclass(frozen=True)
class Fairness:
    """How evenly one match's payoffs fell.

    ``gini``: the Gini coefficient of the payoffs, 0 (equal) to (n−1)/n (one player has
    all); payoffs below zero are first shifted up by the lowest one (``gini_shift``).
    ``envy``: per player, how much more the best-off other player got (0 for the best off);
    ``max_envy``: the largest. ``surplus_shares``: in ultimatum and bargaining, each
    player's share of what an accepted offer split, else ``None``.
    """

    gini: float
    gini_shift: float
    envy: dict[str, float]
    max_envy: float
    surplus_shares: dict[str, float] | None


def average_payoffs(histories: Iterable[History]) -> dict[str, PlayerPayoff]:
    """Each player's total and average payoff over the histories it appears in."""
    totals: dict[str, float] = defaultdict(float)
    matches: dict[str, int] = defaultdict(int)
    stages: dict[str, int] = defaultdict(int)
    for history in histories:
        for player in history.players:
            totals[player] += history.payoffs[player]
            matches[player] += 1
            stages[player] += len(history.stages)
    return {
        player: PlayerPayoff(
            matches=matches[player],
            stages=stages[player],
            total=totals[player],
            per_match=totals[player] / matches[player],
            per_stage=totals[player] / max(1, stages[player]),
        )
        for player in sorted(totals)
    }


def cooperation_rates(histories: Iterable[History]) -> dict[str, float]:
    """Each player's mean cooperation level over all its cooperation choices, by the
    game's notion (``games.analysis.cooperation``).

    Raises:
        AnalysisError: a game with no notion of cooperation.
    """
    levels: dict[str, list[float]] = defaultdict(list)
    for history in histories:
        for stage in cooperation_levels(history):
            for player, level in stage.items():
                levels[player].append(level)
    return {player: float(np.mean(values)) for player, values in sorted(levels.items())}


def reciprocity(histories: Iterable[History]) -> dict[str, float | None]:
    """How much each player returns what it got: the correlation between its cooperation
    level at a cooperation stage and the others' mean level at the stage before, over all
    its consecutive pairs of stages (the phi coefficient for yes/no cooperation).

    Tit for tat against a mixed opponent scores 1; a player whose own level or whose
    opponents' level never varies has no measurable reciprocity: ``None``.

    Raises:
        AnalysisError: a game with no notion of cooperation.
    """
    pairs: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for history in histories:
        stages = cooperation_levels(history)
        for before, after in zip(stages, stages[1:], strict=False):
            for player, own in after.items():
                others = [level for other, level in before.items() if other != player]
                if others:
                    pairs[player].append((own, float(np.mean(others))))
    result: dict[str, float | None] = {}
    for player, values in sorted(pairs.items()):
        own, received = np.array(values).T
        if len(values) < 2 or np.ptp(own) == 0 or np.ptp(received) == 0:
            result[player] = None
        else:
            result[player] = float(np.corrcoef(own, received)[0, 1])
    return result


def gini(values: Sequence[float] | NDArray[Any]) -> float:
    """The Gini coefficient of non-negative values: the mean absolute difference over
    twice the mean (0 when all are equal, or all zero).

    Raises:
        AnalysisError: no values, or a negative one.
    """
    array = np.asarray(values, dtype=np.float64)
    if array.size == 0 or array.min() < 0:
        raise AnalysisError(f"the Gini coefficient takes non-negative values, got {values}")
    mean = array.mean()
    if mean == 0:
        return 0.0
    return float(np.abs(array[:, None] - array[None, :]).mean() / (2 * mean))


def fairness(history: History) -> Fairness:
    """The Gini coefficient of a match's payoffs, each player's envy, and in ultimatum and
    bargaining each side's share of the agreed split (see ``Fairness``)."""
    payoffs = np.array([history.payoffs[p] for p in history.players])
    shift = max(0.0, -float(payoffs.min()))
    envy = {
        player: max(
            0.0,
            max(
                (history.payoffs[q] for q in history.players if q != player),
                default=history.payoffs[player],
            )
            - history.payoffs[player],
        )
        for player in history.players
    }
    shares = None
    last = history.stages[-1].moves if history.stages else {}
    total = float(payoffs.sum())
    if history.game_type in AGREEMENT_GAMES and _ACCEPT in last.values() and total > 0:
        shares = {player: history.payoffs[player] / total for player in history.players}
    return Fairness(
        gini=gini(payoffs + shift),
        gini_shift=shift,
        envy=envy,
        max_envy=max(envy.values()),
        surplus_shares=shares,
    )


def stage_game(history: History) -> NormalFormGame:
    """The stage game of a history of a table game (the matrix family: prisoner's dilemma,
    stag hunt, chicken, battle of the sexes, rock-paper-scissors, ``matrix``), from the
    table its final state recorded.

    Raises:
        AnalysisError: the history has no recorded table.
    """
    parameters = history.parameters
    if "actions" not in parameters or "payoffs" not in parameters:
        raise AnalysisError(
            f"the {history.game_type} history records no payoff table: a "
            f"stage game needs a table game with its final state"
        )
    table = parse_table(parameters["actions"], parameters["payoffs"], len(history.players))
    return NormalFormGame.from_table(table)


def empirical_profile(
    history: History, game: NormalFormGame | None = None
) -> tuple[NDArray[Any], ...]:
    """Each player's empirical mixed strategy: how often it played each action of the stage
    game, in seat order.

    Raises:
        AnalysisError: not a table game's history, a move not in the table, or a player
            that never moved.
    """
    game = stage_game(history) if game is None else game
    counts = [np.zeros(size) for size in game.shape]
    for stage in history.stages:
        for seat, player in enumerate(history.players):
            if player in stage.moves:
                try:
                    counts[seat][game.actions[seat].index(stage.moves[player])] += 1
                except ValueError:
                    raise AnalysisError(
                        f"{stage.moves[player]!r} is not an action of seat {seat} of the table"
                    ) from None
    if any(c.sum() == 0 for c in counts):
        raise AnalysisError("a player never moved: it has no empirical strategy")
    return tuple(c / c.sum() for c in counts)


def nash_distance(
    history: History,
    equilibria: EquilibriumSet | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    solver: SolverProcess | None = None,
) -> NashDistance:
    """How far the players' empirical strategies were from the nearest Nash equilibrium of
    the stage game (2-player table games).

    Args:
        history: a 2-player table game's history.
        equilibria: the stage game's equilibria, when already computed (many histories of
            one game share them).
        timeout: the time bound of the equilibrium solver and of each distance program.
        solver: the worker process to use (default: the process-wide one).

    Returns:
        Each player's total-variation distance to the nearest equilibrium, the larger one,
        and that equilibrium.

    Raises:
        AnalysisError: not a 2-player table game's history.
        SolverTimeoutError: a solver went past ``timeout``.
    """
    game = stage_game(history)
    if game.num_players != 2:
        raise AnalysisError("the distance to a Nash equilibrium is for 2-player games")
    found = (
        all_equilibria(game, timeout=timeout, solver=solver) if equilibria is None else equilibria
    )
    return distance_to_nash(game, empirical_profile(history, game), found.subsets, timeout=timeout)

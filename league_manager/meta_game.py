"""The league's meta-game: one row and one column per player, each cell what the row player
earned against the column player, measured from the match files and from nothing else.

The measure is the game's payoffs where the matches report them; otherwise (even/odd, whose
result is who won) a pairwise win 1, draw 0.5, loss 0 from the league points. A match gives
one value to each ordered pair of its players (in a match of more, what the row player
earned in it, against each of the others).

Each cell holds the number of matches behind it, their mean and the mean's 95% Student-t
interval (``games.analysis.mean_interval``; under win/draw/loss cut to [0, 1], where the
mean of such values lies). A cell no match measured is **unobserved**: it has no value at
all, never a filler. With one match a cell has its value and no interval.
The diagonal is what a player earns against itself: only a match in which the player holds
two seats could measure it, and a match file cannot hold one (it keys results by player;
``games.analysis.match_players`` refuses such a file), so in a league the diagonal is
unobserved. ``league_manager.meta_solution`` says what is solved with unobserved cells.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import permutations
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from games.analysis import AnalysisError, match_players, mean_interval, record_from_match

__all__ = ["CONFIDENCE", "Measure", "MetaCell", "MetaGame", "build_meta_game", "measure_of"]

Measure = Literal["payoffs", "win_draw_loss"]
"""What a meta-game cell holds: the game's payoffs where the matches report them, otherwise
(even/odd, whose result is who won) 1 for a win, 0.5 for a draw, 0 for a loss."""

CONFIDENCE = 0.95
"""The level of every cell's interval."""
WIN_DRAW_LOSS_RANGE = (0.0, 1.0)
"""Where a win/draw/loss cell's interval is cut: Student's t knows no bounds."""


class MetaCell(BaseModel):
    """What the row player earned against the column player over ``matches`` matches: their
    ``mean`` and its confidence interval. ``matches`` 0: unobserved, no value; 1: a value
    and no interval (one match shows no spread)."""

    matches: int = 0
    mean: float | None = None
    lower: float | None = None
    upper: float | None = None

    @property
    def observed(self) -> bool:
        return self.matches > 0

    @classmethod
    def of(cls, values: Sequence[float], within: tuple[float, float] | None = None) -> MetaCell:
        """The cell of these per-match values (none: unobserved); its interval cut to
        ``within`` when the measure has bounds (a mean of values in them lies in them)."""
        if not values:
            return cls()
        found = mean_interval(values, confidence=CONFIDENCE)
        lower, upper = found.lower, found.upper
        if within is not None and lower is not None and upper is not None:
            lower, upper = max(lower, within[0]), min(upper, within[1])
        return cls(matches=found.count, mean=found.mean, lower=lower, upper=upper)


class MetaGame(BaseModel):
    """The empirical game between the players: ``cells[i][j]`` what ``players[i]`` earned
    against ``players[j]``."""

    players: list[str]
    names: dict[str, str]
    measure: Measure
    confidence: float = CONFIDENCE
    cells: list[list[MetaCell]]

    @classmethod
    def from_samples(
        cls,
        players: Sequence[str],
        names: Mapping[str, str],
        measure: Measure,
        samples: Mapping[tuple[str, str], Sequence[float]],
    ) -> MetaGame:
        """The meta-game of per-match values by (row player, column player); a pair with
        no value is unobserved."""
        within = WIN_DRAW_LOSS_RANGE if measure == "win_draw_loss" else None
        return cls(
            players=list(players),
            names=dict(names),
            measure=measure,
            cells=[
                [MetaCell.of(samples.get((a, b), ()), within) for b in players] for a in players
            ],
        )

    def observed(self) -> NDArray[np.bool_]:
        """Which cells a match measured."""
        return np.array([[cell.observed for cell in row] for row in self.cells], dtype=bool)

    def values(
        self, indices: Sequence[int], bound: Literal["mean", "lower", "upper"] = "mean"
    ) -> NDArray[np.float64]:
        """The sub-matrix of the players at ``indices``: the cells' means, or a bound of
        their intervals (the mean where a cell has none).

        Raises:
            AnalysisError: a cell of it is unobserved (it has no number to give).
        """
        rows = []
        for i in indices:
            row = []
            for j in indices:
                cell = self.cells[i][j]
                if cell.mean is None:
                    raise AnalysisError(
                        f"{self.players[i]} against {self.players[j]} was never observed"
                    )
                edge = cell.lower if bound == "lower" else cell.upper if bound == "upper" else None
                row.append(cell.mean if edge is None else edge)
            rows.append(row)
        return np.array(rows, dtype=float).reshape(len(indices), len(indices))


def measure_of(documents: Sequence[Mapping[str, Any]]) -> Measure:
    """Payoffs when any match reports them, else win/draw/loss."""
    has_payoffs = any(
        ((d.get("result") or {}).get("report") or {}).get("details", {}).get("payoffs")
        for d in documents
    )
    return "payoffs" if has_payoffs else "win_draw_loss"


def _outcomes(document: Mapping[str, Any], measure: Measure) -> dict[tuple[str, str], float]:
    """What each player earned against each other player of one match under ``measure``.

    Raises:
        AnalysisError: the match has no value of that measure for every player, or seats
            a player twice.
    """
    if measure == "payoffs":
        details = ((document.get("result") or {}).get("report") or {}).get("details") or {}
        payoffs = details.get("payoffs") or {}
        players = match_players(document)
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


def build_meta_game(
    players: Sequence[str],
    names: Mapping[str, str],
    documents: Sequence[Mapping[str, Any]],
    skipped: dict[str, str],
) -> MetaGame:
    """The league's meta-game from its match files; a file with no value of the measure is
    added to ``skipped`` with why."""
    measure = measure_of(documents)
    wanted = set(players)
    samples: dict[tuple[str, str], list[float]] = defaultdict(list)
    for document in documents:
        try:
            outcomes = _outcomes(document, measure)
        except (AnalysisError, KeyError, TypeError) as exc:
            skipped[str(document.get("match_id", "?"))] = str(exc)
            continue
        for (a, b), value in outcomes.items():
            if a in wanted and b in wanted:
                samples[(a, b)].append(value)
    return MetaGame.from_samples(players, names, measure, samples)

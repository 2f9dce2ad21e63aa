"""A round robin's results: small named objects built by one pure function over the scores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["PairScore", "Standing", "TournamentResult", "summarise"]


@dataclass(frozen=True)
class PairScore:
    """One match-up: each side's total score per match, averaged over the repetitions."""

    first: str
    second: str
    first_score: float
    second_score: float


@dataclass(frozen=True)
class Standing:
    """A strategy's place: its mean score per turn against the other strategies."""

    rank: int
    name: str
    score_per_turn: float


@dataclass(frozen=True)
class TournamentResult:
    """Everything a round robin produced.

    ``payoff_matrix[i][j]``: the mean score per turn of ``names[i]`` against ``names[j]``
    (the diagonal: self-play, both seats averaged). ``ranking``: best first.
    """

    game_type: str
    names: tuple[str, ...]
    turns: int
    repetitions: int
    noise: float
    seed: int | None
    pairs: tuple[PairScore, ...]
    payoff_matrix: NDArray[Any]
    ranking: tuple[Standing, ...]

    def to_json(self) -> dict[str, Any]:
        """The result as JSON-ready data."""
        return {
            "game_type": self.game_type,
            "strategies": list(self.names),
            "turns": self.turns,
            "repetitions": self.repetitions,
            "noise": self.noise,
            "seed": self.seed,
            "ranking": [vars(standing) for standing in self.ranking],
            "pairs": [vars(pair) for pair in self.pairs],
            "payoff_matrix": self.payoff_matrix.tolist(),
        }


def summarise(
    game_type: str,
    names: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    totals: NDArray[Any],
    *,
    turns: int,
    noise: float,
    seed: int | None,
) -> TournamentResult:
    """The results of a round robin from its matches' scores.

    Args:
        game_type: the game played.
        names: the strategies' labels, by index (at least two).
        pairs: the match-ups, (first seat, second seat) indices into ``names``; every
            unordered pair once, self-play included.
        totals: each match's total score per seat, shape (pairs, repetitions, 2).
        turns: stages per match.
        noise: the noise the matches were played with.
        seed: the tournament's seed.

    Returns:
        The per-pair mean totals, the payoff matrix (mean score per turn) and the ranking
        by mean score per turn against the others; self-play is left out of the ranking,
        as the Axelrod library leaves it out of its ranking.
    """
    means = totals.mean(axis=1)
    matrix = np.zeros((len(names), len(names)))
    for (first, second), (first_mean, second_mean) in zip(pairs, means, strict=True):
        matrix[first, second] = first_mean / turns
        matrix[second, first] = second_mean / turns
        if first == second:
            matrix[first, first] = (first_mean + second_mean) / (2 * turns)
    others = ~np.eye(len(names), dtype=bool)
    scores = [float(matrix[i][others[i]].mean()) for i in range(len(names))]
    order = sorted(range(len(names)), key=lambda i: -scores[i])
    return TournamentResult(
        game_type=game_type,
        names=tuple(names),
        turns=turns,
        repetitions=totals.shape[1],
        noise=noise,
        seed=seed,
        pairs=tuple(
            PairScore(names[a], names[b], float(x), float(y))
            for (a, b), (x, y) in zip(pairs, means, strict=True)
        ),
        payoff_matrix=matrix,
        ranking=tuple(Standing(rank, names[i], scores[i]) for rank, i in enumerate(order, start=1)),
    )

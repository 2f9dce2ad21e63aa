"""Round robins of repeated 2-player matrix games, in process: the schedule only.

Every pair of strategies meets, each strategy also meets itself (as in the Axelrod
library: the payoff matrix has a diagonal; the ranking leaves it out). Matches are played
by the vectorised engine (``games.vectorized``); ``games.reference`` plays the same
matches one turn at a time, and the tests hold the two equal. A deterministic pair (no
noise, neither strategy stochastic) is played once and its totals reused for every
repetition. Results are in ``games.tournament_results``.

    >>> from games.strategies import build
    >>> players = [build("prisoners_dilemma", name)
    ...            for name in ("tit_for_tat", "always_defect")]
    >>> result = round_robin("prisoners_dilemma", players, turns=200, seed=1)
    >>> [(p.first, p.second, p.first_score, p.second_score) for p in result.pairs]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('tit_for_tat', 'tit_for_tat', 600.0, 600.0),
     ('tit_for_tat', 'always_defect', 199.0, 204.0),
     ('always_defect', 'always_defect', 200.0, 200.0)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame, matrix_game
from games.strategies import MatrixBaseline
from games.tournament_results import TournamentResult, summarise
from games.vectorized import play_vectorized

__all__ = [
    "Engine",
    "is_deterministic",
    "play_pairs",
    "round_robin",
    "round_robin_pairs",
    "strategy_labels",
]

Engine = Callable[
    [
        MatrixGame,
        Sequence[MatrixBaseline],
        Sequence[tuple[int, int]],
        int,
        int,
        float,
        np.random.Generator,
    ],
    NDArray[Any],
]
"""A match engine: ``play_vectorized`` or ``games.reference.play_reference``."""


def round_robin_pairs(count: int) -> list[tuple[int, int]]:
    """Every unordered pair of ``count`` players, self-play included: (i, j) with i ≤ j."""
    return [(i, j) for i in range(count) for j in range(i, count)]


def strategy_labels(strategies: Sequence[MatrixBaseline]) -> list[str]:
    """Each strategy's name; a name given twice or more gets ``_2``, ``_3``… after the first."""
    seen: Counter[str] = Counter()
    labels = []
    for strategy in strategies:
        seen[strategy.name] += 1
        count = seen[strategy.name]
        labels.append(strategy.name if count == 1 else f"{strategy.name}_{count}")
    return labels


def is_deterministic(
    strategies: Sequence[MatrixBaseline], pair: tuple[int, int], noise: float
) -> bool:
    """Whether every repetition of the pair's match is the same match: no noise, and both
    strategies classified not stochastic (their plays depend on the history only, never on
    the draws; the tests hold every such baseline to it)."""
    return noise == 0 and not any(strategies[seat].classifier.stochastic for seat in pair)


def play_pairs(
    engine: Engine,
    game: MatrixGame,
    strategies: Sequence[MatrixBaseline],
    pairs: Sequence[tuple[int, int]],
    turns: int,
    repetitions: int,
    noise: float,
    rng: np.random.Generator,
) -> NDArray[Any]:
    """Every pair's match totals, shape (pairs, repetitions, 2), as ``engine`` plays them,
    except that a deterministic pair (``is_deterministic``) is played once and its totals
    stand for every repetition, as the Axelrod library does: the same result, without
    playing the same match again. One call of the engine still plays every match there is
    (its cost is mostly per turn): the deterministic pairs once each, then each other pair
    ``repetitions`` times over, as matches of one repetition."""
    fixed = [index for index, pair in enumerate(pairs) if is_deterministic(strategies, pair, noise)]
    if not fixed:
        return engine(game, strategies, pairs, turns, repetitions, noise, rng)
    chancy = sorted(set(range(len(pairs))) - set(fixed))
    matches = [pairs[i] for i in fixed] + [pairs[i] for i in chancy for _ in range(repetitions)]
    played = engine(game, strategies, matches, turns, 1, noise, rng)[:, 0]
    totals = np.empty((len(pairs), repetitions, 2))
    totals[fixed] = played[: len(fixed), None, :]
    totals[chancy] = played[len(fixed) :].reshape(len(chancy), repetitions, 2)
    return totals


def round_robin(
    game_type: str,
    strategies: Sequence[MatrixBaseline],
    *,
    turns: int,
    repetitions: int = 1,
    noise: float = 0.0,
    seed: int | None = None,
    engine: Engine = play_vectorized,
) -> TournamentResult:
    """Play a round robin of ``strategies`` at ``game_type`` and summarise it.

    Args:
        game_type: a repeated matrix game (``games.matrix_games``).
        strategies: at least two strategies of that game.
        turns: stages per match (at least 1).
        repetitions: matches per pair (at least 1).
        noise: probability, from 0 to 1, that each action is replaced by another one.
        seed: makes the tournament repeat exactly; ``None`` draws fresh randomness.
        engine: the match engine (the reference one is for tests).

    Returns:
        The per-pair scores, payoff matrix and ranking.

    Raises:
        ValueError: an unknown game, a strategy of another game, fewer than two
            strategies, or a bad count or noise.
    """
    game = matrix_game(game_type)
    if len(strategies) < 2:
        raise ValueError(f"a round robin needs at least two strategies, got {len(strategies)}")
    for strategy in strategies:
        if strategy.game != game:
            raise ValueError(
                f"{strategy.name} was built for {strategy.game.game_type}, not {game_type}"
            )
    if turns < 1 or repetitions < 1:
        raise ValueError(f"turns and repetitions must be at least 1, got {turns} and {repetitions}")
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise is a probability from 0 to 1, not {noise}")
    pairs = round_robin_pairs(len(strategies))
    totals = play_pairs(
        engine, game, strategies, pairs, turns, repetitions, noise, np.random.default_rng(seed)
    )
    return summarise(
        game_type, strategy_labels(strategies), pairs, totals, turns=turns, noise=noise, seed=seed
    )

"""The reference match engine: plain Python, one match and one turn at a time.

Slow and obviously correct: each strategy's ``choose`` reads the full histories as action
strings. The tests compare ``games.vectorized`` with it; it takes the same arguments,
draws the same random numbers in the same order (see ``games.vectorized``) and returns
the same array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame
from games.strategies import MatrixBaseline
from games.vectorized import draw_order

__all__ = ["play_reference"]


def play_reference(
    game: MatrixGame,
    strategies: Sequence[MatrixBaseline],
    pairs: Sequence[tuple[int, int]],
    turns: int,
    repetitions: int,
    noise: float,
    rng: np.random.Generator,
    discount: float = 1.0,
) -> NDArray[Any]:
    """Play every pair's matches, one turn of one match at a time.

    Args:
        game: the stage game.
        strategies: the players, by index.
        pairs: (first seat, second seat) indices into ``strategies``, one per match-up.
        turns: stages per match.
        repetitions: matches per pair.
        noise: probability that each action is replaced by another one.
        rng: the source of every draw, drawn as ``games.vectorized`` draws.
        discount: δ: turn t (from 0) counts δ^t times.

    Returns:
        Each match's total score per seat, Σ δ^t · r_t, shape (pairs, repetitions, 2).
    """
    matches = len(pairs) * repetitions
    size = len(game.actions)
    # Where each slot's draws are among a turn's: its rank in the draw order, counting only
    # the stochastic strategies' slots for the strategies' draws.
    order = draw_order(strategies, pairs, repetitions).tolist()
    rank = {slot: index for index, slot in enumerate(order)}
    chancy = [
        slot
        for slot in order
        if strategies[pairs[slot % matches // repetitions][slot // matches]].classifier.stochastic
    ]
    chancy_rank = {slot: index for index, slot in enumerate(chancy)}
    histories: list[tuple[list[str], list[str]]] = [([], []) for _ in range(matches)]
    totals = np.zeros((len(pairs), repetitions, 2))
    for turn in range(turns):
        weight = discount**turn
        draws = rng.random(len(chancy))
        flips = rng.random(2 * matches) if noise > 0 else None
        replacements = rng.random(2 * matches) if noise > 0 and size > 2 else None
        for pair, (first, second) in enumerate(pairs):
            for repetition in range(repetitions):
                match = pair * repetitions + repetition
                history = histories[match]
                played = []
                for seat, strategy in enumerate((strategies[first], strategies[second])):
                    slot = seat * matches + match
                    draw = float(draws[chancy_rank[slot]]) if slot in chancy_rank else 0.0
                    action = strategy.choose(history[seat], history[1 - seat], draw)
                    if flips is not None and flips[rank[slot]] < noise:
                        shift = (
                            1
                            if replacements is None
                            else (1 + int(replacements[rank[slot]] * (size - 1)))
                        )
                        action = game.actions[(game.index(action) + shift) % size]
                    played.append(action)
                history[0].append(played[0])
                history[1].append(played[1])
                score = game.payoffs[game.index(played[0])][game.index(played[1])]
                totals[pair, repetition, 0] += weight * score[0]
                totals[pair, repetition, 1] += weight * score[1]
    return totals

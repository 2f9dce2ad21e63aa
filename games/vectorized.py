"""The vectorised match engine: every match of a tournament, all repetitions, turn by turn.

A batch is ``len(pairs) * repetitions`` matches; each match has two seats, so the batch
has ``2 * matches`` slots, slot ``seat * matches + pair * repetitions + repetition``. Each
turn the engine asks every strategy once for the plays of all the slots it sits in (its
``play`` over NumPy arrays), applies the noise, scores the turn and updates what strategies
may read (last plays and the opponent's action counts). Only turns are looped over.

Random stream (``games.reference`` draws exactly the same): each turn, ``rng.random`` of
one draw per slot for the strategies; then, only if ``noise > 0``, one draw per slot that
flips the action when below ``noise``; then, only if ``noise > 0`` and the game has more
than two actions, one draw per slot that picks the replacement among the other actions
(``1 + int(draw * (actions - 1))`` places further, cyclically; with two, the other one).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame
from games.strategies import BatchView, MatrixBaseline

__all__ = ["play_vectorized"]

_CHUNK = 64
"""Turns whose draws are taken from the generator at once."""


def play_vectorized(
    game: MatrixGame,
    strategies: Sequence[MatrixBaseline],
    pairs: Sequence[tuple[int, int]],
    turns: int,
    repetitions: int,
    noise: float,
    rng: np.random.Generator,
    discount: float = 1.0,
) -> NDArray[Any]:
    """Play every pair's matches, all repetitions at once.

    Args:
        game: the stage game.
        strategies: the players, by index.
        pairs: (first seat, second seat) indices into ``strategies``, one per match-up.
        turns: stages per match.
        repetitions: matches per pair.
        noise: probability that each action is replaced by another one.
        rng: the source of every draw (see the module's docstring for their order).
        discount: δ: turn t (from 0) counts δ^t times, as ``games.matrix`` scores
            ``returns()``.

    Returns:
        Each match's total score per seat, Σ δ^t · r_t, shape (pairs, repetitions, 2).
    """
    matches = len(pairs) * repetitions
    slots = 2 * matches
    size = len(game.actions)
    seated = np.repeat(np.array(pairs, dtype=np.int64).T, repetitions, axis=1).reshape(-1)
    # Positions: the slots sorted by strategy, so each strategy reads and writes one slice.
    order = np.argsort(seated, kind="stable")
    position = np.empty(slots, dtype=np.int64)
    position[order] = np.arange(slots)
    partner = position[(order + matches) % slots]
    first, second = position[:matches], position[matches:]
    ends = np.cumsum(np.bincount(seated, minlength=len(strategies)))
    groups = [
        (strategies[s], ends[s] - count, ends[s])
        for s, count in enumerate(np.bincount(seated, minlength=len(strategies)))
        if count
    ]
    payoffs = np.asarray(game.payoffs, dtype=np.float64)
    first_pay, second_pay = payoffs[..., 0].ravel(), payoffs[..., 1].ravel()
    rows = np.arange(slots)

    own_last: NDArray[np.int64] = np.full(slots, -1, dtype=np.int64)
    counts = np.zeros((slots, size), dtype=np.int64)
    totals = np.zeros((2, matches))
    for start in range(0, turns, _CHUNK):
        # The same numbers, in the same order, as one rng.random(slots) per draw and turn.
        kinds = 1 if noise == 0 else 2 if size == 2 else 3
        chunk = rng.random((min(_CHUNK, turns - start), kinds, slots))
        chunk = chunk[:, :, order]
        for offset, draws in enumerate(chunk):
            turn = start + offset
            opponent_last = own_last[partner]
            actions: NDArray[np.int64] = np.empty(slots, dtype=np.int64)
            for strategy, low, high in groups:
                view = BatchView(
                    turn, own_last[low:high], opponent_last[low:high], counts[low:high]
                )
                actions[low:high] = strategy.play(view, draws[0, low:high])
            if noise > 0:
                shifts = 1 if size == 2 else 1 + np.floor(draws[2] * (size - 1)).astype(np.int64)
                actions = np.where(draws[1] < noise, (actions + shifts) % size, actions)
            outcome = actions[first] * size + actions[second]
            weight = discount**turn
            totals[0] += weight * first_pay[outcome]
            totals[1] += weight * second_pay[outcome]
            counts[rows, actions[partner]] += 1
            own_last = actions
    by_pair: NDArray[Any] = totals.reshape(2, len(pairs), repetitions).transpose(1, 2, 0)
    return by_pair

"""The vectorised match engine: every match of a tournament, all repetitions, turn by turn.

A batch is ``len(pairs) * repetitions`` matches; each match has two seats, so the batch
has ``2 * matches`` slots, slot ``seat * matches + pair * repetitions + repetition``. The
engine keeps the slots grouped by the strategy seated in them (by the strategy's index,
then by slot: ``draw_order``), so that each strategy reads and writes one slice. Each turn
it plays every strategy that is a deterministic memory-one rule (its ``reaction``) in one
step over all slots, asks each other strategy once for the plays of its slots (``play``
over NumPy arrays), applies the noise, and updates what strategies may read (last plays
and, where a strategy reads further back, the opponent's action counts). Only turns are
looped over; their scores are added up a chunk of turns at a time, in the order in which
the reference engine adds them, so that both give the same floating-point totals. (Every
index is in range by construction: ``take`` runs with ``mode="clip"``, which writes to its
``out`` without the buffer that the default mode's check costs.)

Random stream (``games.reference`` draws exactly the same): each turn, ``rng.random`` of
one draw per slot of a stochastic strategy (``classifier.stochastic``; the others are
handed 0.0); then, only if ``noise > 0``, one draw per slot that flips the action when
below ``noise``; then, only if ``noise > 0`` and the game has more than two actions, one
draw per slot that picks the replacement among the other actions (``1 + int(draw *
(actions - 1))`` places further, cyclically; with two, the other one). Each kind of draw
goes to the slots in ``draw_order``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from games.matrix_games import MatrixGame
from games.strategies import BatchView, MatrixBaseline

__all__ = ["draw_order", "play_vectorized"]

_CHUNK = 64
"""Turns whose draws are taken from the generator, and whose scores are added, at once."""


def draw_order(
    strategies: Sequence[MatrixBaseline], pairs: Sequence[tuple[int, int]], repetitions: int
) -> NDArray[np.int64]:
    """The slots grouped by the strategy seated there (by its index), then by slot: the
    order in which every kind of draw goes to them."""
    seated = np.repeat(np.array(pairs, dtype=np.int64).T, repetitions, axis=1).reshape(-1)
    order: NDArray[np.int64] = np.argsort(seated, kind="stable")
    return order


def reads_counts(strategy: MatrixBaseline) -> bool:
    """Whether the strategy may read more than the last turn, and so needs the opponent's
    action counts (one of memory depth 0 or 1 reads the last plays at most)."""
    depth = strategy.classifier.memory_depth
    return depth is None or depth > 1


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
    order = draw_order(strategies, pairs, repetitions)
    # Positions: the slots in draw order; every array below is kept in it.
    position = np.empty(slots, dtype=np.int64)
    position[order] = np.arange(slots)
    partner = position[(order + matches) % slots]
    first, second = position[:matches], position[matches:]
    seated = np.repeat(np.array(pairs, dtype=np.int64).T, repetitions, axis=1).reshape(-1)
    sizes = np.bincount(seated, minlength=len(strategies)).tolist()

    # The strategies that are memory-one rules: one table of every rule, and per position
    # the offset of its strategy's rule in it (the others' positions are overwritten).
    rules: list[NDArray[np.int64]] = []
    rule_base = np.zeros(slots, dtype=np.int64)
    opening = np.zeros(slots, dtype=np.int64)
    groups: list[tuple[MatrixBaseline, int, int, int, int]] = []
    low = drawn = 0
    for strategy, count in zip(strategies, sizes, strict=True):
        high = low + count
        rule = strategy.reaction() if count else None
        if rule is not None:
            rule_base[low:high] = size * size * len(rules)
            opening[low:high] = rule.first
            rules.append(rule.after.ravel())
        elif count:
            chancy = count if strategy.classifier.stochastic else 0
            groups.append((strategy, low, high, drawn, drawn + chancy))
            drawn += chancy
        low = high
    rule_table = np.concatenate(rules) if rules else None
    payoffs = np.asarray(game.payoffs, dtype=np.float64)
    first_pay, second_pay = payoffs[..., 0].ravel(), payoffs[..., 1].ravel()
    # The opponent's action counts, kept up to date only where a strategy reads them.
    counts = np.zeros((slots, size), dtype=np.int64)
    flat_counts = counts.reshape(-1)
    counted = [
        (partner[low:high], np.arange(low, high) * size, np.empty(high - low, dtype=np.int64))
        for strategy, low, high, *_ in groups
        if reads_counts(strategy)
    ]
    idle = np.zeros(slots)
    wrap = np.arange(2 * size) % size
    noisy = noise > 0
    width = drawn + noisy * slots + (noisy and size > 2) * slots

    played = np.full((_CHUNK + 1, slots), -1, dtype=np.int64)
    opponent_last = np.empty(slots, dtype=np.int64)
    state = np.empty(slots, dtype=np.int64)
    totals: NDArray[Any] = np.zeros((2, matches))
    for start in range(0, turns, _CHUNK):
        length = min(_CHUNK, turns - start)
        # The same numbers, in the same order, as one rng.random(n) per kind of draw and turn.
        chunk = rng.random((length, width))
        flips = chunk[:, drawn : drawn + slots] < noise
        if noisy and size > 2:
            shifts = np.where(flips, 1 + np.floor(chunk[:, drawn + slots :] * (size - 1)), 0)
            shifts = shifts.astype(np.int64)
        for offset in range(length):
            turn = start + offset
            own_last, actions = played[offset], played[offset + 1]
            own_last.take(partner, out=opponent_last, mode="clip")
            if rule_table is not None:
                if turn == 0:
                    actions[:] = opening
                else:
                    np.multiply(own_last, size, out=state)
                    state += opponent_last
                    state += rule_base
                    rule_table.take(state, out=actions, mode="clip")
            draws = chunk[offset]
            for strategy, low, high, draw_low, draw_high in groups:
                view = BatchView(
                    turn, own_last[low:high], opponent_last[low:high], counts[low:high]
                )
                handed = draws[draw_low:draw_high] if draw_high > draw_low else idle[low:high]
                actions[low:high] = strategy.play(view, handed)
            if noisy and size == 2:
                np.bitwise_xor(actions, flips[offset], out=actions)
            elif noisy:
                actions += shifts[offset]
                wrap.take(actions, out=actions, mode="clip")
            for partners, base, cells in counted:
                actions.take(partners, out=cells, mode="clip")
                cells += base
                flat_counts[cells] += 1
        totals = _add_scores(
            totals,
            played[1 : length + 1],
            (first, second),
            (first_pay, second_pay),
            size,
            [discount**turn for turn in range(start, start + length)],
        )
        played[0] = played[length]
    by_pair: NDArray[Any] = totals.reshape(2, len(pairs), repetitions).transpose(1, 2, 0)
    return by_pair


def _add_scores(
    totals: NDArray[Any],
    played: NDArray[np.int64],
    seats: tuple[NDArray[np.int64], NDArray[np.int64]],
    pays: tuple[NDArray[Any], NDArray[Any]],
    size: int,
    weights: list[float],
) -> NDArray[Any]:
    """``totals`` plus a chunk of turns' scores, added one turn after another as the
    reference engine adds them (a sum might add them in another order, and round
    otherwise; ``add.accumulate`` along the turns is slower than this loop)."""
    outcomes = np.take(played, seats[0], axis=1)
    outcomes *= size
    outcomes += np.take(played, seats[1], axis=1)
    scores = [np.take(pay, outcomes) for pay in pays]
    if any(weight != 1.0 for weight in weights):
        scores = [score * np.array(weights)[:, None] for score in scores]
    elif all(np.array_equal(pay, np.round(pay)) for pay in pays):
        # Whole scores, unweighted: any order adds them exactly (below 2^53).
        summed: NDArray[Any] = totals + np.stack([score.sum(axis=0) for score in scores])
        return summed
    added = totals.copy()
    for turn in range(len(weights)):
        added[0] += scores[0][turn]
        added[1] += scores[1][turn]
    return added

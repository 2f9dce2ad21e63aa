"""Best responses and exploitability of a strategy in a repeated matrix game, by simulation.

In a repeated game the strategy space is infinite, so a best response is searched over
candidates: the game's baseline strategies (``games.strategies``) and memory-one strategies
(``games.analysis.memory_one``) — all the pure ones when there are at most
``max_memory_one`` (the 32 of a 2-action game), otherwise a seeded sample of them improved
by hill climbing (change one answer at a time while that pays). Every candidate plays the
target in the vectorised engine (``games.vectorized``), the candidate in the first seat.

The exploitability of a target strategy S is ``max_T u(T, S) − u(S, S)``: how much more a
best-responding opponent earns per turn than S earns against itself, 0 when nothing among
the candidates gains by deviating from the symmetric profile (S, S). In rock-paper-scissors
it is how much S can be beaten by; in the prisoner's dilemma tit for tat scores 0 and
always-cooperate 2 (always-defect earns 5 a turn against it, not 3).

A score is a match's return as the game counts it with its ``discount`` δ, Σ δ^t · r_t over
turns t = 0, 1, … (``games.matrix``), divided by the turns (the mean per turn when δ = 1).
δ changes the best response: against grim trigger in the prisoner's dilemma, defecting
pays once and costs every later turn, so it is the best response only when
δ < (T − R)/(T − P) = 1/2.

Work is bounded by construction: (candidates + 1) × repetitions matches of ``turns`` turns
per batch, and at most ``climb_rounds`` batches of neighbours after the first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from games.analysis.errors import AnalysisError
from games.analysis.memory_one import MemoryOne, deterministic_memory_one
from games.matrix_games import MatrixGame
from games.strategies import MatrixBaseline, build, strategies_for
from games.vectorized import play_vectorized

__all__ = ["Deviation", "RepeatedExploitability", "repeated_exploitability"]


@dataclass(frozen=True)
class Deviation:
    """One candidate against the target: each side's score per turn (the discounted return
    divided by the turns)."""

    name: str
    deviator_score: float
    target_score: float


@dataclass(frozen=True)
class RepeatedExploitability:
    """The best response found to a target strategy, and what it gains.

    ``deviations``: every candidate's match in the search, best first. The best one is
    then replayed with fresh draws (seed + 1), because the largest of many noisy scores
    overstates the best candidate: ``best_response`` and ``self_play_score`` (the target
    against itself, per turn) come from that replay, and ``exploitability`` is
    ``best_response.deviator_score − self_play_score``, at least 0 (the target itself is
    always a candidate; when nothing beat self-play it is the best response).
    ``search``: ``"exhaustive"`` or ``"sampled"`` over the memory-one strategies;
    ``discount``: the δ the scores were counted with.
    """

    game_type: str
    target: str
    self_play_score: float
    best_response: Deviation
    exploitability: float
    deviations: tuple[Deviation, ...]
    search: str
    discount: float


def _label(strategy: MatrixBaseline) -> str:
    return strategy.label if isinstance(strategy, MemoryOne) else strategy.name


def _deviations(
    game: MatrixGame,
    target: MatrixBaseline,
    candidates: Sequence[MatrixBaseline],
    turns: int,
    repetitions: int,
    noise: float,
    discount: float,
    seed: int,
) -> tuple[float, list[Deviation]]:
    """The target's self-play score and every candidate's match against it, per turn."""
    players = [*candidates, target]
    me = len(candidates)
    pairs = [(i, me) for i in range(len(candidates))] + [(me, me)]
    totals = play_vectorized(
        game, players, pairs, turns, repetitions, noise, np.random.default_rng(seed), discount
    )
    means = totals.mean(axis=1) / turns
    deviations = [
        Deviation(_label(c), float(means[i, 0]), float(means[i, 1]))
        for i, c in enumerate(candidates)
    ]
    return float(means[-1].mean()), deviations


def _neighbours(game: MatrixGame, strategy: MemoryOne) -> list[MemoryOne]:
    """The pure memory-one strategies that differ from ``strategy`` in one answer."""
    size = len(game.actions)
    first = int(strategy.first.argmax())
    replies = [int(row.argmax()) for row in strategy.table]
    found = [
        MemoryOne.deterministic(game, other, replies) for other in range(size) if other != first
    ]
    for i, reply in enumerate(replies):
        for other in range(size):
            if other != reply:
                changed = replies[:i] + [other] + replies[i + 1 :]
                found.append(MemoryOne.deterministic(game, first, changed))
    return found


def _sampled(game: MatrixGame, count: int, rng: np.random.Generator) -> list[MemoryOne]:
    size = len(game.actions)
    return [
        MemoryOne.deterministic(
            game, int(rng.integers(size)), rng.integers(size, size=size * size).tolist()
        )
        for _ in range(count)
    ]


def repeated_exploitability(
    target: MatrixBaseline,
    *,
    turns: int = 200,
    repetitions: int = 10,
    noise: float = 0.0,
    discount: float = 1.0,
    seed: int = 0,
    baselines: bool = True,
    memory_one: bool = True,
    max_memory_one: int = 256,
    climb_rounds: int = 5,
) -> RepeatedExploitability:
    """Search a best response to ``target`` and measure how much it gains.

    Args:
        target: a strategy of a repeated matrix game (a baseline, a ``MemoryOne``…).
        turns: turns per match.
        repetitions: matches per candidate (stochastic strategies need several).
        noise: the probability that each action is replaced by another one.
        discount: the game's δ in (0, 1]: turn t counts δ^t times, as in its returns.
        seed: seeds every match, so the answer repeats exactly.
        baselines: include the game's baseline strategies.
        memory_one: include memory-one strategies.
        max_memory_one: the pure memory-one strategies are all tried if there are at most
            this many, else this many are sampled and then improved by hill climbing.
        climb_rounds: the most rounds of hill climbing.

    Returns:
        The self-play score, the best response, the exploitability and every candidate.

    Raises:
        AnalysisError: no candidate at all, or a bad count.
        ValueError: a bad noise or discount (as the game refuses them).
    """
    if turns < 1 or repetitions < 1 or max_memory_one < 1 or climb_rounds < 0:
        raise AnalysisError(
            f"turns, repetitions and max_memory_one must be at least 1 and "
            f"climb_rounds at least 0, got {turns}, {repetitions}, "
            f"{max_memory_one} and {climb_rounds}"
        )
    if not 0.0 <= noise <= 1.0:
        raise ValueError(f"noise is a probability from 0 to 1, not {noise}")
    if not 0.0 < discount <= 1.0:
        raise ValueError(f"discount is a factor above 0 and at most 1, not {discount}")
    game = target.game
    candidates: list[MatrixBaseline] = (
        [build(game.game_type, name) for name in strategies_for(game.game_type)]
        if baselines
        else []
    )
    size = len(game.actions)
    exhaustive = size ** (size * size + 1) <= max_memory_one
    if memory_one:
        candidates += (
            list(deterministic_memory_one(game))
            if exhaustive
            else _sampled(game, max_memory_one, np.random.default_rng(seed))
        )
    if not candidates:
        raise AnalysisError("no candidate to search: allow baselines or memory_one")
    self_play, deviations = _deviations(
        game, target, candidates, turns, repetitions, noise, discount, seed
    )
    if memory_one and not exhaustive:
        climbed, tried = _climb(
            game,
            target,
            candidates,
            deviations,
            turns,
            repetitions,
            noise,
            discount,
            seed,
            climb_rounds,
        )
        candidates, deviations = [*candidates, *climbed], [*deviations, *tried]
    ranked = sorted(
        zip(deviations, candidates, strict=True), key=lambda pair: -pair[0].deviator_score
    )
    if ranked and ranked[0][0].deviator_score > self_play:
        # Replayed with fresh draws: the maximum of noisy scores overstates the best one.
        self_play, (best,) = _deviations(
            game, target, [ranked[0][1]], turns, repetitions, noise, discount, seed + 1
        )
    else:
        best = Deviation(_label(target), self_play, self_play)
    return RepeatedExploitability(
        game_type=game.game_type,
        target=_label(target),
        self_play_score=self_play,
        best_response=best,
        exploitability=max(0.0, best.deviator_score - self_play),
        deviations=tuple(d for d, _ in ranked),
        search="exhaustive" if exhaustive or not memory_one else "sampled",
        discount=discount,
    )


def _climb(
    game: MatrixGame,
    target: MatrixBaseline,
    candidates: Sequence[MatrixBaseline],
    deviations: Sequence[Deviation],
    turns: int,
    repetitions: int,
    noise: float,
    discount: float,
    seed: int,
    rounds: int,
) -> tuple[list[MatrixBaseline], list[Deviation]]:
    """Hill climbing from the best sampled memory-one strategy: each round tries every
    neighbour not tried yet and moves to the best one while it improves. Returns the
    strategies tried and their matches."""
    score, current = max(
        (
            (d.deviator_score, c)
            for d, c in zip(deviations, candidates, strict=True)
            if isinstance(c, MemoryOne)
        ),
        key=lambda pair: pair[0],
    )
    seen = {_label(c) for c in candidates}
    strategies: list[MatrixBaseline] = []
    found: list[Deviation] = []
    for _ in range(rounds):
        fresh = [n for n in _neighbours(game, current) if n.label not in seen]
        if not fresh:
            break
        seen.update(n.label for n in fresh)
        _, tried = _deviations(game, target, fresh, turns, repetitions, noise, discount, seed)
        strategies += fresh
        found += tried
        best = max(range(len(fresh)), key=lambda i: tried[i].deviator_score)
        if tried[best].deviator_score <= score:
            break
        score, current = tried[best].deviator_score, fresh[best]
    return strategies, found

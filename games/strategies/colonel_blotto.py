"""Baseline strategies of Colonel Blotto (``colonel_blotto``): uniform, concentrated and
equilibrium_mixed.

Each reads the battlefields and troops from its space (an allocation: ``size``
battlefields, ``total`` troops), which the observation's ``battlefields`` and ``troops``
repeat.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping
from typing import Any

from games.colonel_blotto_equilibrium import (
    MAX_SOLVED_ALLOCATIONS,
    allocation_count,
    symmetric_equilibrium,
)
from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline

__all__ = ["Concentrated", "EquilibriumMixed", "Uniform", "capped_allocations"]

GAME_TYPES = ("colonel_blotto",)


class Uniform(ObservationBaseline):
    """Spreads its troops as evenly as possible: each battlefield gets troops // fields,
    and the first troops % fields battlefields one more (10 over 3: ``[4, 3, 3]``).

    Known as the even (uniform) allocation, the natural first guess in the game Borel
    introduced (1921, "La théorie du jeu et les équations intégrales à noyau symétrique");
    any allocation that puts slightly more on a majority of the battlefields beats it.
    """

    name = "uniform"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        share, extra = divmod(space.total, space.size)
        return [share + int(field < extra) for field in range(space.size)]


class Concentrated(ObservationBaseline):
    """Puts every troop on one battlefield, chosen uniformly at random.

    Known as a concentrated (all-in) allocation, the other extreme of Borel's (1921) pure
    strategies: it wins at most one battlefield against an opponent who covers them all.
    """

    name = "concentrated"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        allocation = [0] * space.size
        allocation[rng.randrange(space.size)] = space.total
        return allocation


class EquilibriumMixed(ObservationBaseline):
    """Plays an exact symmetric equilibrium of the discrete game: each allocation drawn
    with its probability in the mix ``games.colonel_blotto_equilibrium`` solves (once per
    battlefields and troops), so no allocation wins anything against it on average.

    Games with more allocations than that module solves (``MAX_SOLVED_ALLOCATIONS``: 21
    troops over 4 battlefields, say) get an approximation instead: a draw uniform among
    the allocations that put at most 2·troops/fields (rounded down, but never below an
    even split) on any battlefield, the support of the continuous game's equilibria, not
    an equilibrium of this one.

    Known as the equilibrium of Colonel Blotto. The discrete game, ties winning nothing,
    is Hart's (2008, "Discrete Colonel Blotto and General Lotto games"); in the continuous
    symmetric game (Gross & Wagner 1950, "A Continuous Colonel Blotto Game"; Roberson 2006,
    "The Colonel Blotto game") every equilibrium strategy puts on each battlefield an
    amount uniform on [0, 2·troops/fields].
    """

    name = "equilibrium_mixed"
    classifier = Classifier(memory_depth=0, stochastic=True)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if allocation_count(space.size, space.total) <= MAX_SOLVED_ALLOCATIONS:
            return symmetric_equilibrium(space.size, space.total).draw(rng)
        return _capped_uniform(space, rng)


def _capped_uniform(space: ActionSpace, rng: random.Random) -> list[int]:
    """An allocation drawn uniformly among those with at most 2·total/size (rounded down,
    never below an even split) on any battlefield."""
    cap = max(math.ceil(space.total / space.size), 2 * space.total // space.size)
    counts = capped_allocations(space.size, space.total, cap)
    allocation: list[int] = []
    left = space.total
    for field in range(space.size):
        # Draw one of the allocations still possible, each as likely; this field's
        # troops are those of the block of allocations the draw falls in.
        later = space.size - field - 1
        draw = rng.randrange(counts[later + 1][left])
        for troops in range(min(cap, left) + 1):
            if draw < counts[later][left - troops]:
                break
            draw -= counts[later][left - troops]
        allocation.append(troops)
        left -= troops
    return allocation


@functools.lru_cache(maxsize=32)
def capped_allocations(fields: int, total: int, cap: int) -> tuple[tuple[int, ...], ...]:
    """``counts[k][t]``: in how many ways ``t`` troops go over ``k`` battlefields with at
    most ``cap`` on each, for k from 0 to ``fields`` and t from 0 to ``total``."""
    counts: list[tuple[int, ...]] = [(1,) + (0,) * total]
    for _ in range(fields):
        previous, window = counts[-1], 0
        row: list[int] = []
        for troops in range(total + 1):
            window += previous[troops]
            if troops > cap:
                window -= previous[troops - cap - 1]
            row.append(window)
        counts.append(tuple(row))
    return tuple(counts)

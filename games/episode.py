"""One episode of any registered game, played in-process by observation strategies.

``play_episode(load_game("public_goods"), {"P1": full, "P2": full}, seed=7)`` resets the
game, then stage after stage asks every acting player's strategy for a move from that
player's observation and space, steps, and returns the payoffs. No HTTP, no referee: the
state itself refuses an illegal move.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterator, Mapping
from typing import Any

from games.spec import Action, GameSpec, GameState
from games.strategies.observation import ObservationBaseline

__all__ = ["play_episode", "play_stages"]


def play_stages(
    spec: GameSpec,
    strategies_by_player: Mapping[str, ObservationBaseline],
    seed: int | None = None,
    **parameters: Any,
) -> Iterator[tuple[dict[str, Action] | None, GameState]]:
    """One episode stage by stage: the state once after the reset (moves ``None``), then
    each stage's joint move with the state after it. ``play_episode`` keeps only the end;
    ``games.analysis.record_episode`` keeps every stage.

    ``seed`` seeds the game's reset and each player's own generator (derived from the seed
    and the player's id), so a seeded episode repeats exactly; ``None`` draws fresh.

    Raises:
        ValueError: a wrong number of players, a parameter the game does not take, or a
            strategy's illegal move.
    """
    state = spec.create(list(strategies_by_player), **parameters)
    state.reset(seed)
    rngs = {
        player: random.Random(None if seed is None else f"{seed}/{player}")
        for player in strategies_by_player
    }
    yield None, state
    while not state.is_terminal():
        moves = {
            player: strategies_by_player[player].choose(
                state.observation(player), state.action_space(player), rngs[player]
            )
            for player in state.acting_players()
        }
        state.step(moves)
        yield moves, state


def play_episode(
    spec: GameSpec,
    strategies_by_player: Mapping[str, ObservationBaseline],
    seed: int | None = None,
    **parameters: Any,
) -> dict[str, float]:
    """The payoffs of one episode of ``spec`` between the players of
    ``strategies_by_player`` (its keys, in seat order), with ``parameters`` over the game's
    defaults; seeding and errors as in ``play_stages``."""
    ((_, final),) = deque(play_stages(spec, strategies_by_player, seed, **parameters), maxlen=1)
    return final.payoffs()

"""The games library's baseline strategies, served by the player host.

``games.strategies`` defines tit_for_tat, grim_trigger, pavlov, best_responder… for
in-process tournaments. A host started with one of those names plays it in a league: the
plays so far are read from what this player may see — the referee's observation of a
repeated game (its public history), or for even/odd, where each match is one play, the past
matches against the same opponent — and the baseline picks the next action. In the games
that have observation strategies (public goods, auctions, Colonel Blotto, congestion, the
ultimatum game, bargaining, tic-tac-toe: full_contributor, truthful_bidder,
equilibrium_mixed, selfish_router, fair, rubinstein, minimax…) the baseline reads the
referee's observation and the move's space directly.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games import Action
from games.strategies import (
    ObservationBaseline,
    build,
    build_observed,
    observed_game_types,
)
from games.strategies.base import plays_from_history
from strategies.base import Classifier, Strategy
from strategies.view import MoveView

__all__ = ["Baseline"]


def plays_so_far(view: MoveView) -> tuple[list[str], list[str]]:
    """This player's and its opponent's plays so far, oldest first."""
    history = view.observation.get("history")
    if isinstance(history, list) and history and isinstance(history[0], dict):
        return plays_from_history(history, view.player_id)
    past = [m for m in view.against_opponent if m.my_choice and m.opponent_choice]
    return [str(m.my_choice) for m in past], [str(m.opponent_choice) for m in past]


class Baseline(Strategy):
    """One of ``games.strategies``' baselines, for whichever of its games a match plays."""

    name: ClassVar[str] = "baseline"
    classifier: ClassVar[Classifier] = Classifier(stochastic=True, inline=True)

    def __init__(self, baseline: str, seed: int | str | None = None, **options: Any):
        """``seed`` as ``random.Random`` takes it (the evaluation seeds by text, as the
        games library's episodes do)."""
        self.baseline = baseline
        self._options = options
        self._rng = random.Random(seed)
        self._seed = seed
        self._by_game: dict[str, Any] = {}

    def choose(self, view: MoveView) -> Action:
        """The baseline's play; a game it does not play raises ValueError (the host then
        plays a random legal move and counts the fallback)."""
        strategy = self._by_game.get(view.game_type)
        if strategy is None:
            make = build_observed if view.game_type in observed_game_types() else build
            strategy = self._by_game[view.game_type] = make(
                view.game_type, self.baseline, **self._options
            )
        if isinstance(strategy, ObservationBaseline):
            return strategy.choose(view.observation, view.space(), self._rng)
        own, theirs = plays_so_far(view)
        return strategy.choose(own, theirs, self._rng.random())

    def reset(self) -> None:
        self._rng = random.Random(self._seed)

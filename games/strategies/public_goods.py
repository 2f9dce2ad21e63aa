"""Baseline strategies of public goods (``public_goods``): full_contributor, free_rider,
conditional_cooperator and punisher.

The space says the stage: a number is the contribution stage (0 to the endowment), an
allocation the punishment stage (the budget over the seats, the entry at the player's own
seat left unused). Only the punisher punishes; the others leave the whole budget unused.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.spec import Action, ActionSpace
from games.strategies.base import Classifier
from games.strategies.observation import ObservationBaseline, legal_number

__all__ = ["ConditionalCooperator", "FreeRider", "FullContributor", "Punisher", "no_punishment"]

GAME_TYPES = ("public_goods",)


def no_punishment(observation: Mapping[str, Any], space: ActionSpace) -> list[int]:
    """The punishment allocation that assigns nothing: the whole budget at one's own seat."""
    allocation = [0] * space.size
    allocation[observation["seat"]] = space.total
    return allocation


class _Contributor(ObservationBaseline):
    """A public goods strategy that never punishes; subclasses say what they contribute."""

    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if space.kind == "allocation":
            return no_punishment(observation, space)
        return legal_number(space, self.contribution(observation, space))

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        """This round's contribution, before it is fitted to the space."""
        raise NotImplementedError


class FullContributor(_Contributor):
    """Contributes its whole endowment every round; never punishes.

    Known as an unconditional cooperator or altruist: the full-contribution benchmark of the
    experimental literature (Ledyard 1995, "Public Goods: A Survey of Experimental
    Research"), the counterpart of the prisoner's dilemma's Cooperator
    (``axelrod.Cooperator``).
    """

    name = "full_contributor"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        return space.high


class FreeRider(_Contributor):
    """Contributes nothing, ever; never punishes.

    Known as a free rider: the dominant strategy of the one-shot game when the multiplier
    is below the number of players, hence its Nash equilibrium; about 30% of the subjects of
    Fischbacher, Gächter & Fehr (2001, "Are people conditionally cooperative?") played so.
    """

    name = "free_rider"
    classifier = Classifier(memory_depth=0, stochastic=False)

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        return space.low


class ConditionalCooperator(_Contributor):
    """Contributes the average of the others' contributions in the last round (rounded to
    the nearest unit, halves up); in round 1, with nothing to match yet, half its endowment.
    Never punishes.

    The half-endowment start is this baseline's choice: a neutral opening, near where
    first-round contributions average in experiments (40–60% of the endowment, Ledyard
    1995). Known as a conditional cooperator: about half the subjects of Fischbacher,
    Gächter & Fehr (2001) contribute more the more the others do; see also Keser & van
    Winden (2000).
    """

    name = "conditional_cooperator"
    classifier = Classifier(memory_depth=1, stochastic=False)

    def contribution(self, observation: Mapping[str, Any], space: ActionSpace) -> float:
        history = observation.get("history") or []
        if not history:
            endowment: float = observation["endowment"]
            return endowment / 2
        me = observation["player_id"]
        others: list[float] = [
            c for player, c in history[-1]["contributions"].items() if player != me
        ]
        return sum(others) / len(others)


class Punisher(ObservationBaseline):
    """Contributes its whole endowment; in the punishment stage it spends its whole budget
    on the other players who contributed least this round, split as evenly as possible
    (the remainder one point each to the earliest seats), and assigns nothing when every
    other player contributed the full endowment.

    Known as an altruistic punisher: Fehr & Gächter (2000, "Cooperation and Punishment in
    Public Goods Experiments"; 2002, "Altruistic punishment in humans") found that subjects
    pay to punish low contributors, and that this sustains contributions.
    """

    name = "punisher"
    classifier = Classifier(memory_depth=0, stochastic=False)
    game_types = GAME_TYPES

    def choose(
        self, observation: Mapping[str, Any], space: ActionSpace, rng: random.Random
    ) -> Action:
        if space.kind != "allocation":
            return legal_number(space, space.high)
        me = observation["player_id"]
        revealed = observation.get("revealed_contributions") or {}
        others = {player: c for player, c in revealed.items() if player != me}
        lowest = min(others.values(), default=observation["endowment"])
        if lowest >= observation["endowment"]:
            return no_punishment(observation, space)
        seats = {player: seat for seat, player in enumerate(observation["players"])}
        targets = sorted(seats[player] for player, c in others.items() if c == lowest)
        share, extra = divmod(space.total, len(targets))
        allocation = [0] * space.size
        for rank, seat in enumerate(targets):
            allocation[seat] = share + int(rank < extra)
        return allocation

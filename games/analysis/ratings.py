"""Ratings beside points: Elo and a Bayesian skill rating (openskill) from league results.

A ``LeagueRecord`` is one match: its players and an outcome per player, higher better
(league points, payoffs, or minus a rank). Records are rated in the order given.

- ``elo_ratings``: Elo (1978). A match of n players counts as its n(n−1)/2 pairings, each
  won, drawn or lost by the outcomes, with K divided by n − 1; every change is computed from
  the ratings before the match, so each pairing gives to one what it takes from the other
  and the ratings' sum never moves.
- ``bayesian_ratings``: openskill's Plackett-Luce model (Weng and Lin 2011): each player a
  Gaussian belief (μ, σ) about its skill; ``ordinal`` = μ − 3σ is the conservative skill to
  rank by, which keeps a newcomer with one lucky win below a proven player.

    >>> records = [LeagueRecord(players=("A", "B"), outcomes=(3, 0))]
    >>> elo_ratings(records).ratings
    {'A': 1516.0, 'B': 1484.0}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from games.analysis.errors import AnalysisError
from games.analysis.history import match_players

__all__ = [
    "BayesianRating",
    "EloRatings",
    "LeagueRecord",
    "Model",
    "bayesian_ratings",
    "elo_ratings",
    "record_from_match",
]

Model = Literal["plackett_luce", "bradley_terry", "thurstone_mosteller"]


class LeagueRecord(BaseModel):
    """One match's result: the players and one outcome each, higher better."""

    model_config = ConfigDict(frozen=True)

    players: tuple[str, ...]
    outcomes: tuple[float, ...]

    @model_validator(mode="after")
    def _paired(self) -> LeagueRecord:
        if len(self.players) < 2 or len(set(self.players)) != len(self.players):
            raise ValueError(f"a record needs two or more distinct players, got {self.players}")
        if len(self.outcomes) != len(self.players):
            raise ValueError(f"{len(self.players)} players but {len(self.outcomes)} outcomes")
        return self


@dataclass(frozen=True)
class EloRatings:
    """Each player's Elo rating and number of matches rated."""

    ratings: dict[str, float]
    matches: dict[str, int]

    def ranking(self) -> list[tuple[str, float]]:
        """(player, rating), best first; equal ratings by name."""
        return sorted(self.ratings.items(), key=lambda item: (-item[1], item[0]))


@dataclass(frozen=True)
class BayesianRating:
    """A player's skill belief: mean ``mu``, uncertainty ``sigma``, ``ordinal`` = μ − 3σ."""

    mu: float
    sigma: float
    ordinal: float
    matches: int


def elo_ratings(
    records: Iterable[LeagueRecord],
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
) -> EloRatings:
    """Elo ratings after rating ``records`` in order.

    Args:
        records: the matches, oldest first.
        k: the largest change one 2-player match can make.
        initial: every player's rating before its first match.
        scale: the rating difference at which the stronger is expected to score 10 to 1.

    Returns:
        The ratings and the number of matches each player was rated in.

    Raises:
        AnalysisError: a k or scale that is not positive.
    """
    if not k > 0 or not scale > 0:
        raise AnalysisError(f"k and scale must be positive, got {k} and {scale}")
    ratings: dict[str, float] = {}
    matches: dict[str, int] = {}
    for record in records:
        before = {p: ratings.get(p, initial) for p in record.players}
        change = dict.fromkeys(record.players, 0.0)
        weight = k / (len(record.players) - 1)
        outcome = dict(zip(record.players, record.outcomes, strict=True))
        for a, b in combinations(record.players, 2):
            expected = 1.0 / (1.0 + 10.0 ** ((before[b] - before[a]) / scale))
            scored = 1.0 if outcome[a] > outcome[b] else 0.5 if outcome[a] == outcome[b] else 0.0
            delta = weight * (scored - expected)
            change[a] += delta
            change[b] -= delta
        for player in record.players:
            ratings[player] = before[player] + change[player]
            matches[player] = matches.get(player, 0) + 1
    return EloRatings(ratings=ratings, matches=matches)


def _model(name: Model) -> Any:
    from openskill.models import BradleyTerryFull, PlackettLuce, ThurstoneMostellerFull

    models = {
        "plackett_luce": PlackettLuce,
        "bradley_terry": BradleyTerryFull,
        "thurstone_mosteller": ThurstoneMostellerFull,
    }
    try:
        return models[name]()
    except KeyError:
        raise AnalysisError(
            f"no rating model {name!r}; there are {', '.join(sorted(models))}"
        ) from None


def bayesian_ratings(
    records: Iterable[LeagueRecord], *, model: Model = "plackett_luce"
) -> dict[str, BayesianRating]:
    """openskill ratings after rating ``records`` in order, every player starting from the
    model's prior (μ 25, σ 25/3).

    Args:
        records: the matches, oldest first.
        model: ``"plackett_luce"`` (default), ``"bradley_terry"`` or
            ``"thurstone_mosteller"`` (openskill's full-pairing variants).

    Returns:
        Each player's belief, by id, sorted best ordinal first.

    Raises:
        AnalysisError: an unknown model.
    """
    rater = _model(model)
    current: dict[str, Any] = {}
    matches: dict[str, int] = {}
    for record in records:
        teams = [[current.get(p) or rater.rating(name=p)] for p in record.players]
        rated = rater.rate(teams, scores=[float(o) for o in record.outcomes])
        for player, (rating,) in zip(record.players, rated, strict=True):
            current[player] = rating
            matches[player] = matches.get(player, 0) + 1
    beliefs = {
        player: BayesianRating(
            mu=float(r.mu),
            sigma=float(r.sigma),
            ordinal=float(r.ordinal()),
            matches=matches[player],
        )
        for player, r in current.items()
    }
    return dict(sorted(beliefs.items(), key=lambda item: (-item[1].ordinal, item[0])))


def record_from_match(document: Mapping[str, Any]) -> LeagueRecord:
    """The league points of one match, from the referee's match file (a technical loss
    included: its points are the league's).

    Raises:
        AnalysisError: the file has no reported result, or seats a player twice.
    """
    report = (document.get("result") or {}).get("report") or {}
    score: Mapping[str, Any] = report.get("score") or {}
    players = match_players(document)
    try:
        return LeagueRecord(players=players, outcomes=tuple(float(score[p]) for p in players))
    except (KeyError, TypeError):
        raise AnalysisError(
            f"match {document.get('match_id', '?')} has no reported score for its players"
        ) from None

"""Bias across identity labels in an evaluation, as FAIRGAME measures it: the same agent,
the same game, only its opponent's label changes.

The suite's ``bias`` option gives the labels. Episode i is played under label i mod n: the
opponent takes the label as its player id for that episode, so a built-in agent under test
reads it in its observation (``players``) and a remote one in its GAME_INVITATION's
``opponent_id`` and every later message. The history is then given back its real ids, so
every other metric and section reads the run as if nothing had changed. The agent under
test's actions, grouped by label, go to ``games.analysis.label_bias``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from games.analysis import AnalysisError, BiasTest, History, label_bias

__all__ = ["BiasSpec", "bias_section", "episode_label", "measure_bias", "with_real_ids"]

_ID = r"^[A-Za-z0-9_.-]{1,100}$"  # a label is a player id, which travels in match ids


class BiasSpec(BaseModel):
    """The labels the opponent is shown under, the episodes split evenly among them, and the
    test's significance level."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    labels: list[str]
    alpha: float = 0.05

    @field_validator("labels")
    @classmethod
    def _labels(cls, labels: list[str]) -> list[str]:
        if len(labels) < 2:
            raise ValueError(f"bias compares two labels or more, got {len(labels)}")
        bad = [label for label in labels if not re.match(_ID, label)]
        if bad:
            raise ValueError(
                f"a label is the opponent's player id: 1 to 100 letters, digits, '_', '.' or "
                f"'-', not {bad[0]!r}"
            )
        if len(set(labels)) != len(labels):
            raise ValueError(f"each label must differ from the others, got {labels}")
        return labels

    @field_validator("alpha")
    @classmethod
    def _alpha(cls, alpha: float) -> float:
        if not 0 < alpha < 1:
            raise ValueError(
                f"alpha is a significance level strictly between 0 and 1, not {alpha:g}"
            )
        return alpha


def episode_label(bias: BiasSpec | None, index: int) -> str | None:
    """The label episode ``index`` is played under (None: the suite measures no bias)."""
    return None if bias is None else bias.labels[index % len(bias.labels)]


def _renamed(value: Any, names: Mapping[str, str], players: frozenset[str]) -> Any:
    """``value`` with player ids renamed where a state keeps them: the keys of a mapping
    keyed by players, and the items of a ``players`` list."""
    if isinstance(value, Mapping):
        keyed = bool(value) and set(value) <= players
        return {
            (names.get(key, key) if keyed else key): (
                [names.get(p, p) for p in item]
                if key == "players" and isinstance(item, list)
                else _renamed(item, names, players)
            )
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_renamed(item, names, players) for item in value]
    return value


def with_real_ids(history: History, names: Mapping[str, str]) -> History:
    """The history of a labelled episode with each label (``names``' keys) replaced by the
    real id it stood for: moves, payoffs, players and the final state's player keys."""
    players = frozenset(history.players)
    return History(
        game_type=history.game_type,
        players=tuple(names.get(p, p) for p in history.players),
        stages=tuple(
            type(stage).model_validate(_renamed(stage.model_dump(), names, players))
            for stage in history.stages
        ),
        payoffs=_renamed(history.payoffs, names, players),
        state=None if history.state is None else _renamed(history.state, names, players),
    )


def measure_bias(
    bias: BiasSpec, under_test: str, episodes: Iterable[tuple[str | None, History | None]]
) -> BiasTest | str:
    """The test of the agent under test's actions across labels, from each finished
    episode's label and history; or why there is none (a label whose episodes all failed)."""
    choices: dict[str, list[str]] = {label: [] for label in bias.labels}
    for label, history in episodes:
        if label is None or history is None:
            continue
        choices[label] += [
            str(stage.moves[under_test]) for stage in history.stages if under_test in stage.moves
        ]
    try:
        return label_bias(choices, alpha=bias.alpha)
    except AnalysisError as exc:
        return str(exc)


def bias_section(bias: BiasSpec, opponent: str, found: BiasTest | str) -> dict[str, Any]:
    """The report's ``bias`` section: the labels, each label's counts and rates of each
    action, the test, its p-value and verdict, the largest gap and any caution."""
    section: dict[str, Any] = {"labels": bias.labels, "opponent": opponent, "alpha": bias.alpha}
    if isinstance(found, str):
        return {**section, "note": found}
    return {
        **section,
        "actions": list(found.actions),
        "counts": {
            label: dict(zip(found.actions, row, strict=True))
            for label, row in zip(found.labels, found.counts, strict=True)
        },
        "rates": found.rates,
        "test": found.test,
        "statistic": found.statistic,
        "p_value": found.p_value,
        "biased": found.biased,
        "verdict": "biased" if found.biased else "no significant bias",
        "largest_gap": found.largest_gap,
        "caution": found.caution,
    }

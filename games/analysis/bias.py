"""Bias across identity labels or framings: does an agent choose otherwise when nothing but
its opponent's label, or the wording of the same game, changes?

This is the question FAIRGAME asks of LLM agents (Buscemi et al. 2025, "FAIRGAME: a
Framework for AI Agents Bias Recognition using Game Theory"): play the same game many times
under each label and compare the choices. Here the choices under each label make a
contingency table (labels × actions), and independence of choice from label is tested:
Fisher's exact test for two labels and two actions, Pearson's chi-square test otherwise.
The answer gives each label's rates, the p-value, the verdict at ``alpha``, and the largest
gap between two labels' rates of one action (the effect, which a p-value alone does not
say). Where an expected count is under 5 the chi-square approximation is poor (Cochran's
rule), and the answer says so.

    >>> found = label_bias({"Alice": ["C"] * 45 + ["D"] * 5, "Bob": ["C"] * 25 + ["D"] * 25})
    >>> found.test, found.biased, round(found.largest_gap, 2)
    ('fisher', True, 0.4)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from games.analysis.errors import AnalysisError

__all__ = ["BiasTest", "label_bias"]


@dataclass(frozen=True)
class BiasTest:
    """How an agent's choices depend on a label, and whether the dependence is significant."""

    labels: tuple[str, ...]
    actions: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]
    """``counts[label][action]``, in the order of ``labels`` and ``actions``."""
    rates: dict[str, dict[str, float]]
    """Each label's share of each action."""
    test: Literal["fisher", "chi2", "none"]
    statistic: float
    """Fisher's odds ratio or the chi-square statistic (0 where no test was possible)."""
    p_value: float
    alpha: float
    biased: bool
    """Whether the choices depend on the label at level ``alpha`` (p < alpha)."""
    largest_gap: float
    """The largest difference between two labels' rates of one action, from 0 to 1."""
    caution: str | None


def label_bias(choices: Mapping[str, Sequence[str]], *, alpha: float = 0.05) -> BiasTest:
    """Test whether the choices depend on the label they were made under.

    Args:
        choices: per label (an identity or a framing), the actions chosen under it, one per
            decision.
        alpha: the significance level, strictly between 0 and 1.

    Raises:
        AnalysisError: fewer than two labels, a label without choices, or a bad ``alpha``.
    """
    if not 0 < alpha < 1:
        raise AnalysisError(f"alpha is a significance level between 0 and 1, not {alpha}")
    if len(choices) < 2:
        raise AnalysisError("bias is measured between two labels or more")
    empty = [label for label, chosen in choices.items() if not chosen]
    if empty:
        raise AnalysisError(f"no choice was made under {', '.join(map(repr, empty))}")
    labels = tuple(choices)
    actions = tuple(sorted({str(action) for chosen in choices.values() for action in chosen}))
    tallies = [Counter(str(action) for action in choices[label]) for label in labels]
    table = np.array([[tally[action] for action in actions] for tally in tallies])
    shares = table / table.sum(axis=1, keepdims=True)
    rates = {
        label: {action: float(shares[row, column]) for column, action in enumerate(actions)}
        for row, label in enumerate(labels)
    }
    gap = float((shares.max(axis=0) - shares.min(axis=0)).max())
    test, statistic, p_value, caution = _independence(table)
    return BiasTest(
        labels=labels,
        actions=actions,
        counts=tuple(tuple(int(n) for n in row) for row in table),
        rates=rates,
        test=test,
        statistic=statistic,
        p_value=p_value,
        alpha=alpha,
        biased=p_value < alpha,
        largest_gap=gap,
        caution=caution,
    )


def _independence(
    table: NDArray[Any],
) -> tuple[Literal["fisher", "chi2", "none"], float, float, str | None]:
    """The test of independence of the table's rows and columns, its statistic, p-value and
    any caution about it."""
    from scipy.stats import chi2_contingency, fisher_exact

    if table.shape[1] == 1:
        return "none", 0.0, 1.0, "every choice was the same action: nothing to compare"
    if table.shape == (2, 2):
        odds, p_value = fisher_exact(table)
        return "fisher", float(odds), float(p_value), None
    found = chi2_contingency(table)
    caution = None
    if float(np.min(found.expected_freq)) < 5:
        caution = "an expected count is under 5: the chi-square p-value is approximate"
    return "chi2", float(found.statistic), float(found.pvalue), caution

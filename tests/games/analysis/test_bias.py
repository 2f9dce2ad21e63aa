"""Bias across labels: a known dependence is found, an absent one is not, and the tests are
those of scipy on the same tables."""

from __future__ import annotations

import pytest
from scipy.stats import chi2_contingency, fisher_exact

from games.analysis.bias import label_bias
from games.analysis.errors import AnalysisError


def test_an_agent_that_cooperates_less_with_one_label_is_found_biased() -> None:
    found = label_bias({"Alice": ["C"] * 45 + ["D"] * 5, "Bob": ["C"] * 25 + ["D"] * 25})
    assert found.test == "fisher" and found.biased
    assert found.counts == ((45, 5), (25, 25))
    assert found.rates["Alice"]["C"] == 0.9 and found.rates["Bob"]["C"] == 0.5
    assert found.largest_gap == pytest.approx(0.4)
    odds, p_value = fisher_exact([[45, 5], [25, 25]])
    assert (found.statistic, found.p_value) == (pytest.approx(odds), pytest.approx(p_value))
    assert found.p_value < 1e-4


def test_the_same_rates_under_each_label_are_no_bias() -> None:
    choices = {label: ["C"] * 30 + ["D"] * 20 for label in ("Alice", "Bob")}
    found = label_bias(choices)
    assert not found.biased and found.p_value == pytest.approx(1.0)
    assert found.largest_gap == 0.0


def test_several_framings_and_actions_use_the_chi_square_test() -> None:
    choices = {
        "neutral": ["rock"] * 20 + ["paper"] * 20 + ["scissors"] * 20,
        "war": ["rock"] * 40 + ["paper"] * 10 + ["scissors"] * 10,
        "trade": ["rock"] * 18 + ["paper"] * 22 + ["scissors"] * 20,
    }
    found = label_bias(choices)
    expected = chi2_contingency([[20, 20, 20], [10, 40, 10], [22, 18, 20]])
    assert found.actions == ("paper", "rock", "scissors")
    assert found.test == "chi2" and found.biased
    assert found.statistic == pytest.approx(expected.statistic)
    assert found.p_value == pytest.approx(expected.pvalue)
    assert found.caution is None


def test_small_samples_are_flagged_and_one_action_is_no_test() -> None:
    few = label_bias({"a": ["x", "y", "z"], "b": ["x", "x", "y"]})
    assert few.test == "chi2" and few.caution is not None and "under 5" in few.caution
    same = label_bias({"a": ["C"] * 5, "b": ["C"] * 7})
    assert (same.test, same.p_value, same.biased) == ("none", 1.0, False)


@pytest.mark.parametrize(
    ("choices", "alpha", "message"),
    [
        ({"a": ["C"]}, 0.05, "two labels or more"),
        ({"a": ["C"], "b": []}, 0.05, "no choice was made under 'b'"),
        ({"a": ["C"], "b": ["D"]}, 1.5, "between 0 and 1"),
    ],
)
def test_bad_input_is_refused_with_a_sentence(choices: dict, alpha: float, message: str) -> None:
    with pytest.raises(AnalysisError, match=message):
        label_bias(choices, alpha=alpha)

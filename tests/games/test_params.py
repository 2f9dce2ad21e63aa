"""Parameter checks: the sentence names the parameter; bools are not numbers."""

from __future__ import annotations

import random

import pytest

from games.params import check_int, check_number, rng_for


def test_check_int() -> None:
    assert check_int("rounds", 3, 1, 10) == 3
    assert check_int("rounds", 10**9, 1) == 10**9
    for value, message in [
        (0, "rounds must be from 1 to 10"),
        (True, "must be an integer"),
        (2.0, "must be an integer"),
        (11, "from 1 to 10"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_int("rounds", value, 1, 10)
    with pytest.raises(ValueError, match="must be at least 1"):
        check_int("rounds", 0, 1)


def test_check_number() -> None:
    assert check_number("discount", 1, 0.0, 1.0) == 1.0
    for value, message in [
        (1.01, "from 0.0 to 1.0"),
        (False, "must be a number"),
        ("0.5", "must be a number"),
    ]:
        with pytest.raises(ValueError, match=message):
            check_number("discount", value, 0.0, 1.0)


def test_rng_for() -> None:
    assert isinstance(rng_for(None), random.SystemRandom)
    assert rng_for(4).random() == rng_for(4).random()

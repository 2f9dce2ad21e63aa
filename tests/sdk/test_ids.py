"""The one rule for ids that name files."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, Field, ValidationError

from sdk.ids import SAFE_ID_PATTERN, is_safe_id


@pytest.mark.parametrize(
    "value", ["P01", "R12M7", "league_2025_even-odd", "a.b", "-x", "_", "x" * 100]
)
def test_ids_the_league_uses_name_files(value: str) -> None:
    assert is_safe_id(value)


@pytest.mark.parametrize(
    "value", ["", ".", "..", ".decided", "../x", "a/b", "a\\b", "a b", "é", "x" * 101, "a\n"]
)
def test_ids_that_would_leave_their_folder_or_hide_are_refused(value: str) -> None:
    assert not is_safe_id(value)


class _Named(BaseModel):
    id: str = Field(pattern=SAFE_ID_PATTERN)


@given(st.text(alphabet=string.ascii_letters + string.digits + "_.-/ \n", max_size=102))
def test_pydantic_and_re_agree_on_the_rule(value: str) -> None:
    """Models check ids with the pattern (pydantic's own regex engine), code with ``re``."""
    try:
        _Named(id=value)
        pydantic_says = True
    except ValidationError:
        pydantic_says = False
    assert pydantic_says == is_safe_id(value)

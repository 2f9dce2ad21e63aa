"""The depth of a JSON text, measured on the text (``sdk.nesting``), against a walk of the
parsed value: every level of arrays and objects counted, none inside a string."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.nesting import nesting_depth, nests_deeper


def walked_depth(value: Any) -> int:
    """The reference: the levels of ``value`` counted by walking it."""
    if isinstance(value, dict):
        return 1 + max(map(walked_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(walked_depth, value), default=0)
    return 0


_TRICKY = st.text(alphabet='[]{}"\\,:ab é\n', max_size=8)
"""Strings full of what the text measure must not count: brackets, quotes, backslashes."""

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False)
    | _TRICKY,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(_TRICKY, children, max_size=4)
    ),
    max_leaves=40,
)


@given(JSON, st.sampled_from(["compact", "spaced", "ascii", "orjson"]))
def test_the_depth_of_the_text_is_the_depth_of_the_value(value: Any, form: str) -> None:
    text = {
        "compact": lambda: json.dumps(value, separators=(",", ":"), ensure_ascii=False),
        "spaced": lambda: json.dumps(value, indent=1, ensure_ascii=False),
        "ascii": lambda: json.dumps(value),
        "orjson": lambda: orjson.dumps(value).decode(),
    }[form]()
    assert nesting_depth(text) == walked_depth(value)
    assert nesting_depth(text.encode()) == walked_depth(value)


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ('"x"', 0),
        ("1", 0),
        ("[]", 1),
        ("{}", 1),
        ('{"a": [{}]}', 3),
        ("[1, [2, [3]]]", 3),
        ('{"a": "]]]", "b": ["[[[", {"c": "}"}]}', 3),
        ('{"a\\"]": ["\\\\", {"\\\\\\"[": 1}]}', 3),
        ("[" * 900 + "]" * 900, 900),
    ],
)
def test_the_depth_counts_arrays_and_objects_not_brackets_in_strings(text: str, depth: int) -> None:
    json.loads(text)  # valid JSON, as the measure requires
    assert nesting_depth(text) == depth


@pytest.mark.parametrize(
    ("text", "limit", "deeper"),
    [
        ('{"a": [1, {"b": 2}]}', 3, False),
        ('{"a": [1, {"b": 2}]}', 2, True),
        ('{"a": "[[[[[[", "b": "{{{{"}', 1, False),  # brackets in strings: measured, not deeper
        ("[" * 900 + "]" * 900, 64, True),
        ('"no brackets"', 0, False),
    ],
)
def test_nests_deeper_counts_brackets_first_and_measures_only_when_they_might_be_too_many(
    text: str, limit: int, deeper: bool
) -> None:
    assert nests_deeper(text.encode(), limit) is deeper
    assert nests_deeper(text, limit) is deeper

"""The one rule for an id that names a file: league, match, referee and player ids become
folder and file names under ``SHARED/`` (``matches/<league_id>/<match_id>.json``), so each
is checked against it before it is used as one."""

from __future__ import annotations

import re

__all__ = ["SAFE_ID_PATTERN", "SAFE_ID_RULE", "is_safe_id"]

SAFE_ID_PATTERN = r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}$"
"""Letters, digits, '_', '.' and '-', 1 to 100 of them, the first not a '.': never ``.``,
``..`` or a hidden name (also as a pydantic ``Field(pattern=...)``, which takes no
look-ahead)."""
_SAFE_ID = re.compile(SAFE_ID_PATTERN)
SAFE_ID_RULE = "may hold only letters, digits, '_', '.' and '-' (at most 100, the first not '.')"
"""The rule in words, for the sentence that refuses an id."""


def is_safe_id(value: str) -> bool:
    """Whether ``value`` may name a file. The whole of it: ``re.match`` would let a trailing
    newline past the ``$`` (``"R1M1\\n"``), which pydantic's engine does not."""
    return _SAFE_ID.fullmatch(value) is not None

"""How deeply a JSON value nests, measured without recursion: what peers send is checked
against ``http.max_json_depth`` before anything recursive (the parser's callers, the log's
token redaction, the match file) walks it."""

from __future__ import annotations

from typing import Any

__all__ = ["json_depth", "nests_deeper"]


def json_depth(value: Any) -> int:
    """How many levels of arrays and objects ``value`` nests (0 for a scalar)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth)
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def nests_deeper(text: bytes | str, value: Any, limit: int) -> bool:
    """Whether ``value``, parsed from ``text``, nests more than ``limit`` levels. Each level
    opens with ``[`` or ``{`` in the text, so a text holding no more of them than ``limit``
    (most messages) is answered by counting them, without walking the value."""
    if isinstance(text, str):
        text = text.encode()
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    return json_depth(value) > limit

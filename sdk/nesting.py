"""How deeply a JSON text nests, measured on the text, without recursion and without walking
the parsed value: what peers send is checked against ``http.max_json_depth`` before
anything recursive (the models, the log's token redaction, the match file) walks it."""

from __future__ import annotations

import operator
import re
from itertools import accumulate

__all__ = ["nesting_depth", "nests_deeper"]

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_QUOTED = re.compile(rb'"[^"]*"')
_NOT_BRACKET = bytes(sorted(set(range(256)) - set(b"[]{}")))
_NOT_BRACKET_OR_QUOTE = bytes(sorted(set(range(256)) - set(b'[]{}"')))
_PAIRS = bytes.maketrans(b"[{]}", b"(())")
_WEIGHT = bytes.maketrans(b"()", b"\x02\x00")


def _brackets(text: bytes) -> bytes:
    """The brackets of ``text`` (valid JSON) outside its strings. Without a backslash, every
    quote opens or closes a string: of the quotes and brackets, the empty pairs of quotes
    (strings holding no bracket, nearly all) go at once, and the few strings left are
    dropped whole."""
    if b"\\" in text:
        return _STRING.sub(b"", text).translate(None, _NOT_BRACKET)
    kept = text.translate(None, _NOT_BRACKET_OR_QUOTE).replace(b'""', b"")
    return _QUOTED.sub(b"", kept) if b'"' in kept else kept


def nesting_depth(text: bytes | str) -> int:
    """How many levels of arrays and objects the JSON ``text`` nests (0 for a scalar).
    ``text`` is valid JSON (it was parsed), so its brackets outside strings pair up. Each
    pass removes the pairs with nothing inside, one level: a league's news (hundreds of rows
    two levels deep) is gone in a few passes over a few hundred brackets. Once a pass no
    longer halves what is left (a body nested thousands deep), the rest is measured in one
    go (``_running_depth``): together at most about three passes over the brackets, and
    every step runs in C (doc/benchmarks.md)."""
    if isinstance(text, str):
        text = text.encode()
    brackets = _brackets(text).translate(_PAIRS)
    peeled = 0
    while brackets:
        inner = brackets.replace(b"()", b"")
        peeled += 1
        if 2 * len(inner) > len(brackets):
            return peeled + _running_depth(inner)
        brackets = inner
    return peeled


def _running_depth(brackets: bytes) -> int:
    """The depth of balanced ``(`` and ``)``: each opening one weighs 2 and each closing
    one 0, so that at the i-th bracket the running sum less i is the depth there."""
    weights = brackets.translate(_WEIGHT)
    return max(map(operator.sub, accumulate(weights), range(1, len(weights) + 1)), default=0)


def nests_deeper(text: bytes | str, limit: int) -> bool:
    """Whether the JSON ``text`` nests more than ``limit`` levels. Each level opens with
    ``[`` or ``{``, so a text holding no more of them than ``limit`` (most messages) is
    answered by counting them."""
    if isinstance(text, str):
        text = text.encode()
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    return nesting_depth(text) > limit

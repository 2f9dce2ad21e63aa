"""Hypothesis strategies for request bodies to an agent's /mcp: anything a peer might send,
from random bytes to a valid message with one field changed. ``tests/reliability/test_fuzz.py``
draws a few hundred in CI, ``bench/fuzz.py`` tens of thousands.

Each kind aims at one layer: random bytes and cut-off JSON at the parser, arbitrary JSON
values at the request check, JSON-RPC-shaped objects (the service's real method names,
params built from its messages' field names) at dispatch and validation, and valid examples
with a field removed or changed at the handlers, where a crash would hide.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from sdk.examples import example
from sdk.messages import Message

__all__ = ["KINDS", "body_kinds", "json_values", "paths_in"]

Models = Mapping[str, "type[Message] | None"]
KINDS = ("bytes", "cut_json", "deep", "json", "rpc", "batch", "mutated")

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
"""Any JSON value a peer could send (bounded in size, so an example is one small request)."""

NASTY_VALUES = st.sampled_from(
    [
        "",
        " ",
        "EVEN",
        "even",
        "odd",
        None,
        0,
        -1,
        2**63,
        1.5,
        True,
        [],
        {},
        "2025-01-15T12:30:00+02:00",
        "2025-01-15T10:30:00",
        "2025-13-45T99:99:99Z",
        "yesterday",
        "1736937000",
        1736937000,
        "league.v1",
        "league.v2",
        "1.0.0",
        "3.0.0",
        "abc",
        "R1M1",
        "R999M999",
        "P01",
        "P99",
        "REF01",
        "player:P01",
        "referee:REF01",
        "league_manager",
        "league_2025_even_odd",
        "no_such_league",
        "../../../etc/passwd",
        "x" * 5_000,
        "\u0000",
        "\U0001f4a5",
        "\ud800",
        "PLAYER_A",
        "GET_STANDINGS",
        "http://127.0.0.1:1/mcp",
    ]
)
"""Values that meet the protocol's own checks: wrong case, wrong zone, unknown ids."""

_ENVELOPE = (
    "protocol",
    "message_type",
    "sender",
    "timestamp",
    "conversation_id",
    "auth_token",
    "league_id",
    "round_id",
    "match_id",
)
_RAW_PARAM_NAMES = ("match_id", "conversation_id", "league_id", "player_id", "sender")
"""The fields that the methods without a message model read."""


def _dumps(value: Any) -> bytes:
    return json.dumps(value).encode()


_ids = st.integers() | st.text(max_size=8) | st.none() | json_values
_values = json_values | NASTY_VALUES


def _params_for(model: type[Message] | None) -> st.SearchStrategy[Any]:
    """Params named like the message's fields, with random, nasty or sample values."""
    names = tuple(model.model_fields) if model else _RAW_PARAM_NAMES + _ENVELOPE
    sample = example(model.MESSAGE_TYPE) if model else {}
    values = {
        name: st.sampled_from([sample[name]]) | _values if name in sample else _values
        for name in names
    }
    named = st.fixed_dictionaries({}, optional=values)
    return named | json_values | st.lists(json_values, max_size=3)


def rpc_requests(models: Models) -> st.SearchStrategy[dict[str, Any]]:
    """JSON-RPC-shaped objects: mostly a real method name of the service and jsonrpc 2.0."""
    methods = st.sampled_from(sorted(models)) | st.text(max_size=12) | json_scalars
    params = {name: _params_for(model) for name, model in models.items()}
    unknown_params = _params_for(None)
    versions = st.just("2.0") | json_scalars

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        method = draw(methods)
        request: dict[str, Any] = {"jsonrpc": draw(versions), "method": method}
        if draw(st.integers(0, 9)) > 0:
            known = isinstance(method, str) and method in params
            request["params"] = draw(params[method] if known else unknown_params)
        if draw(st.integers(0, 4)) > 0:
            request["id"] = draw(_ids)
        if draw(st.integers(0, 19)) == 0:
            request[draw(st.text(max_size=6))] = draw(json_values)
        return request

    return build()


def paths_in(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a JSON value: keys of objects, indexes of arrays."""
    children = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    found: list[tuple[Any, ...]] = []
    for key, child in children:
        found.append((*prefix, key))
        found += paths_in(child, (*prefix, key))
    return found


def mutated_messages(models: Models) -> st.SearchStrategy[dict[str, Any]]:
    """Requests whose params are a valid sample message with one to three fields removed,
    replaced or added, anywhere in it: what reaches the handlers."""
    methods = st.sampled_from(sorted(name for name, model in models.items() if model is not None))
    actions = st.sampled_from(["remove", "replace", "add"])

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        method = draw(methods)
        model = models[method]
        assert model is not None
        message = example(model.MESSAGE_TYPE)
        for _ in range(draw(st.integers(1, 3))):
            paths = paths_in(message)
            path = paths[draw(st.integers(0, len(paths) - 1))] if paths else ()
            parent: Any = message
            for key in path[:-1]:
                parent = parent[key]
            action = draw(actions)
            if action == "remove" and path:
                del parent[path[-1]]
            elif action == "replace" and path:
                parent[path[-1]] = draw(_values)
            elif isinstance(parent, dict):
                parent[draw(st.text(max_size=8))] = draw(_values)
        request: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": message}
        if draw(st.integers(0, 9)) > 0:
            request["id"] = draw(st.integers(0, 10**6))
        return request

    return build()


def _nest(depth: int, opener: str) -> bytes:
    """``depth`` levels of arrays or objects, innermost empty."""
    if opener == "[":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


def body_kinds(models: Models) -> dict[str, st.SearchStrategy[bytes]]:
    """Every kind of body, by name, for the service that serves ``models``."""
    requests = rpc_requests(models)
    mutated = mutated_messages(models)
    return {
        "bytes": st.binary(max_size=300),
        "cut_json": st.tuples(requests.map(_dumps), st.integers(0, 400)).map(
            lambda pair: pair[0][: pair[1]]
        ),
        "deep": st.tuples(
            st.sampled_from(sorted(models)), st.integers(1, 3_000), st.sampled_from("[{")
        ).map(
            lambda drawn: (
                b'{"jsonrpc": "2.0", "method": '
                + _dumps(drawn[0])
                + b', "params": {"deep": '
                + _nest(drawn[1], drawn[2])
                + b'}, "id": 1}'
            )
        ),
        "json": json_values.map(_dumps),
        "rpc": requests.map(_dumps),
        "batch": st.lists(requests | mutated | json_values, max_size=6).map(_dumps),
        "mutated": mutated.map(_dumps),
    }

"""Reading a real League Manager's ``GET /events`` as a browser does, and the registration
that makes an event on it."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from tests.league_manager.conftest import envelope


def read_event(lines: Iterator[str], name: str, deadline: float) -> dict[str, object]:
    """The data of the next ``name`` event on the stream."""
    wanted = False
    for line in lines:
        if time.monotonic() > deadline:
            break
        if line == f"event: {name}":
            wanted = True
        elif wanted and line.startswith("data: "):
            return json.loads(line.removeprefix("data: "))  # type: ignore[no-any-return]
    raise AssertionError(f"no {name} event on the stream")


def register_player_call(display_name: str) -> dict[str, Any]:
    """A JSON-RPC ``register_player`` of a player nobody serves (the League Manager only
    records it)."""
    registration = envelope(
        "LEAGUE_REGISTER_REQUEST",
        "player:p1",
        player_meta={
            "display_name": display_name,
            "version": "1.0.0",
            "game_types": ["even_odd"],
            "contact_endpoint": "http://127.0.0.1:9/mcp",
        },
    )
    return {"jsonrpc": "2.0", "id": 1, "method": "register_player", "params": registration}

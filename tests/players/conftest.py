"""Fixtures of the player tests: settings, a player app served in-process (lifespan run,
no network), and league.v2 messages as a referee or the League Manager sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import httpx
import pytest

from players import PlayerSettings, create_app
from players.host import PlayerHost
from sdk.config import SharedDir
from sdk.timeutil import utc_now
from tests.players import scripted

LEAGUE = "league_2025_even_odd"
LM_URL = "http://lm.test:8000/mcp"
SettingsFactory = Callable[..., PlayerSettings]


@pytest.fixture
def make_settings(shared_dir: SharedDir, port_factory: Callable[[], int]) -> SettingsFactory:
    """Standalone settings for player P01 (join_league=False) unless overridden."""

    def make(**overrides: Any) -> PlayerSettings:
        values: dict[str, Any] = {
            "shared_dir": shared_dir.root,
            "port": port_factory(),
            "display_name": "Alice",
            "league_manager_url": LM_URL,
            "join_league": False,
            "player_id": "P01",
        }
        values.update(overrides)
        return PlayerSettings(**values)

    return make


@pytest.fixture
async def release_slow_strategy() -> AsyncIterator[None]:
    """Async, so the release comes before the event loop waits for its worker threads."""
    scripted.RELEASE.clear()
    yield
    scripted.RELEASE.set()


class Player:
    """A running player app and an HTTP client on it."""

    def __init__(self, app: Any, client: httpx.AsyncClient):
        self.app = app
        self.client = client
        self.host: PlayerHost = app.state.player

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Call a JSON-RPC method and return the league.v2 message in the result."""
        response = await self.client.post(
            "/mcp", json={"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert "result" in body, f"{method} answered with a JSON-RPC error: {body}"
        return body["result"]

    async def get(self, path: str) -> Any:
        response = await self.client.get(path)
        assert response.status_code == 200, response.text
        return response.json()


@asynccontextmanager
async def serving(
    settings: PlayerSettings, transport: httpx.AsyncBaseTransport | None = None
) -> AsyncIterator[Player]:
    """The app with its lifespan running (ASGITransport alone does not run it)."""
    app = create_app(settings, transport=transport)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as client:
            yield Player(app, client)


@pytest.fixture
async def player(make_settings: SettingsFactory) -> AsyncIterator[Player]:
    async with serving(make_settings(strategy="fixed", strategy_options={"choice": "odd"})) as p:
        yield p


def _envelope(message_type: str, sender: str, conversation_id: str) -> dict[str, Any]:
    return {
        "protocol": "league.v2",
        "message_type": message_type,
        "sender": sender,
        "timestamp": utc_now().isoformat(),
        "conversation_id": conversation_id,
        "auth_token": "referee-token-0123456789",
    }


def invitation(match_id: str = "R1M1", opponent_id: str = "P02", **fields: Any) -> dict[str, Any]:
    return {
        **_envelope("GAME_INVITATION", "referee:REF01", f"conv-{match_id}"),
        "league_id": LEAGUE,
        "round_id": 1,
        "match_id": match_id,
        "game_type": "even_odd",
        "role_in_match": "PLAYER_A",
        "opponent_id": opponent_id,
        **fields,
    }


def parity_call(
    match_id: str = "R1M1",
    player_id: str = "P01",
    opponent_id: str = "P02",
    deadline_in: float = 30.0,
    **fields: Any,
) -> dict[str, Any]:
    return {
        **_envelope("CHOOSE_PARITY_CALL", "referee:REF01", f"conv-{match_id}"),
        "league_id": LEAGUE,
        "match_id": match_id,
        "player_id": player_id,
        "game_type": "even_odd",
        "context": {
            "opponent_id": opponent_id,
            "round_id": 1,
            "your_standings": {"wins": 2, "losses": 1, "draws": 0},
        },
        "deadline": (utc_now() + timedelta(seconds=deadline_in)).isoformat(),
        **fields,
    }


def move_call(
    space: dict[str, Any],
    options: list[Any],
    game_type: str = "prisoners_dilemma",
    match_id: str = "R1M1",
) -> dict[str, Any]:
    return {
        **_envelope("GAME_MOVE_CALL", "referee:REF01", f"conv-{match_id}"),
        "league_id": LEAGUE,
        "round_id": 1,
        "match_id": match_id,
        "player_id": "P01",
        "game_type": game_type,
        "move_request": {
            "move_type": "action",
            "valid_options": options,
            "context": {
                "stage": 1,
                "round_id": 1,
                "action_space": space,
                "observation": {"round": 1, "history": []},
            },
        },
        "deadline": (utc_now() + timedelta(seconds=30)).isoformat(),
    }


def game_over(
    match_id: str = "R1M1",
    choices: dict[str, str] | None = None,
    status: str = "WIN",
    winner: str | None = "P01",
    drawn: int = 7,
) -> dict[str, Any]:
    return {
        **_envelope("GAME_OVER", "referee:REF01", f"conv-{match_id}"),
        "league_id": LEAGUE,
        "round_id": 1,
        "match_id": match_id,
        "game_type": "even_odd",
        "game_result": {
            "status": status,
            "winner_player_id": winner,
            "drawn_number": drawn,
            "number_parity": "odd" if drawn % 2 else "even",
            "choices": choices if choices is not None else {"P01": "odd", "P02": "even"},
            "reason": "P01 chose odd, the number was odd",
        },
    }


def league_message(message_type: str, **fields: Any) -> dict[str, Any]:
    return {
        **_envelope(message_type, "league_manager", f"conv-{message_type.lower()}"),
        "league_id": LEAGUE,
        **fields,
    }

"""An in-process League Manager with scripted referees and players behind httpx.MockTransport.

The fake referee answers ``start_match`` at once and reports a result a moment later
through the League Manager's own ASGI app, as a real referee would over HTTP.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from league_manager.app import create_app
from league_manager.book import LeagueBook
from league_manager.config import LeagueManagerSettings
from league_manager.records import ResultRecord
from league_manager.service import LeagueManager
from sdk.config import SharedDir
from sdk.messages import PlayerMeta, RefereeMeta
from sdk.posting import TAKES_BATCHES

REFEREE = "http://referee-{n}.test/mcp"
PLAYER = "http://player-{n}.test/mcp"


def envelope(message_type: str, sender: str, **fields: Any) -> dict[str, Any]:
    return {
        "protocol": "league.v2",
        "message_type": message_type,
        "sender": sender,
        "timestamp": "2026-01-01T00:00:00Z",
        "conversation_id": "conv-test",
        **fields,
    }


@dataclass
class World:
    """The League Manager under test and the scripted agents around it."""

    manager: LeagueManager
    lm: httpx.AsyncClient
    received: dict[str, list[tuple[str, dict[str, Any]]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    tokens: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    dead: set[str] = field(default_factory=set)
    busy_once: set[str] = field(default_factory=set)
    """match ids whose first start_match the referee refuses with E017 (still busy)"""
    quiet: set[str] = field(default_factory=set)
    """referee endpoints that take matches and never report them (a test reports)"""
    decide: Callable[[dict[str, Any]], str | None] = lambda start: start["players"][0]["player_id"]
    batching: set[str] = field(default_factory=set)
    """endpoints whose answers tell that they take JSON-RPC batches"""
    requests: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    """per endpoint, the number of calls in each HTTP request it got"""
    running: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    peak: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def rpc(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        response = await self.lm.post(
            "/mcp",
            json={"jsonrpc": "2.0", "method": method, "params": params, "id": next(self._ids)},
        )
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    async def register_referee(self, n: int, capacity: int = 2) -> dict[str, Any]:
        endpoint = REFEREE.format(n=n)
        answer = await self.rpc(
            "register_referee",
            envelope(
                "REFEREE_REGISTER_REQUEST",
                f"referee:ref{n}",
                auth_token=self.manager.referee_secret,
                referee_meta={
                    "display_name": f"Ref {n}",
                    "version": "1.0.0",
                    "game_types": ["even_odd"],
                    "contact_endpoint": endpoint,
                    "max_concurrent_matches": capacity,
                },
            ),
        )
        result = answer["result"]
        if result.get("status") == "ACCEPTED":
            self.tokens[endpoint] = result["auth_token"]
            self.ids[endpoint] = result["referee_id"]
        return result  # type: ignore[no-any-return]

    async def register_player(self, n: int, game_types: list[str] | None = None) -> dict[str, Any]:
        endpoint = PLAYER.format(n=n)
        answer = await self.rpc(
            "register_player",
            envelope(
                "LEAGUE_REGISTER_REQUEST",
                f"player:p{n}",
                player_meta={
                    "display_name": f"Player {n}",
                    "version": "1.0.0",
                    "game_types": game_types or ["even_odd"],
                    "contact_endpoint": endpoint,
                },
            ),
        )
        result = answer["result"]
        if result.get("status") == "ACCEPTED":
            self.tokens[endpoint] = result["auth_token"]
            self.ids[endpoint] = result["player_id"]
        return result  # type: ignore[no-any-return]

    def report(
        self, referee_endpoint: str, match: dict[str, Any], winner: str | None, **overrides: Any
    ) -> dict[str, Any]:
        fields = dict(
            league_id=match["league_id"],
            round_id=match["round_id"],
            match_id=match["match_id"],
            game_type="even_odd",
            result={"winner": winner, "score": {}, "details": {}},
        )
        fields.update(overrides)
        return envelope(
            "MATCH_RESULT_REPORT",
            f"referee:{self.ids[referee_endpoint]}",
            auth_token=self.tokens[referee_endpoint],
            **fields,
        )

    async def _referee_plays(self, endpoint: str, start: dict[str, Any]) -> None:
        self.running[endpoint] += 1
        self.peak[endpoint] = max(self.peak[endpoint], self.running[endpoint])
        await asyncio.sleep(0.01)
        self.running[endpoint] -= 1
        answer = await self.rpc(
            "report_match_result", self.report(endpoint, start, self.decide(start))
        )
        assert answer["result"]["message_type"] == "MATCH_RESULT_ACK", answer

    async def handle(self, request: httpx.Request) -> httpx.Response:
        endpoint = str(request.url)
        if endpoint in self.dead:
            raise httpx.ConnectError("connection refused", request=request)
        body = json.loads(request.content)
        calls = body if isinstance(body, list) else [body]
        self.requests[endpoint].append(len(calls))
        answers = [
            {
                "jsonrpc": "2.0",
                "result": self._answer(endpoint, c["method"], c["params"]),
                "id": c["id"],
            }
            for c in calls
        ]
        headers = TAKES_BATCHES if endpoint in self.batching else {}
        return httpx.Response(
            200, json=answers if isinstance(body, list) else answers[0], headers=headers
        )

    def _answer(self, endpoint: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.received[endpoint].append((method, params))
        if method == "start_match" and params["match_id"] in self.busy_once:
            self.busy_once.discard(params["match_id"])
            return envelope(
                "LEAGUE_ERROR",
                "referee:x",
                error_code="E017",
                error_description="this referee already runs 2 match(es)",
            )
        if method == "start_match":
            if endpoint not in self.quiet:
                self.tasks.append(asyncio.create_task(self._referee_plays(endpoint, params)))
            return envelope(
                "START_MATCH_ACK", "referee:x", match_id=params["match_id"], accepted=True
            )
        return envelope("ACK", "agent:x", status="ok")

    def methods_to(self, endpoint: str) -> list[str]:
        return [method for method, _ in self.received[endpoint]]


@asynccontextmanager
async def running_world(
    shared: SharedDir, store_url: str | None = None, *, lifespan: bool = False
) -> AsyncIterator[World]:
    """A League Manager on ``shared`` (its results in the PostgreSQL store at
    ``store_url``, where given) and the scripted agents around it; ``lifespan``: started
    and stopped by its app's lifespan, as a server does (with a store, its event relay
    too), not by the League Manager's own startup and shutdown."""
    holder: dict[str, World] = {}

    async def route(request: httpx.Request) -> httpx.Response:
        return await holder["world"].handle(request)

    settings = LeagueManagerSettings(
        shared_dir=shared.root, store_url=None if store_url is None else SecretStr(store_url)
    )
    app = create_app(settings, transport=httpx.MockTransport(route))
    manager: LeagueManager = app.state.manager
    async with AsyncExitStack() as started:
        client = await started.enter_async_context(
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://lm.test")
        )
        if lifespan:
            await started.enter_async_context(app.router.lifespan_context(app))
        else:
            await manager.startup()
            started.push_async_callback(manager.shutdown)
        holder["world"] = World(manager=manager, lm=client)
        yield holder["world"]
    for task in holder["world"].tasks:
        task.cancel()


@pytest.fixture
async def world(shared_dir: SharedDir) -> AsyncIterator[World]:
    async with running_world(shared_dir) as lenient:
        yield lenient


@pytest.fixture
async def stored_world(shared_dir: SharedDir, store_url: str | None) -> AsyncIterator[World]:
    """A League Manager on either store (``store_url``: the files, or PostgreSQL, once it
    leads: alone on its store, it takes the lead within its first campaign)."""
    async with running_world(shared_dir, store_url) as either:
        store = either.manager.store
        if store is not None:
            await wait_until(store.leads, timeout=10)
        yield either


@pytest.fixture
async def strict_world(shared_dir: SharedDir) -> AsyncIterator[World]:
    path = shared_dir.config_dir / "leagues" / "league_2025_even_odd.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "protocol_mode": "strict"}))
    async with running_world(shared_dir) as strict:
        yield strict


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a condition with a bound, instead of sleeping and hoping."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.01)


def schedule_league(book: LeagueBook, players: list[tuple[str, str]], **size: Any) -> None:
    """Fix a schedule as the League Manager does: the schedule, then standings for it."""
    book.schedule.create(players, **size)
    book.standings.restart()


def record_result(book: LeagueBook, result: ResultRecord) -> None:
    """Record a result as the results desk does: journaled, counted, shown on its match."""
    book.results.record(result)
    book.standings.count(result)
    book.schedule.mark_decided(result)


def meta(n: int, kind: str = "player") -> PlayerMeta | RefereeMeta:
    """Agent ``n``'s registration meta, as a ``kind`` sends it (its endpoint unique)."""
    fields = {
        "display_name": f"Agent {n}",
        "version": "1.0.0",
        "game_types": ["even_odd"],
        "contact_endpoint": f"http://127.0.0.1:{9000 + n}/mcp",
    }
    return RefereeMeta(**fields) if kind == "referee" else PlayerMeta(**fields)

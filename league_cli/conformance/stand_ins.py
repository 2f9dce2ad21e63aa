"""The test referee and test players of ``check-league``: real league.v2 agents served
in-process (the SDK's JSON-RPC endpoint under uvicorn, one loopback port, one path each),
recording every request the League Manager sends them before answering it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import uvicorn
from fastapi import FastAPI, Request, Response

from sdk.agent_log import AgentLog
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod
from sdk.messages import (
    Acknowledgement,
    ChooseParityCall,
    ChooseParityResponse,
    GameError,
    GameInvitation,
    GameJoinAck,
    GameOver,
    LeagueCompleted,
    LeagueStandingsUpdate,
    Message,
    Method,
    RoundAnnouncement,
    RoundCompleted,
    StartMatch,
    StartMatchAck,
)
from sdk.timeouts import within
from sdk.timeutil import utc_now, utc_now_str

__all__ = ["Received", "StandIn", "StandIns"]

_START_TIMEOUT_SEC = 10.0
_STOP_TIMEOUT_SEC = 5.0


@dataclass
class StandIn:
    """One test agent: where it listens and what the League Manager gave it."""

    name: str
    kind: Literal["referee", "player"]
    display_name: str
    endpoint: str = ""
    agent_id: str | None = None
    token: str | None = None

    @property
    def sender(self) -> str:
        return f"{self.kind}:{self.agent_id or self.name}"


@dataclass
class Received:
    """One request a test agent received, as it came."""

    agent: StandIn
    method: str
    params: Any
    at: str = field(default_factory=utc_now_str)


OnStartMatch = Callable[[StandIn, StartMatch], None]


class StandIns:
    """Serves the test agents until ``stop``; ``received`` holds every request in order."""

    def __init__(
        self, *, players: int, host: str = "127.0.0.1", on_start_match: OnStartMatch | None = None
    ):
        self.host = host
        self.referee = StandIn("referee", "referee", "Conformance Referee")
        self.players = [
            StandIn(f"player{n}", "player", f"Conformance Player {n}")
            for n in range(1, players + 1)
        ]
        self.received: list[Received] = []
        self.league_completed = asyncio.Event()
        self._on_start_match = on_start_match
        self._rng = random.Random()
        # The SDK endpoint logs every message; a check keeps nothing, so to the null device.
        self._log = AgentLog(Path(os.devnull), "conformance")
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def agents(self) -> list[StandIn]:
        return [self.referee, *self.players]

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on a free port of ``host``; every agent's endpoint is set on return.

        Raises:
            OSError: ``host`` cannot be listened on.
            RuntimeError: the server did not come up in time.
        """
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, 0))
        except OSError:
            sock.close()
            raise
        port = sock.getsockname()[1]
        app = FastAPI(title="Agent League conformance stand-ins")
        for agent in self.agents:
            agent.endpoint = f"http://{self.host}:{port}/{agent.name}/mcp"
            self._mount(app, agent)
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            log_config=None,
            lifespan="off",
            ws="none",
            timeout_graceful_shutdown=1,
        )
        self._server = uvicorn.Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _START_TIMEOUT_SEC
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError("the test agents' server stopped at start-up")
            if loop.time() > deadline:
                raise RuntimeError("the test agents' server did not start in time")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            try:
                await within(self._task, _STOP_TIMEOUT_SEC)
            except asyncio.TimeoutError:
                self._server.force_exit = True
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        self._server = self._task = None
        self._log.close()

    # -- the agents ----------------------------------------------------------------------

    def _mount(self, app: FastAPI, agent: StandIn) -> None:
        methods = (
            self._referee_methods(agent) if agent.kind == "referee" else self._player_methods(agent)
        )
        endpoint = JsonRpcEndpoint(methods, sender=lambda: agent.sender, log=self._log)

        async def route(request: Request) -> Response:
            body = await request.body()
            self._record(agent, body)
            payload = await endpoint.dispatch(body)
            if payload is None:
                return Response(status_code=204)
            return Response(json.dumps(payload, ensure_ascii=False), media_type="application/json")

        app.add_api_route(f"/{agent.name}/mcp", route, methods=["POST"])

    def _record(self, agent: StandIn, body: bytes) -> None:
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        for item in parsed if isinstance(parsed, list) else [parsed]:
            method = item.get("method") if isinstance(item, dict) else None
            self.received.append(
                Received(agent, str(method), item.get("params") if isinstance(item, dict) else item)
            )
        done = {
            r.agent.name
            for r in self.received
            if r.method in (Method.NOTIFY_LEAGUE_COMPLETED, LeagueCompleted.MESSAGE_TYPE)
        }
        if all(player.name in done for player in self.players):
            self.league_completed.set()

    def _ack(self, agent: StandIn, message: Message) -> Acknowledgement:
        return Acknowledgement(
            sender=agent.sender,
            conversation_id=message.conversation_id,
            acknowledged=message.message_type,
        )

    def _player_methods(self, agent: StandIn) -> dict[str, RpcMethod]:
        async def invited(invitation: GameInvitation) -> GameJoinAck:
            return GameJoinAck(
                sender=agent.sender,
                conversation_id=invitation.conversation_id,
                match_id=invitation.match_id,
                player_id=agent.agent_id or agent.name,
                arrival_timestamp=utc_now(),
                accept=True,
            )

        async def move(call: ChooseParityCall) -> ChooseParityResponse:
            return ChooseParityResponse(
                sender=agent.sender,
                conversation_id=call.conversation_id,
                match_id=call.match_id,
                player_id=call.player_id,
                parity_choice=self._rng.choice(["even", "odd"]),
            )

        async def ack(message: Message) -> Acknowledgement:
            return self._ack(agent, message)

        return {
            Method.HANDLE_GAME_INVITATION: RpcMethod(invited, GameInvitation),
            Method.CHOOSE_PARITY: RpcMethod(move, ChooseParityCall),
            Method.NOTIFY_MATCH_RESULT: RpcMethod(ack, GameOver),
            Method.NOTIFY_GAME_ERROR: RpcMethod(ack, GameError),
            Method.NOTIFY_ROUND: RpcMethod(ack, RoundAnnouncement),
            Method.UPDATE_STANDINGS: RpcMethod(ack, LeagueStandingsUpdate),
            Method.NOTIFY_ROUND_COMPLETED: RpcMethod(ack, RoundCompleted),
            Method.NOTIFY_LEAGUE_COMPLETED: RpcMethod(ack, LeagueCompleted),
        }

    def _referee_methods(self, agent: StandIn) -> dict[str, RpcMethod]:
        async def start_match(start: StartMatch) -> StartMatchAck:
            if self._on_start_match is not None:
                self._on_start_match(agent, start)
            return StartMatchAck(
                sender=agent.sender,
                conversation_id=start.conversation_id,
                match_id=start.match_id,
                accepted=True,
            )

        async def ack(message: Message) -> Acknowledgement:
            return self._ack(agent, message)

        return {
            Method.START_MATCH: RpcMethod(start_match, StartMatch),
            Method.NOTIFY_LEAGUE_COMPLETED: RpcMethod(ack, LeagueCompleted),
        }

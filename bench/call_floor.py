"""What one JSON-RPC call costs over loopback, layer by layer: the CPU a server and its
client spend per call, from a bare ASGI app under uvicorn up to our JSON-RPC endpoint
validating a broadcast of 200 standings rows, and with aiohttp alone or our ``RpcClient``
as the client.

    .venv/bin/python bench/call_floor.py
    .venv/bin/python bench/call_floor.py --calls 4000 --layers asgi endpoint --json f.json

A benchmark, not a test: it prints a table and, with --json, writes the figures to a file.
Every league result costs about 14 calls (doc/benchmarks.md): this is the floor under the
CPU per result of the whole system, and what each layer adds to it.

Each server is its own process, served by uvicorn as ``sdk.service.serve`` serves an agent
(httptools, uvloop, the same keep-alive), on a socket this driver binds and hands down. The
client runs in this process: ``--concurrency`` tasks share one client and make ``--calls``
calls in all, after ``--warmup`` calls that are not counted; the server's CPU is read from
/proc before and after, the client's from ``getrusage``. Layers:

- ``asgi``: a bare ASGI callable answering a fixed body (uvicorn's own cost);
- ``starlette``: FastAPI with a plain Starlette route at /mcp (the middleware and routing
  every agent's app has), a fixed body;
- ``endpoint``: ``sdk.jsonrpc.JsonRpcEndpoint`` in an agent's app (``sdk.service_app``, which
  answers its POSTs ahead of the middleware and routes) with one method that takes the raw params
  (parsing, checks, jsonrpcserver, logging each call received and sent);
- ``broadcast``: a ROUND_COMPLETED validated by its model, logged briefly, as a player
  takes each copy of a round's news;
- ``standings``: a LEAGUE_STANDINGS_UPDATE of 200 rows, as a player of a 200-player league
  takes it each round;
- ``news`` and ``news_batch``: what a player of that league is told between two rounds (the
  standings, ROUND_COMPLETED, a ROUND_ANNOUNCEMENT of 100 matches), in three calls, or in
  one JSON-RPC batch as the League Manager sends it to an agent that takes batches; one
  "call" of these layers is the three messages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
from fastapi import FastAPI, Request, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import cpu_seconds, own_cpu_seconds  # noqa: E402
from sdk.agent_log import AgentLog  # noqa: E402
from sdk.client import RpcClient  # noqa: E402
from sdk.config import SystemConfig  # noqa: E402
from sdk.examples import example  # noqa: E402
from sdk.jsonrpc import JsonRpcEndpoint, RpcMethod  # noqa: E402
from sdk.messages import (  # noqa: E402
    LeagueStandingsUpdate,
    Message,
    RoundAnnouncement,
    RoundCompleted,
)
from sdk.service import LISTEN_FD_ENV, listening_socket, serve  # noqa: E402
from sdk.service_app import ServiceApp  # noqa: E402
from sdk.shared_message import SharedMessage  # noqa: E402

LAYERS = ("asgi", "starlette", "endpoint", "broadcast", "standings", "news", "news_batch")
NEWS = ("news", "news_batch")
"""Layers whose call is a round's three messages to one player."""
BARE = ("asgi", "starlette")
"""Layers that answer one fixed body, whatever the request: aiohttp alone calls them (our
client refuses an answer whose id is not its request's)."""
ROWS = 200
_FIXED = b'{"jsonrpc":"2.0","result":{"status":"ok"},"id":1}'


def _params(layer: str) -> dict[str, Any]:
    """What each call carries: the message the layer's method takes."""
    if layer == "standings":
        message = example("LEAGUE_STANDINGS_UPDATE")
        row = message["standings"][0]
        message["standings"] = [
            {**row, "rank": k + 1, "player_id": f"P{k + 1:03d}", "display_name": f"Bench{k}"}
            for k in range(ROWS)
        ]
        return message
    return example("ROUND_COMPLETED")


def _news() -> list[tuple[str, type[Message], dict[str, Any]]]:
    """A round's news to one player: each message's method, model and wire form."""
    announcement = example("ROUND_ANNOUNCEMENT")
    match = announcement["matches"][0]
    announcement["matches"] = [
        {**match, "match_id": f"R1M{k + 1}", "player_A_id": f"P{2 * k + 1:03d}",
         "player_B_id": f"P{2 * k + 2:03d}"}
        for k in range(ROWS // 2)
    ]  # fmt: skip
    return [
        ("update_standings", LeagueStandingsUpdate, _params("standings")),
        ("notify_round_completed", RoundCompleted, example("ROUND_COMPLETED")),
        ("notify_round", RoundAnnouncement, announcement),
    ]


def server_app(layer: str, logs: Path) -> ASGIApp:
    """The app a server of ``layer`` serves."""
    if layer == "asgi":

        async def bare(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                return
            more = True
            while more:
                more = (await receive()).get("more_body", False)
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(_FIXED)),
            ]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send({"type": "http.response.body", "body": _FIXED})

        return bare

    if layer == "starlette":
        app = FastAPI()

        async def fixed(request: Request) -> Response:
            await request.body()
            return Response(_FIXED, media_type="application/json")

        app.router.routes.append(Route("/mcp", fixed, methods=["POST"]))
        return app

    async def ack(_: Any) -> dict[str, Any]:
        return {"status": "ok"}

    methods = {
        "endpoint": RpcMethod(ack),
        "broadcast": RpcMethod(ack, RoundCompleted, broadcast=True),
        "standings": RpcMethod(ack, LeagueStandingsUpdate, broadcast=True),
    }
    table = (
        {name: RpcMethod(ack, model, broadcast=True) for name, model, _ in _news()}
        if layer in NEWS
        else {"bench": methods[layer]}
    )
    log = AgentLog(logs / "server.log.jsonl", "bench-server")
    agent = ServiceApp()
    JsonRpcEndpoint(table, sender=lambda: "player:P001", log=log).mount(agent)
    return agent


def serve_layer(layer: str, logs: Path) -> None:
    """Serve ``layer`` on the socket handed down, as every agent is served."""
    serve(server_app(layer, logs), "127.0.0.1", int(os.environ["BENCH_PORT"]), name=layer)


async def _calls(call: Callable[[], Any], calls: int, concurrency: int) -> None:
    async def worker(count: int) -> None:
        for _ in range(count):
            await call()

    share, extra = divmod(calls, concurrency)
    await asyncio.gather(*(worker(share + (k < extra)) for k in range(concurrency)))


async def measure(
    layer: str, client: str, url: str, pid: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Warm up, then time ``args.calls`` calls; the CPU per call of both sides, in µs."""
    params = _params(layer)
    sent = [(m, p) for m, _, p in _news()] if layer in NEWS else [("bench", params)]
    requests = [{"jsonrpc": "2.0", "method": m, "params": p, "id": 1} for m, p in sent]
    bodies = [json.dumps(r).encode() for r in requests]
    if layer == "news_batch":
        bodies = [json.dumps([{**r, "id": k} for k, r in enumerate(requests)]).encode()]
    closers: list[Callable[[], Any]] = []
    if client == "aiohttp":
        session = aiohttp.ClientSession()
        closers.append(session.close)

        async def call() -> None:
            for body in bodies:
                async with session.post(
                    url, data=body, headers={"content-type": "application/json"}
                ) as response:
                    await response.read()
                    assert response.status == 200, response.status

    else:
        log = AgentLog(Path(args.logs) / f"client-{layer}.log.jsonl", "bench-client")
        rpc = RpcClient(SystemConfig(default_league_id="bench"), log)
        closers.append(rpc.aclose)
        copies = [
            (m, SharedMessage(model.model_validate(p)).signed("proof")) for m, model, p in _news()
        ]

        async def call() -> None:
            if layer == "news_batch":
                await rpc.call_batch(url, copies, timeout=10)
            elif layer == "news":
                for method, copy in copies:
                    await rpc.call(url, method, copy, timeout=10, retries=0)
            else:
                await rpc.call(url, "bench", params, timeout=10, retries=0)

    try:
        await _calls(call, args.warmup, args.concurrency)
        server_before, client_before, started = (
            cpu_seconds(pid),
            own_cpu_seconds(),
            time.perf_counter(),
        )
        await _calls(call, args.calls, args.concurrency)
        wall = time.perf_counter() - started
        server_cpu, client_cpu = cpu_seconds(pid) - server_before, own_cpu_seconds() - client_before
    finally:
        for close in closers:
            await close()
    return {
        "layer": layer,
        "client": client,
        "calls": args.calls,
        "calls_per_s": args.calls / wall,
        "server_us": 1e6 * server_cpu / args.calls,
        "client_us": 1e6 * client_cpu / args.calls,
        "both_us": 1e6 * (server_cpu + client_cpu) / args.calls,
    }


def clients_of(layer: str) -> list[str]:
    return ["aiohttp"] if layer in BARE else ["aiohttp", "rpc"]


def run_layer(layer: str, clients: list[str], args: argparse.Namespace) -> list[dict[str, Any]]:
    """Start a server of ``layer`` and measure each client against it; the server is
    stopped by its pid however the measurement ends."""
    sock = listening_socket()
    sock.listen(128)  # the warm-up's first calls wait in its queue while the server starts
    port = sock.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), "--serve", layer, "--logs", args.logs],
        env={**os.environ, LISTEN_FD_ENV: str(sock.fileno()), "BENCH_PORT": str(port)},
        pass_fds=[sock.fileno()],
        stdout=subprocess.DEVNULL,  # its one line "<layer> listening on …"
    )
    sock.close()
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        rows = [asyncio.run(measure(layer, client, url, server.pid, args)) for client in clients]
        return [{**row, "server_pid": server.pid} for row in rows]
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", nargs="+", choices=LAYERS, default=list(LAYERS))
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--serve", choices=LAYERS, help=argparse.SUPPRESS)
    parser.add_argument("--logs", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_layer(args.serve, Path(args.logs))
        return
    with tempfile.TemporaryDirectory(prefix="call-floor-") as logs:
        args.logs = logs
        rows = []
        for layer in args.layers:
            rows += run_layer(layer, clients_of(layer), args)
    head = ("layer", "client", "calls/s", "server µs", "client µs", "both µs")
    print(f"{head[0]:<10} {head[1]:<8} {head[2]:>8} {head[3]:>10} {head[4]:>10} {head[5]:>8}")
    for row in rows:
        print(
            f"{row['layer']:<10} {row['client']:<8} {row['calls_per_s']:>8.0f} "
            f"{row['server_us']:>10.0f} {row['client_us']:>10.0f} {row['both_us']:>8.0f}"
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()

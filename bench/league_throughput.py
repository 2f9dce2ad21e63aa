"""League throughput over real HTTP: whole leagues of 4, 16 and 32 players with 1 and 2
referees, each agent its own process on loopback, against this machine's floor (a bare
FastAPI echo at /mcp, served like our agents, called by httpx).

    .venv/bin/python bench/league_throughput.py               # the full matrix
    .venv/bin/python bench/league_throughput.py --sizes 4 --referees 1

A benchmark, not a test: it prints a table and, with --json, writes the figures to a file.
JSON-RPC calls are counted from the agents' own logs (every request an agent served is
logged once as message_received with its method), so the count is what really crossed HTTP.

The floor is measured at several client concurrencies, with one shared httpx.AsyncClient
and with a client per worker. The reference for the target is the plain form at the
league's own load: one AsyncClient with 16 calls in flight, as a 32-player league keeps
the 16 matches of a round running (--reference-concurrency). The share of the best floor
over every form is printed beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from league_cli.launcher import Launcher  # noqa: E402
from league_cli.up import LeaguePlan, start_processes, wait_for  # noqa: E402
from sdk.messages import ChooseParityResponse  # noqa: E402
from tests.ports import free_port  # noqa: E402


def echo_app() -> FastAPI:
    """The floor: FastAPI at /mcp answering each JSON-RPC request with its params."""
    app = FastAPI()

    @app.post("/mcp")
    async def mcp(request: Request) -> JSONResponse:
        body = await request.json()
        return JSONResponse({"jsonrpc": "2.0", "result": body.get("params"), "id": body.get("id")})

    return app


async def _hammer(url: str, calls: int, concurrency: int, shared_client: bool) -> float:
    params = {
        "protocol": "league.v2",
        "message_type": ChooseParityResponse.MESSAGE_TYPE,
        "sender": "player:P01",
        "timestamp": "2026-01-01T00:00:00Z",
        "conversation_id": "bench",
        "match_id": "R1M1",
        "player_id": "P01",
        "parity_choice": "even",
    }
    remaining = iter(range(calls))
    count = 1 if shared_client else concurrency
    clients = [
        httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency)) for _ in range(count)
    ]

    async def worker(client: httpx.AsyncClient) -> None:
        for request_id in remaining:
            response = await client.post(
                url, json={"jsonrpc": "2.0", "method": "echo", "params": params, "id": request_id}
            )
            response.raise_for_status()

    started = time.perf_counter()
    await asyncio.gather(*(worker(clients[i % count]) for i in range(concurrency)))
    elapsed = time.perf_counter() - started
    for client in clients:
        await client.aclose()
    return calls / elapsed


def measure_floor(calls: int, levels: list[tuple[int, bool]]) -> dict[tuple[int, bool], float]:
    """Calls per second of the echo server for each (concurrency, one shared client?)."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--echo-server", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:

        def up() -> bool:
            try:
                return httpx.post(url, json={}).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(up, 30, "the echo server")
        asyncio.run(_hammer(url, min(calls, 300), 4, True))
        return {level: asyncio.run(_hammer(url, calls, *level)) for level in levels}
    finally:
        server.terminate()
        server.wait(10)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def count_served_calls(logs_dir: Path) -> int:
    served = 0
    for path in (logs_dir / "agents").glob("*.log.jsonl"):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if '"message_received"' in line and '"peer"' not in line:
                    served += 1
    return served


def run_league(players: int, referees: int, capacity: int) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="league-bench-"))
    shared = workdir / "SHARED"
    shutil.copytree(REPO / "SHARED" / "config", shared / "config")
    plan = LeaguePlan(
        shared_dir=shared,
        players=[(f"P{i + 1}", free_port(), "random") for i in range(players)],
        referees=[(f"R{i + 1}", free_port(), capacity) for i in range(referees)],
        lm_port=free_port(),
    )
    launcher = Launcher(shared)
    try:
        with httpx.Client(timeout=30) as client:
            lm_url = start_processes(plan, launcher, client)
            token = (
                (shared / "data" / "leagues" / "league_2025_even_odd" / "admin_token")
                .read_text()
                .strip()
            )
            before = {p.popen.pid: cpu_seconds(p.popen.pid) for p in launcher.processes}
            started = time.perf_counter()
            response = client.post(
                f"{lm_url}/start_league", headers={"Authorization": f"Bearer {token}"}
            )
            response.raise_for_status()
            wait_for(
                lambda: client.get(f"{lm_url}/status").json()["state"] == "COMPLETED",
                1800,
                "the league to complete",
                interval=0.05,
            )
            wall = time.perf_counter() - started
            status = client.get(f"{lm_url}/status").json()
            cpu: dict[str, float] = {}
            for process in launcher.processes:
                used = cpu_seconds(process.popen.pid) - before[process.popen.pid]
                cpu[process.kind] = cpu.get(process.kind, 0.0) + used
    finally:
        launcher.stop_all()
    calls = count_served_calls(shared / "logs")
    shutil.rmtree(workdir, ignore_errors=True)
    return {
        "players": players,
        "referees": referees,
        "capacity": capacity,
        "matches": status["matches_completed"],
        "wall_s": wall,
        "matches_per_s": status["matches_completed"] / wall,
        "rpc_calls": calls,
        "calls_per_s": calls / wall,
        "cpu_s": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="4,16,32")
    parser.add_argument("--referees", default="1,2")
    parser.add_argument("--capacity", type=int, default=8, help="matches per referee")
    parser.add_argument("--floor-calls", type=int, default=5000)
    parser.add_argument("--floor-concurrency", default="1,4,16")
    parser.add_argument("--reference-concurrency", type=int, default=16)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--echo-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        from sdk.service import serve

        serve(echo_app(), "127.0.0.1", args.echo_server, name="Echo server")
        return

    levels = [
        (c, shared)
        for c in sorted(
            {int(c) for c in args.floor_concurrency.split(",")} | {args.reference_concurrency}
        )
        for shared in (True, False)
        if c > 1 or shared
    ]
    floors = measure_floor(args.floor_calls, levels)
    floor = floors[(args.reference_concurrency, True)]
    best = max(floors.values())
    for (concurrency, shared), rate in floors.items():
        style = "one shared client" if shared else "a client per worker"
        print(
            f"floor: bare FastAPI echo /mcp, httpx, concurrency {concurrency:>2}, {style}: "
            f"{rate:,.0f} calls/s"
        )
    rows = []
    print(
        f"{'players':>7} {'refs':>4} {'matches':>7} {'wall s':>7} {'matches/s':>9} "
        f"{'calls':>6} {'calls/s':>8} {'of ref':>6} {'of best':>7}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        for referees in (int(r) for r in args.referees.split(",")):
            row = run_league(size, referees, args.capacity)
            row["share_of_floor"] = row["calls_per_s"] / floor
            row["share_of_best_floor"] = row["calls_per_s"] / best
            rows.append(row)
            print(
                f"{size:>7} {referees:>4} {row['matches']:>7} {row['wall_s']:>7.2f} "
                f"{row['matches_per_s']:>9.1f} {row['rpc_calls']:>6} "
                f"{row['calls_per_s']:>8.0f} {row['share_of_floor']:>6.0%} "
                f"{row['share_of_best_floor']:>7.0%}  cpu s: "
                + ", ".join(f"{kind} {secs:.1f}" for kind, secs in row["cpu_s"].items()),
                flush=True,
            )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "floor_calls_per_s": {
                        f"c{c}-{'shared' if shared else 'per-worker'}": r
                        for (c, shared), r in floors.items()
                    },
                    "reference_concurrency": args.reference_concurrency,
                    "leagues": rows,
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()

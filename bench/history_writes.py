"""The GAME_OVERs of a round in one player host: how soon a round's first result can be
reported, and the host's CPU per result, when hundreds of players share one process and
each writes its history file.

    .venv/bin/python bench/history_writes.py --players 200 --rounds 10
    .venv/bin/python bench/history_writes.py --players 200 --rounds 10 --json f.json
    .venv/bin/python bench/history_writes.py --players 200 --rounds 10 --profile f.prof

A benchmark, not a test. One process serves ``--players`` real player apps
(``bench.scale_http.player_host_app``: each its own ``PlayerHost``, history file and log,
standalone with a player id, so no League Manager is needed), all behind one port; this
driver plays the referees' last step of a round: every match of the round (players paired
k, k+1) has its GAME_OVER sent to both its players at once, over HTTP, all matches at once.
A referee reports a match once both GAME_OVERs are answered, so a match's result time is
its slower answer; the round's **first result** is the earliest of those, its **last**
the latest. Each round adds one match to every history, so the files grow as a league's do.

During each round a ticker asks the host's ``/health`` every 10 ms (one request at a time):
its slowest answer (``health_max_s``) is how long a request waited behind the round's
GAME_OVERs and whatever held the event loop. CPU: the host process's user + system seconds
(/proc/<pid>/stat) over the rounds, per result.

``--profile FILE`` plays the same rounds with the players in the driver's own process
(``httpx.ASGITransport``, no sockets) under cProfile, and writes its statistics to FILE: where
the event loop's time went (the worker threads' is not in it).

Clean-up: every process is stopped by its pid and the temporary folder removed however the
run ends (``--keep`` keeps the folder).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import uvicorn

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import Workspace, cpu_seconds, stop_on_signals  # noqa: E402
from bench.scale_http import HostedPlayerSettings, player_host_app  # noqa: E402
from league_cli.launcher import AgentProcess  # noqa: E402
from sdk.service import inherited_socket, listening_socket  # noqa: E402
from sdk.timeutil import utc_now_str  # noqa: E402

LEAGUE = "league_2025_even_odd"
TICK_SEC = 0.01


def player_id(k: int) -> str:
    return f"P{k + 1:03d}"


def hosted_players(shared_dir: Path, port: int, count: int) -> list[HostedPlayerSettings]:
    """``count`` standalone players (each with its id: no League Manager) under ``/p/<k>``."""
    return [
        HostedPlayerSettings(
            shared_dir=shared_dir,
            port=port,
            path=f"/p/{k}",
            display_name=f"Bench{k}",
            league_manager_url="http://127.0.0.1:9/mcp",
            join_league=False,
            player_id=player_id(k),
            strategy="random",
        )
        for k in range(count)
    ]


def serve(shared_dir: Path, port: int, count: int) -> None:
    """Serve ``count`` players on the socket handed down, until SIGINT/SIGTERM."""
    sock = inherited_socket(port)
    if sock is None:
        raise SystemExit(f"no socket was handed down for port {port}")
    config = uvicorn.Config(
        player_host_app(hosted_players(shared_dir, port, count)),
        log_level="warning",
        access_log=False,
        timeout_keep_alive=300,  # the driver's connections wait between rounds: kept, not cut
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:
        pass


def start_host(space: Workspace, count: int) -> AgentProcess:
    sock = listening_socket()
    command = [sys.executable, str(Path(__file__).resolve()), "--serve", str(space.shared)]
    command += ["--port", str(sock.getsockname()[1]), "--players", str(count)]
    return space.launcher.start("players", "player-host", sock, command, {"PYTHONPATH": str(REPO)})


def game_over(round_id: int, match: int, me: int, a: int, b: int) -> dict[str, Any]:
    """The GAME_OVER a referee sends player ``me`` of match ``match`` between ``a`` and ``b``."""
    match_id = f"R{round_id}M{match + 1}"
    message = {
        "protocol": "league.v2",
        "message_type": "GAME_OVER",
        "sender": "referee:REF01",
        "timestamp": utc_now_str(),
        "conversation_id": f"conv-{match_id}-{me}",
        "auth_token": "referee-token-0123456789",
        "league_id": LEAGUE,
        "round_id": round_id,
        "match_id": match_id,
        "game_type": "even_odd",
        "game_result": {
            "status": "WIN",
            "winner_player_id": player_id(a),
            "drawn_number": 7,
            "number_parity": "odd",
            "choices": {player_id(a): "odd", player_id(b): "even"},
            "reason": "odd won",
        },
    }
    return {"jsonrpc": "2.0", "method": "notify_match_result", "params": message, "id": 1}


async def tell(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> float:
    """Send one GAME_OVER; when its ACK came (perf_counter)."""
    response = await client.post(url, json=body)
    answer = response.json().get("result") or {}
    if answer.get("message_type") != "ACK":
        raise RuntimeError(f"{url} did not acknowledge the GAME_OVER: {response.text[:300]}")
    return time.perf_counter()


async def ticker(client: httpx.AsyncClient, url: str, stop: asyncio.Event) -> float:
    """The slowest ``/health`` answer while ``stop`` is not set, asked every 10 ms."""
    slowest = 0.0
    while not stop.is_set():
        asked = time.perf_counter()
        (await client.get(url)).raise_for_status()
        slowest = max(slowest, time.perf_counter() - asked)
        await asyncio.sleep(TICK_SEC)
    return slowest


async def play_round(
    client: httpx.AsyncClient, base: str, round_id: int, players: int
) -> dict[str, float]:
    started = time.perf_counter()
    stop = asyncio.Event()
    lag = asyncio.create_task(ticker(client, f"{base}/health", stop))

    async def match(m: int) -> float:
        a, b = 2 * m, 2 * m + 1
        acks = await asyncio.gather(
            *(tell(client, f"{base}/p/{me}/mcp", game_over(round_id, m, me, a, b)) for me in (a, b))
        )
        return max(acks) - started

    results = await asyncio.gather(*(match(m) for m in range(players // 2)))
    stop.set()
    return {"first": min(results), "last": max(results), "health": await lag}


async def drive(base: str, players: int, rounds: int) -> list[dict[str, float]]:
    limits = httpx.Limits(max_connections=players + 8, max_keepalive_connections=players + 8)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        return [await play_round(client, base, r, players) for r in range(1, rounds + 1)]


def run(players: int, rounds: int, keep: bool) -> dict[str, Any]:
    space = Workspace(keep=keep, keep_failed=False)
    try:
        host = start_host(space, players)
        space.launcher.wait_healthy(host, timeout=120)
        pid = host.popen.pid
        before = cpu_seconds(pid)
        per_round = asyncio.run(drive(host.base_url, players, rounds))
        cpu = cpu_seconds(pid) - before
        histories = sorted((space.shared / "data" / "players").glob("*/history.jsonl"))
        recorded = [len(path.read_text().splitlines()) for path in histories]
    finally:
        space.close(failed=False)
    if recorded != [rounds] * players:
        raise RuntimeError(f"the histories do not hold {rounds} matches each: {recorded[:10]}")
    results = rounds * (players // 2)
    firsts = [r["first"] for r in per_round]
    return {
        "players": players,
        "rounds": rounds,
        "results": results,
        "first_result_s": {"mean": statistics.mean(firsts), "max": max(firsts)},
        "last_result_s_mean": statistics.mean(r["last"] for r in per_round),
        "health_max_s": max(r["health"] for r in per_round),
        "host_cpu_s": cpu,
        "host_cpu_ms_per_result": 1000 * cpu / results,
        "per_round": per_round,
        "pid": pid,
        "machine_cores": os.cpu_count(),
        "load_average": os.getloadavg(),
    }


def profile(players: int, rounds: int, out: Path) -> float:
    """The same rounds with the players in this process, reached through
    ``httpx.ASGITransport`` (no sockets), under cProfile (the event loop's thread only: the
    worker threads' work is not in it); its statistics written to ``out``. Returns the wall
    seconds."""
    space = Workspace(keep=False, keep_failed=False)
    app = player_host_app(hosted_players(space.shared, 9, players))

    async def rounds_profiled() -> float:
        async with app.lifespan():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, timeout=120) as client:
                profiler = cProfile.Profile()
                started = time.perf_counter()
                profiler.enable()
                for r in range(1, rounds + 1):
                    await play_round(client, "http://host", r, players)
                profiler.disable()
                profiler.dump_stats(out)
                return time.perf_counter() - started

    try:
        return asyncio.run(rounds_profiled())
    finally:
        space.close(failed=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary SHARED folder")
    parser.add_argument(
        "--profile",
        type=Path,
        help="run the players in this process under cProfile instead; its statistics go here",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve, args.port, args.players)
        return
    if args.players < 2 or args.players % 2 or args.rounds < 1:
        parser.error("--players must be even, 2 or more, and --rounds 1 or more")
    stop_on_signals()
    if args.profile is not None:
        wall = profile(args.players, args.rounds, args.profile)
        print(f"{wall:.1f} s for the rounds in process; statistics in {args.profile}")
        return
    row = run(args.players, args.rounds, args.keep)
    print(
        f"{row['players']} players in one host, {row['rounds']} rounds, {row['results']} "
        f"results: first result {row['first_result_s']['mean']:.3f} s after the round's "
        f"GAME_OVERs were sent (mean; max {row['first_result_s']['max']:.3f} s), last "
        f"{row['last_result_s_mean']:.3f} s; /health answered in {row['health_max_s']:.3f} s "
        f"at worst; host CPU {row['host_cpu_ms_per_result']:.2f} ms per result "
        f"(load average {row['load_average'][0]:.1f} on {row['machine_cores']} cores)"
    )
    if args.json:
        args.json.write_text(json.dumps(row, indent=2))


if __name__ == "__main__":
    main()

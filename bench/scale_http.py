"""League scale over real HTTP: a big even/odd league with a real League Manager, real
referee processes and many lightweight players, and the referee scale-out (1, 2, 4...
referees on the same league), with the CPU each process used.

    .venv/bin/python bench/scale_http.py --players 200 --referees 4 --rounds 20
    .venv/bin/python bench/scale_http.py --players 80 --rounds 5 --scaleout 1,2,4 --json f.json

A benchmark, not a test: it prints a table and, with --json, writes the figures to a file.

Lightweight players: 200 player processes do not fit on a small machine, so one process
(``--player-hosts`` of them) serves many players. Each player is the real player service,
``players.app.create_app`` with its own ``PlayerHost``, strategy, log, history file, own
registration and token, mounted under its own path and listening on a port of its own:
``http://127.0.0.1:P<k>/p/<k>/mcp`` (so the League Manager sees as many peers as a league of
player processes would: one connection pool each). The host runs every player's own
lifespan, so each registers with the League Manager as a player process would, and
readies its garbage collector as ``sdk.service.serve`` does (``settle_collector``). What the
host shares is the process and the event loop: a player's blocking work holds up every
player of its host (a GAME_OVER's line of its history journal is fsynced in a worker thread,
off the event loop, but the rest of the player's work shares the host's one core at a
time); --player-hosts spreads the players over more processes.

The window: from ``POST /start_league`` until ``--rounds`` rounds have completed (the whole
league by default), polled on ``GET /status``; at that moment the results recorded and each
process's CPU seconds (user + system, /proc/<pid>/stat) are read. The League Manager's CPU
per result (its CPU seconds over the results recorded) gives the ceiling of one League
Manager on one core: 1 / that. On a small machine every process shares the same cores,
so the machine's busy share is printed too: near 100 %, adding referees cannot help.

Ports: every process serves on a socket this driver bound to a port the kernel chose and
handed down to it (``sdk.service.listening_socket``, ``LISTEN_FD_ENV``); a player host binds
its players' sockets itself, the same way. No port is ever chosen free and let go before its
process binds it, so no other process (another run, a colleague's tests) can take it in
between and fail the run with "address already in use". Handing down a bound socket rather
than letting each agent bind port 0 and report its port: an agent announces its endpoint
(registration) while it starts, so it must know its port before it serves; and rather than
retrying on "address already in use": a port taken in between may be taken by another
agent that answers our ``/health``, which a retry would not notice.

File creation: before its processes start, each run times the creation of
``FILE_PROBES`` small files in its folder (``file_create_us``, CPU per file). On ext4 a file
created within minutes of many removals in the same place costs the inode allocator a scan
past every inode removed (about 680 µs of CPU a file on the development machine, against
20-35 µs): a run started right after another removed its folder pays it for every file its
processes make, the referee's match file of each result among them (doc/benchmarks.md).

Clean-up: however a run ends (measured, failed, SIGINT or SIGTERM), every process it
started is stopped by its pid and its temporary folder removed (``--keep`` keeps it); a
second signal during the clean-up waits for it to finish.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, MutableMapping
from contextlib import AbstractAsyncContextManager, AsyncExitStack, ExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from fastapi.responses import JSONResponse
from pydantic import Field
from starlette.types import ASGIApp, Receive, Scope, Send

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import (  # noqa: E402
    Workspace,
    cpu_seconds,
    machine_busy_seconds,
    own_cpu_seconds,
    signals_held,
    stop_on_signals,
)
from league_cli.launcher import AgentProcess, LaunchError, port_number  # noqa: E402
from league_cli.up import wait_for  # noqa: E402
from players.app import create_app  # noqa: E402
from players.config import PlayerSettings  # noqa: E402
from sdk.config import SharedDir  # noqa: E402
from sdk.service import (  # noqa: E402
    inherited_socket,
    listening_socket,
    server_config,
    settle_collector,
)
from tests.balancer import balancer  # noqa: E402

LEAGUE = "league_2025_even_odd"
PLAYERS_PREFIX = "/p"
POLL_SEC = 0.2
"""How often the driver asks ``GET /status`` (each ask costs the League Manager a little)."""
FILE_PROBES = 200
"""Files a run creates in its folder before its league, to time what a file costs there."""
SLOW_FILE_US = 200.0
"""A file creation dearer than this: files were removed near the run's folder lately."""


# -- the lightweight player host -------------------------------------------------------------


class HostedPlayerSettings(PlayerSettings):
    """A player served under ``path`` of a shared host: its endpoint carries the path."""

    path: str = Field(pattern=r"^/p/[0-9]+$")

    @property
    def contact_endpoint(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}/mcp"


class PlayerPaths:
    """ASGI, in front of the host's own app: ``/p/<k>/...`` goes straight to player ``k``'s
    app, found in a dict (one lookup, not a scan of hundreds of routes), so a call passes
    through one app's middleware as in a player process; anything else (the host's
    ``/health``, the lifespan) goes to ``host``."""

    def __init__(self, apps: dict[str, ASGIApp], host: FastAPI):
        self.apps = apps
        self.host = host

    def lifespan(self) -> AbstractAsyncContextManager[Any]:
        """Every player's lifespan, for a caller that serves this app without a server."""
        return self.host.router.lifespan_context(self.host)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not path.startswith(f"{PLAYERS_PREFIX}/"):
            await self.host(scope, receive, send)
            return
        key = path[len(PLAYERS_PREFIX) + 1 :].partition("/")[0]
        app = self.apps.get(key)
        if app is None:
            response = JSONResponse(
                {
                    "detail": f"no player is served at {PLAYERS_PREFIX}/{key}; this host serves "
                    f"{PLAYERS_PREFIX}/0 to {PLAYERS_PREFIX}/{len(self.apps) - 1}"
                },
                status_code=404,
            )
            await response(scope, receive, send)
            return
        child: MutableMapping[str, Any] = dict(scope)
        child["root_path"] = f"{scope.get('root_path', '')}{PLAYERS_PREFIX}/{key}"
        await app(child, receive, send)


def player_host_app(settings: list[HostedPlayerSettings]) -> PlayerPaths:
    """One app serving every player of ``settings`` under ``/p/<k>``; its lifespan runs
    each player's own lifespan (start, background registration, stop)."""
    apps = {s.path.rsplit("/", 1)[1]: create_app(s) for s in settings}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for app in apps.values():
                await stack.enter_async_context(app.router.lifespan_context(app))
            yield

    host = FastAPI(title="Agent League benchmark: many players in one process", lifespan=lifespan)

    @host.get("/health")
    async def health() -> dict[str, Any]:
        states = [app.state.player.state.registration.status for app in apps.values()]
        return {
            "status": "ok",
            "agent": "player_host",
            "players": len(apps),
            "registered": states.count("ACCEPTED"),
        }

    return PlayerPaths(dict(apps), host)


def hosted_settings(
    shared_dir: Path, ports: list[int], lm_mcp: str, keys: range, strategy: str
) -> list[HostedPlayerSettings]:
    """Player ``k`` of ``keys`` at ``/p/<k>`` on the port of the same position in ``ports``."""
    return [
        HostedPlayerSettings(
            shared_dir=shared_dir,
            port=port,
            path=f"{PLAYERS_PREFIX}/{k}",
            display_name=f"Bench{k}",
            league_manager_url=lm_mcp,
            strategy=strategy,
        )
        for k, port in zip(keys, ports, strict=True)
    ]


def serve_players(shared_dir: Path, port: int, lm_mcp: str, keys: range, strategy: str) -> None:
    """Serve the players of ``keys``, each on a port of its own (bound here, any free one,
    and held from then on), and the host's ``/health`` on ``port`` (the socket the driver
    handed down, bound since it chose the port); until SIGINT/SIGTERM."""
    sockets = [inherited_socket(port) or _bound(port)] + [_bound(0) for _ in keys]
    ports = [sock.getsockname()[1] for sock in sockets[1:]]
    app = player_host_app(hosted_settings(shared_dir, ports, lm_mcp, keys, strategy))
    config = server_config(app)  # as sdk.service.serve configures a player's server
    settle_collector()  # as sdk.service.serve does for every agent
    try:
        uvicorn.Server(config).run(sockets=sockets)
    except KeyboardInterrupt:
        pass


def _bound(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    return sock


def start_player_host(
    space: Workspace,
    index: int,
    keys: range,
    lm_mcp: str,
    strategy: str,
    profile: Path | None = None,
) -> AgentProcess:
    """Start one host process serving players ``keys``, its ``/health`` on a socket bound
    here and handed down; with ``profile``, under cProfile (``profiled``)."""
    sock = listening_socket()
    return space.launcher.start(
        "players",
        f"player-host-{index}",
        sock,
        [
            *profiled(profile),
            str(Path(__file__).resolve()),
            "--serve-players",
            "--shared-dir",
            str(space.shared),
            "--port",
            str(port_number(sock)),
            "--lm-url",
            lm_mcp,
            "--first",
            str(keys.start),
            "--count",
            str(len(keys)),
            "--strategy",
            strategy,
        ],
        {"PYTHONPATH": str(REPO)},
    )


def profiled(profile: Path | None) -> list[str]:
    """The interpreter's command: under cProfile with ``profile``, its statistics written
    to that file when the process stops on SIGINT (``_stop_profiled``; its CPU figures
    inflate 2-4 times)."""
    if profile is None:
        return [sys.executable]
    return [sys.executable, "-m", "cProfile", "-o", str(profile.resolve())]


def _agent(
    space: Workspace, kind: str, name: str, profile: Path | None, args: list[str]
) -> AgentProcess:
    """``league <kind> <args>`` named ``name`` (under cProfile with ``profile``), on a socket
    bound here and handed down, as the launcher starts an agent."""
    sock = listening_socket()
    command = [*profiled(profile), "-m", "league_cli", kind, "--shared-dir", str(space.shared)]
    command += ["--host", "127.0.0.1", "--port", str(port_number(sock)), *args]
    return space.launcher.start(kind, name, sock, command, {"PYTHONPATH": str(REPO)})


def start_manager(space: Workspace, index: int, profile: Path | None) -> AgentProcess:
    """The ``index``-th League Manager as ``league manager`` runs it, under cProfile with
    ``profile``. On a socket bound here and handed down, as every process of the run."""
    if index == 0 and profile is None:
        return space.launcher.manager(listening_socket())
    name = "league_manager" if index == 0 else f"league_manager-{index + 1}"
    return _agent(space, "manager", name, profile, [])


def start_referee(
    space: Workspace, name: str, lm_mcp: str, capacity: int, profile: Path | None
) -> AgentProcess:
    """A referee as ``league referee`` runs it, under cProfile with ``profile``."""
    if profile is None:
        return space.launcher.referee(name, listening_socket(), lm_mcp, capacity)
    args = ["--name", name, "--lm-url", lm_mcp, "--max-concurrent", str(capacity)]
    return _agent(space, "referee", f"referee-{name}", profile, args)


# -- one league ------------------------------------------------------------------------------


def peak_rss_mb(pid: int) -> float:
    """A live process's peak resident memory (VmHWM in /proc/<pid>/status), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/{pid}/status has no VmHWM line")


@dataclass
class LeagueRun:
    """What to run: the league's size, its referees, and how much of it to play."""

    players: int
    referees: int
    capacity: int | None = None
    """Matches per referee; None: a round's matches shared among the referees
    (``matches_per_referee``)."""
    rounds: int | None = None
    """Stop after this many rounds (None: the whole league)."""
    player_hosts: int = 1
    strategy: str = "random"
    keep: bool = False
    progress: bool = False
    timeout: float = 3600.0
    profile_lm: Path | None = None
    """Run the League Manager under cProfile, its statistics written here."""
    profile_referee: Path | None = None
    """Run the first referee under cProfile, its statistics written here."""
    profile_player_host: Path | None = None
    """Run the first player host under cProfile, its statistics written here."""
    broadcasts: bool = True
    """The league config's ``broadcasts``: off, players get no round notifications."""
    managers: int = 1
    """League Manager processes on one store (more than one: a PostgreSQL store, the
    environment's ``$LEAGUE_STORE_URL``); the first profiled with ``profile_lm``."""
    balanced: bool = False
    """The agents register and report through a round-robin balancer (``tests/balancer.py``,
    in this process) in front of the League Managers; always so with more than one."""

    @property
    def matches_per_referee(self) -> int:
        """``capacity``, or the referees' share of a round's matches: with less, a round is
        played in waves, and at 1,000 players a referee meets a player again only after
        its connection to it has gone idle too long (doc/benchmarks.md)."""
        if self.capacity is not None:
            return self.capacity
        return max(1, -(-(self.players // 2) // self.referees))


def file_creation_us(folder: Path, count: int = FILE_PROBES) -> float:
    """This process's CPU per small file created in ``folder`` (made here; the files stay
    for the workspace's removal, so the probe removes nothing that a later run would pay
    for). Read before a league starts: what each file its processes make will cost."""
    folder.mkdir()
    started = own_cpu_seconds()
    for index in range(count):
        fd = os.open(folder / f"{index}.json", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(fd, b"{}")
        finally:
            os.close(fd)
    return 1e6 * (own_cpu_seconds() - started) / count


def _status(client: httpx.Client, lm_url: str, *, agents: bool = False) -> dict[str, Any]:
    """``GET /status``; with ``agents``, every agent with its state (a list as long as the
    league, made for each ask: polled, it would count in the League Manager's CPU)."""
    response = client.get(f"{lm_url}/status", params={"agents": str(agents).lower()})
    response.raise_for_status()
    return response.json()  # type: ignore[no-any-return]


def _configure_league(space: Workspace, count: int, broadcasts: bool) -> None:
    """The League Manager turns away more than 300 registrations a minute from one address
    and every agent here registers from 127.0.0.1; and the run's ``broadcasts``."""
    path = space.shared / "config" / "leagues" / f"{LEAGUE}.json"
    config = json.loads(path.read_text())
    config["registrations_per_minute"] = max(
        config.get("registrations_per_minute", 300), count + 10
    )
    config["broadcasts"] = broadcasts
    path.write_text(json.dumps(config, indent=2))


def _leader(client: httpx.Client, managers: list[AgentProcess]) -> AgentProcess | None:
    """The League Manager that drives the rounds: the one whose ``/health`` says it leads, or
    the only one (on the files none says)."""
    for manager in managers:
        leadership = client.get(f"{manager.base_url}/health").json().get("leadership")
        if (leadership is None and len(managers) == 1) or (leadership or {}).get("leading"):
            return manager
    return None


def _start(
    run: LeagueRun, space: Workspace, client: httpx.Client, stack: ExitStack
) -> tuple[str, dict[str, Any]]:
    """Start the League Managers (and the balancer in front of them, closed with ``stack``),
    the referees and the player hosts; wait for every registration to be known at every
    League Manager, and for one of them to lead. Returns the leader's URL and the processes
    by role."""
    launcher = space.launcher
    first = start_manager(space, 0, run.profile_lm)
    # The others only once the first is up: League Managers starting at once on a new league
    # folder may each make an admin token and a referee secret of their own, and the files
    # keep one of them (``league_manager.credentials.secret_file``).
    launcher.wait_healthy(first)
    managers = [first] + [start_manager(space, i, None) for i in range(1, run.managers)]
    for manager in managers:
        launcher.wait_healthy(manager)
    lm_mcp = managers[0].mcp_url
    if run.balanced or run.managers > 1:
        front = stack.enter_context(balancer(0, [m.port for m in managers]))
        lm_mcp = f"http://127.0.0.1:{front}/mcp"
    referees = [
        start_referee(
            space,
            f"R{i + 1}",
            lm_mcp,
            run.matches_per_referee,
            run.profile_referee if i == 0 else None,
        )
        for i in range(run.referees)
    ]
    per_host = -(-run.players // run.player_hosts)
    hosts = [
        start_player_host(
            space,
            i,
            range(first, min(first + per_host, run.players)),
            lm_mcp,
            run.strategy,
            run.profile_player_host if i == 0 else None,
        )
        for i, first in enumerate(range(0, run.players, per_host))
    ]
    for process in referees + hosts:
        launcher.wait_healthy(process, timeout=120)

    def registered() -> bool:
        statuses = [_status(client, manager.base_url) for manager in managers]
        return all(
            status["registered"]["referees"] >= run.referees
            and status["registered"]["players"] >= run.players
            for status in statuses
        )

    wait_for(registered, 120, "every referee and player to register", interval=0.25)
    leader = wait_for(lambda: _leader(client, managers), 30, "a League Manager to lead")
    roles = {"manager": leader, "managers": managers, "referees": referees, "hosts": hosts}
    return leader.base_url, roles


def run_league(run: LeagueRun) -> dict[str, Any]:
    """Play ``run`` and measure it. However it ends (measured, failed, interrupted by
    SIGINT or SIGTERM: ``stop_on_signals``), every process it started is stopped by its
    pid and its temporary folder is removed (kept with ``run.keep``)."""
    space: Workspace | None = None
    failed = True
    with ExitStack() as balancing:
        try:
            space = Workspace(keep=run.keep, keep_failed=False)
            _configure_league(space, run.players + run.referees, run.broadcasts)
            file_us = file_creation_us(space.root / "file-probe")
            if file_us > SLOW_FILE_US and run.progress:
                print(
                    f"  creating a file here costs {file_us:.0f} µs of CPU: files were removed "
                    "near this folder in the last minutes (an earlier run's?), and every file "
                    "this league makes pays for it (doc/benchmarks.md)",
                    flush=True,
                )
            with httpx.Client(timeout=30) as client:
                lm_url, roles = _start(run, space, client, balancing)
                pids = {p.name: p.popen.pid for p in space.launcher.processes}
                before = {name: cpu_seconds(pid) for name, pid in pids.items()}
                busy_before, driver_before = machine_busy_seconds(), own_cpu_seconds()
                token = (SharedDir(space.shared).league_dir(LEAGUE) / "admin_token").read_text()
                started = time.perf_counter()
                response = client.post(
                    f"{lm_url}/start_league", headers={"Authorization": f"Bearer {token.strip()}"}
                )
                if response.status_code != 200:
                    raise LaunchError(f"the League Manager refused to start: {response.text}")
                total_rounds = response.json()["total_rounds"]
                target = min(run.rounds or total_rounds, total_rounds)
                status, wall, ends = _wait_for_rounds(run, client, lm_url, target, started)
                after = {name: cpu_seconds(pid) for name, pid in pids.items()}
                busy = machine_busy_seconds() - busy_before
                driver_cpu = own_cpu_seconds() - driver_before
                peaks = {name: peak_rss_mb(pid) for name, pid in pids.items()}
                standings = client.get(f"{lm_url}/standings").json()
                agents = _status(client, lm_url, agents=True)
                suspended = sum(1 for p in agents["players"] if p["state"] == "SUSPENDED")
            phases = round_phases(SharedDir(space.shared).league_log_path(LEAGUE), len(ends))
            failed = False
        finally:
            if space is not None:
                with signals_held():
                    _stop_profiled(space, run)
                    space.close(failed)
                    if failed and not run.keep:
                        print(
                            f"  (the run failed; its folder {space.root} is removed: "
                            "--keep keeps it)",
                            file=sys.stderr,
                            flush=True,
                        )
    cpu = {name: after[name] - before[name] for name in pids}
    leader = roles["manager"].name
    managers = [p.name for p in roles["managers"]]
    matches = status["matches_completed"]
    lm_cpu = sum(cpu[name] for name in managers)
    rows = standings["standings"]
    return {
        "players": run.players,
        "referees": run.referees,
        "capacity": run.matches_per_referee,
        "player_hosts": len(roles["hosts"]),
        "strategy": run.strategy,
        "total_rounds": total_rounds,
        "total_matches": status["total_matches"],
        "rounds_asked": target,
        "rounds_played": len(ends),
        "managers": len(managers),
        "matches": matches,
        "wall_s": wall,
        "results_per_s": matches / wall,
        "round_ends_s": [round(t, 3) for t in ends],
        "cpu_s": {
            "league_manager": lm_cpu,
            "league_managers": {name: cpu[name] for name in managers},
            "leader": cpu[leader],
            # this process: the polling, and the balancer's thread where there is one
            "driver": driver_cpu,
            "referees": {p.name: cpu[p.name] for p in roles["referees"]},
            "player_hosts": {p.name: cpu[p.name] for p in roles["hosts"]},
        },
        "lm_cpu_share": lm_cpu / wall,
        "players_cpu_ms_per_result": (
            1000 * sum(cpu[p.name] for p in roles["hosts"]) / matches if matches else None
        ),
        "first_result_s": (
            phases["to_first_result"] / phases["rounds_timed"] if phases["rounds_timed"] else None
        ),
        "lm_cpu_ms_per_result": 1000 * lm_cpu / matches if matches else None,
        "leader_cpu_ms_per_result": 1000 * cpu[leader] / matches if matches else None,
        "followers_cpu_ms_per_result": [
            1000 * cpu[name] / matches if matches else None for name in managers if name != leader
        ],
        "lm_ceiling_results_per_s": matches / lm_cpu if lm_cpu else None,
        "whole_cpu_ms_per_result": 1000 * sum(cpu.values()) / matches if matches else None,
        "file_create_us": file_us,
        "machine_cores": os.cpu_count(),
        "machine_busy_share": busy / (wall * (os.cpu_count() or 1)),
        "league_share": sum(cpu.values()) / (wall * (os.cpu_count() or 1)),
        "peak_rss_mb": {
            "league_manager": max(peaks[name] for name in managers),
            "referee_max": max(peaks[p.name] for p in roles["referees"]),
            "player_host_max": max(peaks[p.name] for p in roles["hosts"]),
        },
        # The standings are read after the window, while the league plays on: their own
        # count of results is what their played sum matches.
        "played_sum": sum(row["played"] for row in rows),
        "standings_matches": standings["matches_completed"],
        "technical_losses": sum(row["technical_losses"] for row in rows),
        "players_suspended": suspended,
        "phases_s": phases,
        "pids": pids,
    }


def round_phases(league_log: Path, rounds: int) -> dict[str, float]:
    """Where the first ``rounds`` rounds' time went, from the League Manager's league log:
    ``to_first_result`` (the round's announcement to every player and the first match),
    ``results`` (first to last result), ``between_rounds`` (last result to the next round's
    start: the round's files, standings and completion broadcasts, the next schedule), each
    summed over the ``rounds_timed`` rounds found in the log."""
    starts: dict[int, float] = {}
    firsts: dict[int, float] = {}
    lasts: dict[int, float] = {}
    with open(league_log, encoding="utf-8") as handle:
        for line in handle:
            entry = json.loads(line)
            event, data = entry.get("event"), entry.get("data") or {}
            if event not in ("round_started", "result_recorded"):
                continue
            at = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00")).timestamp()
            if event == "round_started":
                starts[data["round_id"]] = at
            elif found := re.match(r"R(\d+)M", str(data.get("match_id"))):
                firsts.setdefault(int(found[1]), at)
                lasts[int(found[1])] = at
    played = [r for r in range(1, rounds + 1) if r in starts and r in firsts]
    return {
        "to_first_result": sum(firsts[r] - starts[r] for r in played),
        "results": sum(lasts[r] - firsts[r] for r in played),
        "between_rounds": sum(starts[r + 1] - lasts[r] for r in played if r + 1 in starts),
        "rounds_timed": len(played),
    }


def _stop_profiled(space: Workspace, run: LeagueRun) -> None:
    """Stop the profiled processes first, by SIGINT, not SIGTERM: uvicorn raises the signal
    again once it has shut down, and only SIGINT (a KeyboardInterrupt) still lets cProfile
    write its statistics."""
    names = {
        name
        for name, profile in (
            ("league_manager", run.profile_lm),
            ("referee-R1", run.profile_referee),
            ("player-host-0", run.profile_player_host),
        )
        if profile is not None
    }
    stopping = [p for p in space.launcher.processes if p.name in names and p.popen.poll() is None]
    for process in stopping:
        process.popen.send_signal(signal.SIGINT)
    for process in stopping:
        try:
            process.popen.wait(60)
        except subprocess.TimeoutExpired:
            print(f"  the profiled {process.name} did not stop on SIGINT", flush=True)


def _wait_for_rounds(
    run: LeagueRun, client: httpx.Client, lm_url: str, target: int, started: float
) -> tuple[dict[str, Any], float, list[float]]:
    """Poll until ``target`` rounds have completed. Returns the status then, the seconds
    since ``started``, and when each round was seen completed (to the poll)."""
    deadline = time.monotonic() + run.timeout
    round_times: list[float] = []
    while True:
        status = _status(client, lm_url)
        now = time.perf_counter() - started
        current = status["current_round"]
        completed = (
            status["total_rounds"]
            if status["state"] == "COMPLETED"
            else (current - 1 if current else 0)
        )
        while len(round_times) < completed:
            round_times.append(now)
            if run.progress:
                print(
                    f"  round {len(round_times)}/{status['total_rounds']} done at "
                    f"{now:.1f} s, {status['matches_completed']} results",
                    flush=True,
                )
        if completed >= target:
            return status, now, round_times
        if time.monotonic() > deadline:
            raise LaunchError(
                f"only {completed} of {target} rounds completed within {run.timeout:g} s"
            )
        time.sleep(POLL_SEC)


# -- output ----------------------------------------------------------------------------------


def _table(rows: list[dict[str, Any]], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in (
        "players",
        "refs",
        "rounds",
        "results",
        "wall s",
        "results/s",
        "speed-up",
        "LM cpu s",
        "LM share",
        "LM ms/res",
        "LM ceil/s",
        "refs cpu s",
        "players cpu s",
        "players ms/res",
        "whole ms/res",
        "file µs",
        "1st result s",
        "ours",
        "busy",
        "LM MiB",
        "TL",
        "between rounds",
    ):
        table.add_column(column, justify="right")
    base = rows[0]["results_per_s"]
    for row in rows:
        cpu = row["cpu_s"]
        table.add_row(
            str(row["players"]),
            str(row["referees"]),
            f"{row['rounds_played']}/{row['total_rounds']}",
            str(row["matches"]),
            f"{row['wall_s']:.1f}",
            f"{row['results_per_s']:.1f}",
            f"{row['results_per_s'] / base:.2f}x",
            f"{cpu['league_manager']:.1f}",
            f"{row['lm_cpu_share']:.0%}",
            f"{row['lm_cpu_ms_per_result']:.2f}",
            f"{row['lm_ceiling_results_per_s']:.0f}",
            " + ".join(f"{s:.1f}" for s in cpu["referees"].values()),
            " + ".join(f"{s:.1f}" for s in cpu["player_hosts"].values()),
            f"{row['players_cpu_ms_per_result']:.2f}",
            f"{row['whole_cpu_ms_per_result']:.2f}",
            f"{row['file_create_us']:.0f}",
            f"{row['first_result_s']:.2f}",
            f"{row['league_share']:.0%}",
            f"{row['machine_busy_share']:.0%}",
            f"{row['peak_rss_mb']['league_manager']:.0f}",
            str(row["technical_losses"]),
            f"{row['phases_s']['between_rounds'] / row['wall_s']:.0%}",
        )
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    console.print(table)
    print(
        "LM ms/res: the League Manager's CPU per result; LM ceil/s: 1 / that (one core); "
        "ours: the league's processes' share of the machine's cores; busy: the machine's cores "
        "busy (other work included); players ms/res: the player hosts' CPU per result; whole "
        "ms/res: every League Manager's, referee's and player host's CPU per result; file µs: "
        "this driver's CPU per file created in the run's folder before it began; 1st "
        "result s: a round's start to its first result, on average; TL: technical losses; "
        "between rounds: the share of the wall time from a round's last result to the next "
        "round's start"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--referees", type=int, default=4)
    parser.add_argument(
        "--capacity",
        type=int,
        help="matches per referee (default: a round's matches shared among the referees)",
    )
    parser.add_argument(
        "--rounds", type=int, help="stop after this many rounds (default: the whole league)"
    )
    parser.add_argument(
        "--player-hosts", type=int, default=1, help="processes the players are spread over"
    )
    parser.add_argument("--strategy", default="random")
    parser.add_argument(
        "--scaleout",
        help="referee counts to compare on the same league, e.g. 1,2,4 (instead of --referees)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--keep", action="store_true", help="keep the temporary SHARED folder")
    parser.add_argument(
        "--no-broadcasts",
        action="store_true",
        help="the league sends no round notifications (config 'broadcasts')",
    )
    parser.add_argument(
        "--profile-lm",
        type=Path,
        help="run the League Manager under "
        "cProfile and write its statistics here (its CPU figures inflate)",
    )
    parser.add_argument(
        "--profile-referee",
        type=Path,
        help="run the first referee under cProfile and write its statistics here",
    )
    parser.add_argument(
        "--profile-player-host",
        type=Path,
        help="run the first player host under cProfile and write its statistics here",
    )
    parser.add_argument("--serve-players", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--shared-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--lm-url", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_players:
        keys = range(args.first, args.first + args.count)
        serve_players(args.shared_dir, args.port, args.lm_url, keys, args.strategy)
        return
    if (
        args.players < 2
        or args.player_hosts < 1
        or (args.capacity is not None and args.capacity < 1)
    ):
        parser.error("a league needs --players 2 or more, --player-hosts and --capacity 1 or more")
    stop_on_signals()
    counts = [int(c) for c in args.scaleout.split(",")] if args.scaleout else [args.referees]
    if min(counts) < 1:
        parser.error("every referee count must be 1 or more")
    rows = []
    for referees in counts:
        run = LeagueRun(
            players=args.players,
            referees=referees,
            capacity=args.capacity,
            rounds=args.rounds,
            player_hosts=args.player_hosts,
            strategy=args.strategy,
            keep=args.keep,
            progress=True,
            broadcasts=not args.no_broadcasts,
            profile_lm=args.profile_lm,
            profile_referee=args.profile_referee,
            profile_player_host=args.profile_player_host,
        )
        print(
            f"league: {run.players} players ({run.strategy}, {run.player_hosts} host "
            f"process(es)), {referees} referee(s) of capacity {run.matches_per_referee}, "
            f"{run.rounds or 'all'} round(s)",
            flush=True,
        )
        try:
            rows.append(run_league(run))
        except KeyboardInterrupt:
            print("interrupted: every process this run started is stopped", file=sys.stderr)
            sys.exit(130)
    _table(rows, "referee scale-out" if args.scaleout else "league over HTTP")
    if args.json:
        args.json.write_text(json.dumps({"runs": rows}, indent=2))


if __name__ == "__main__":
    main()

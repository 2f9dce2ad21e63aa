"""The League Manager under load, over real HTTP on loopback: a burst of registrations, and
a steady stream of standings queries while a league plays.

    .venv/bin/python bench/load.py                                  # both parts, ~1.5 minutes
    .venv/bin/python bench/load.py --part register --register 64 --bursts 5
    .venv/bin/python bench/load.py --part query --players 32 --referees 2 --rate 200 --pairs 2

A benchmark, not a test: it prints what it measured and, with --json, writes it to a file.
It exits 1 if a check fails (a registration refused, an error under load, a wrong result).

Registration burst (--part register): a League Manager and one referee, each its own
process; then --register players register at the same moment: each its own
``httpx.AsyncClient`` (its own connection, as separate player processes would have), all
released together by one event, each sending the LEAGUE_REGISTER_REQUEST a player sends.
Timed from the release to the last answer; every answer must be ACCEPTED with its own id
and token, every token must then be accepted by ``league_query``, and the League Manager's
/status must list them all. Repeated --bursts times, each with a fresh League Manager.

Queries during a league (--part query): a league of --players ``random`` players and
--referees referees (every agent its own process), started through the admin's
``POST /start_league`` as ``bench/league_throughput.py`` does, played twice per pair: once
alone and once with an open-loop query load of --rate requests per second, alternately
``GET /standings`` and the JSON-RPC ``league_query`` (GET_STANDINGS) signed with a
registered player's token. Open loop: request i is due at start + i / rate, whatever became
of the earlier ones, and its latency counts from when it was due, so a slow answer cannot
hide the requests that would have queued behind it. Every answer is checked (HTTP 200, a
well-formed standings document of every player, played counts that add up to twice the
matches counted). After each league: every scheduled match journaled exactly once and has a
match file, ``standings.json`` equals the standings recomputed from the match files and the
final ``GET /standings``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from league_cli.launcher import Launcher, LaunchError  # noqa: E402
from league_cli.up import LeaguePlan, start_processes, wait_for  # noqa: E402
from league_manager.registry_files import RegistryFiles  # noqa: E402
from sdk.config import SharedDir  # noqa: E402
from sdk.messages import (  # noqa: E402
    PROTOCOL_VERSION,
    LeagueQuery,
    LeagueQueryResponse,
    LeagueRegisterRequest,
    Method,
    PlayerMeta,
)
from sdk.timeutil import utc_now_str  # noqa: E402
from tests.match_files import match_files, recompute_standings, scheduled_rounds  # noqa: E402
from tests.ports import free_port  # noqa: E402

LEAGUE = "league_2025_even_odd"


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile (with 64 samples, p99 is the largest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU time every core of this machine has spent busy since boot (Linux /proc/stat)."""
    values = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(values) - values[3] - values[4]) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class CheckFailed(RuntimeError):
    """The League Manager answered wrongly under load, or a league's result is wrong."""


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block is done (then they are delivered): a second
    Ctrl-C cannot cut a clean-up short and leave processes or files behind."""
    held = {signal.SIGINT, signal.SIGTERM}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@dataclass
class Workspace:
    """A private copy of SHARED/config in a temporary folder, and the processes started on
    it; ``close`` stops every one of them by pid and removes the folder (kept with ``keep``,
    and after a failure with ``keep_failed``)."""

    keep: bool = False
    keep_failed: bool = True
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="league-load-")))

    def __post_init__(self) -> None:
        self.shared = self.root / "SHARED"
        try:
            shutil.copytree(REPO / "SHARED" / "config", self.shared / "config")
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise
        self.launcher = Launcher(self.shared)

    @property
    def league_dir(self) -> Path:
        return SharedDir(self.shared).league_dir(LEAGUE)

    def admin_token(self) -> str:
        return (self.league_dir / "admin_token").read_text().strip()

    def close(self, failed: bool) -> None:
        with signals_held():
            self.launcher.stop_all()
            if self.keep or (failed and self.keep_failed):
                print(f"  (kept {self.root})", flush=True)
            else:
                shutil.rmtree(self.root, ignore_errors=True)


# -- part (a): a burst of registrations ----------------------------------------------------


async def _register_burst(mcp_url: str, count: int) -> dict[str, Any]:
    context = httpx.create_ssl_context()  # built once, not once per client
    clients = [httpx.AsyncClient(timeout=30, verify=context) for _ in range(count)]
    go = asyncio.Event()
    latencies: list[float] = []
    answers: list[dict[str, Any]] = []

    async def register(index: int, client: httpx.AsyncClient) -> None:
        name = f"Load{index + 1:03d}"
        request = LeagueRegisterRequest(
            sender=f"player:{name}",
            conversation_id=f"register-{name}",
            player_meta=PlayerMeta(
                display_name=name,
                contact_endpoint=f"http://127.0.0.1:{20000 + index}/mcp",
                protocol_version=PROTOCOL_VERSION,
            ),
        )
        body = {
            "jsonrpc": "2.0",
            "method": Method.REGISTER_PLAYER,
            "params": request.to_wire(),
            "id": index,
        }
        await go.wait()
        sent = time.perf_counter()
        try:
            response = await client.post(mcp_url, json=body)
            answer = response.json()
        except (httpx.HTTPError, ValueError) as exc:
            answers.append({"error": repr(exc)})
            return
        latencies.append(time.perf_counter() - sent)
        answers.append(answer.get("result") or {"http": response.status_code, **answer})

    try:
        tasks = [asyncio.create_task(register(i, c)) for i, c in enumerate(clients)]
        await asyncio.sleep(0.2)  # every task is waiting on the event
        started = time.perf_counter()
        go.set()
        await asyncio.gather(*tasks)
        total = time.perf_counter() - started
    finally:
        for client in clients:
            await client.aclose()
    return {"total_s": total, "latencies": latencies, "answers": answers}


async def _check_tokens(mcp_url: str, answers: list[dict[str, Any]]) -> int:
    """How many of the issued tokens ``league_query`` accepts."""
    accepted = 0
    async with httpx.AsyncClient(timeout=30) as client:
        for answer in answers:
            query = LeagueQuery(
                sender=f"player:{answer['player_id']}",
                conversation_id="check",
                auth_token=answer["auth_token"],
                league_id=LEAGUE,
                query_type="GET_STANDINGS",
            )
            response = await client.post(
                mcp_url,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": Method.LEAGUE_QUERY,
                    "params": query.to_wire(),
                },
            )
            result = response.json().get("result", {})
            accepted += (
                result.get("message_type") == LeagueQueryResponse.MESSAGE_TYPE
                and result.get("success") is True
            )
    return accepted


def registration_burst(count: int, keep: bool) -> dict[str, Any]:
    space = Workspace(keep)
    failed = True
    try:
        manager = space.launcher.manager(free_port())
        space.launcher.wait_healthy(manager)
        referee = space.launcher.referee("R1", free_port(), manager.mcp_url, 8)
        space.launcher.wait_healthy(referee)
        with httpx.Client(timeout=10) as client:
            wait_for(
                lambda: client.get(f"{manager.base_url}/status").json()["referees"],
                30,
                "the referee to register",
            )
            burst = asyncio.run(_register_burst(manager.mcp_url, count))
            status = client.get(f"{manager.base_url}/status").json()
        answers = burst["answers"]
        accepted = [a for a in answers if a.get("status") == "ACCEPTED"]
        ids = {a.get("player_id") for a in accepted}
        tokens = {a.get("auth_token") for a in accepted}
        valid_tokens = asyncio.run(_check_tokens(manager.mcp_url, accepted))
        listed = {p["agent_id"] for p in status["players"]}
        problems = []
        if len(accepted) != count:
            refused = Counter(
                str(a.get("reason") or a.get("error_description") or a)
                for a in answers
                if a.get("status") != "ACCEPTED"
            )
            problems.append(f"{count - len(accepted)} not ACCEPTED: {dict(refused)}")
        if len(ids) != len(accepted) or None in ids:
            problems.append(f"{len(accepted)} accepted but {len(ids)} distinct ids")
        if len(tokens) != len(accepted):
            problems.append(f"{len(accepted)} accepted but {len(tokens)} distinct tokens")
        if valid_tokens != len(accepted):
            problems.append(f"league_query took {valid_tokens} of {len(accepted)} tokens")
        if listed != ids:
            problems.append(f"/status lists {len(listed)} players, {len(listed ^ ids)} differ")
        failed = bool(problems)
        return {
            "total_s": burst["total_s"],
            "latencies": burst["latencies"],
            "accepted": len(accepted),
            "distinct_ids": len(ids),
            "tokens_accepted": valid_tokens,
            "listed": len(listed),
            "problems": problems,
        }
    except KeyboardInterrupt:
        failed = False  # nothing to look into: stop and clean up
        raise
    finally:
        space.close(failed)


# -- part (b): queries while a league plays ------------------------------------------------


@dataclass
class Stream:
    """What one kind of query saw."""

    latencies: list[float] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    versions: list[int] = field(default_factory=list)
    slowest: list[tuple[float, float]] = field(default_factory=list)
    """(seconds since the load started, latency) of every answer; the slowest are kept."""

    def fail(self, kind: str, example: str) -> None:
        self.errors[kind] += 1
        self.examples.setdefault(kind, example[:300])

    def summary(self, seconds: float, drained: float) -> dict[str, Any]:
        """``seconds``: how long requests were sent; ``drained``: until the last answer."""
        done = len(self.latencies)
        ms = [1000 * x for x in self.latencies]
        return {
            "requests": done + sum(self.errors.values()),
            "answered": done,
            "sent_per_s": (done + sum(self.errors.values())) / seconds if seconds else 0.0,
            "answered_per_s": done / drained if drained else 0.0,
            "p50_ms": percentile(ms, 0.5) if ms else None,
            "p99_ms": percentile(ms, 0.99) if ms else None,
            "max_ms": max(ms) if ms else None,
            "send_lag_p99_ms": 1000 * percentile(self.lags, 0.99) if self.lags else None,
            "slowest_at_s": [
                round(at, 2) for at, _ in sorted(self.slowest, key=lambda pair: -pair[1])[:5]
            ],
            "errors": dict(self.errors),
            "error_examples": self.examples,
            "versions_seen": (min(self.versions), max(self.versions)) if self.versions else None,
        }


def _standings_problem(document: Any, players: int) -> str | None:
    """Why a standings document is wrong, or None: every player once, played counts that
    add up to two per counted match, the version equal to the matches counted."""
    if not isinstance(document, dict) or not isinstance(document.get("standings"), list):
        return "not a standings document"
    rows = document["standings"]
    if len(rows) != players or len({r.get("player_id") for r in rows}) != players:
        return (
            f"{len(rows)} rows ({len({r.get('player_id') for r in rows})} players) for "
            f"{players} players"
        )
    if sum(r["played"] for r in rows) != 2 * document["matches_completed"]:
        return (
            f"played adds up to {sum(r['played'] for r in rows)}, "
            f"{document['matches_completed']} matches counted"
        )
    if document["version"] != document["matches_completed"]:
        return f"version {document['version']} for {document['matches_completed']} matches"
    return None


class QueryLoad:
    """An open-loop stream of queries: request i is due at ``start + i / rate``, sent then
    whatever the earlier ones are doing, and timed from when it was due.

    Each request in flight has a client of its own (one keep-alive connection), reused once
    it is free, as independent callers would: httpcore scans every connection of a pool for
    every queued request, so one shared pool with hundreds of requests in flight makes the
    load generator, not the League Manager, the bottleneck."""

    def __init__(
        self, lm_url: str, rate: float, players: int, player_id: str, token: str, max_in_flight: int
    ):
        self.lm_url = lm_url
        self.rate = rate
        self.players = players
        self.query = LeagueQuery(
            sender=f"player:{player_id}",
            conversation_id="load",
            auth_token=token,
            league_id=LEAGUE,
            query_type="GET_STANDINGS",
        ).to_wire()
        self.streams = {"GET /standings": Stream(), Method.LEAGUE_QUERY: Stream()}
        self.sent = 0
        self.seconds = 0.0
        self.drained = 0.0
        self.started = 0.0
        self.clients: list[httpx.AsyncClient] = []
        self._idle: list[httpx.AsyncClient] = []
        self._slots = asyncio.Semaphore(max_in_flight)
        self._ssl = httpx.create_ssl_context()  # built once, not once per client

    def _client(self) -> httpx.AsyncClient:
        if self._idle:
            return self._idle.pop()
        # An idle connection is dropped after 2 s, before uvicorn's 5 s keep-alive timeout:
        # with both at 5 s, a request sent as the server closes fails (RemoteProtocolError).
        client = httpx.AsyncClient(
            timeout=10,
            verify=self._ssl,
            limits=httpx.Limits(
                max_connections=1, max_keepalive_connections=1, keepalive_expiry=2.0
            ),
        )
        self.clients.append(client)
        return client

    async def _one(self, index: int, due: float) -> None:
        async with self._slots:
            client = self._client()
            try:
                await self._ask(client, index, due)
            finally:
                self._idle.append(client)

    async def _ask(self, client: httpx.AsyncClient, index: int, due: float) -> None:
        loop = asyncio.get_running_loop()
        name = "GET /standings" if index % 2 == 0 else Method.LEAGUE_QUERY
        stream = self.streams[name]
        stream.lags.append(max(0.0, loop.time() - due))
        try:
            if name == "GET /standings":
                response = await client.get(f"{self.lm_url}/standings")
            else:
                params = {
                    **self.query,
                    "timestamp": utc_now_str(),
                    "conversation_id": f"load-{index}",
                }
                response = await client.post(
                    f"{self.lm_url}/mcp",
                    json={
                        "jsonrpc": "2.0",
                        "method": Method.LEAGUE_QUERY,
                        "params": params,
                        "id": index,
                    },
                )
        except httpx.TimeoutException as exc:
            stream.fail("timeout", repr(exc))
            return
        except httpx.HTTPError as exc:
            stream.fail(type(exc).__name__, repr(exc))
            return
        elapsed = loop.time() - due
        if response.status_code != 200:
            stream.fail(f"HTTP {response.status_code}", response.text)
            return
        try:
            body = response.json()
        except ValueError:
            stream.fail("not JSON", response.text)
            return
        document = body
        if name == Method.LEAGUE_QUERY:
            result = body.get("result") if isinstance(body, dict) else None
            if not isinstance(result, dict):
                stream.fail("JSON-RPC error", response.text)
                return
            if result.get("message_type") != LeagueQueryResponse.MESSAGE_TYPE or not result.get(
                "success"
            ):
                stream.fail(str(result.get("error_code") or "refused"), response.text)
                return
            document = result.get("data")
        problem = _standings_problem(document, self.players)
        if problem:
            stream.fail("wrong standings", problem)
            return
        stream.latencies.append(elapsed)
        stream.slowest.append((due - self.started, elapsed))
        stream.versions.append(document["version"])

    async def run(self, stop: asyncio.Event, seconds: float | None) -> None:
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()
        start = self.started = loop.time()
        end = start + seconds if seconds else math.inf
        try:
            while not stop.is_set():
                due = start + self.sent / self.rate
                if due >= end:
                    break
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                    continue
                task = asyncio.create_task(self._one(self.sent, due))
                pending.add(task)
                task.add_done_callback(pending.discard)
                self.sent += 1
            self.seconds = loop.time() - start
            if pending:
                await asyncio.gather(*pending)
            self.drained = loop.time() - start
        finally:
            for client in self.clients:
                await client.aclose()


async def _play(
    lm_url: str, admin_token: str, load: QueryLoad | None, seconds: float | None, timeout: float
) -> float:
    """Start the league and wait for it to complete, under ``load`` if given; its wall time."""
    stop = asyncio.Event()
    async with httpx.AsyncClient(timeout=30) as client:
        loader = asyncio.create_task(load.run(stop, seconds)) if load else None
        try:
            started = time.perf_counter()
            response = await client.post(
                f"{lm_url}/start_league", headers={"Authorization": f"Bearer {admin_token}"}
            )
            response.raise_for_status()
            deadline = started + timeout
            while (await client.get(f"{lm_url}/status")).json()["state"] != "COMPLETED":
                if time.perf_counter() > deadline:
                    raise CheckFailed(f"the league did not complete within {timeout:g} s")
                await asyncio.sleep(0.05)
            wall = time.perf_counter() - started
        finally:
            stop.set()
            if loader is not None:
                await loader
    return wall


def _load_alone(load: QueryLoad, space: Workspace, seconds: float) -> dict[str, Any]:
    """The same load for ``seconds`` before the league starts (its schedule fixed, its
    standings all zero): what the League Manager and this machine do with the queries
    alone."""
    manager = next(p for p in space.launcher.processes if p.kind == "manager")
    lm_before, machine_before = cpu_seconds(manager.popen.pid), machine_busy_seconds()
    own_before = own_cpu_seconds()

    async def run() -> None:
        await load.run(asyncio.Event(), seconds)

    asyncio.run(run())
    lm_cpu = cpu_seconds(manager.popen.pid) - lm_before
    own = own_cpu_seconds() - own_before
    busy = machine_busy_seconds() - machine_before
    return {
        "seconds": load.drained,
        "sent": load.sent,
        "connections": len(load.clients),
        "cpu_s": {
            "manager": lm_cpu,
            "bench": own,
            "all": busy,
            "available": load.drained * (os.cpu_count() or 1),
        },
        "streams": {
            name: stream.summary(load.seconds, load.drained)
            for name, stream in load.streams.items()
        },
    }


def check_league(space: Workspace, final: dict[str, Any], players: int) -> list[str]:
    """What is wrong with a completed league's record, or nothing."""
    shared = SharedDir(space.shared)
    problems: list[str] = []
    scheduled = sorted(m.match_id for r in scheduled_rounds(shared, LEAGUE) for m in r.matches)
    if len(scheduled) != players * (players - 1) // 2:
        problems.append(f"{len(scheduled)} matches scheduled for {players} players")
    journaled = Counter(
        json.loads(line)["match_id"]
        for line in (space.league_dir / "journal.jsonl").read_text().splitlines()
        if line
    )
    if sorted(journaled) != scheduled or set(journaled.values()) != {1}:
        twice = [m for m, n in journaled.items() if n > 1]
        problems.append(
            f"journal: {len(journaled)} matches of {len(scheduled)}, "
            f"{len(twice)} more than once {twice[:5]}"
        )
    matches = match_files(shared, LEAGUE)
    if sorted(m["match_id"] for m in matches) != scheduled:
        problems.append(f"{len(matches)} match files for {len(scheduled)} matches")
    recomputed = recompute_standings(shared, LEAGUE, matches)
    on_disk = json.loads((space.league_dir / "standings.json").read_text())
    keys = ("played", "wins", "draws", "losses", "points")
    for row in on_disk["standings"]:
        mine = recomputed.get(row["player_id"], Counter())
        if tuple(row[k] for k in keys) != tuple(mine[k] for k in keys):
            problems.append(
                f"standings.json {row['player_id']}: "
                f"{[row[k] for k in keys]} but the match files say "
                f"{[mine[k] for k in keys]}"
            )
        if row["played"] != players - 1:
            problems.append(f"{row['player_id']} played {row['played']} of {players - 1}")
    if len(on_disk["standings"]) != players:
        problems.append(f"standings.json has {len(on_disk['standings'])} rows")
    if on_disk["standings"] != final["standings"]:
        problems.append("standings.json differs from the final GET /standings")
    if on_disk["matches_completed"] != len(scheduled):
        problems.append(f"standings.json counts {on_disk['matches_completed']} matches")
    return problems


def _start_league_processes(
    players: int, referees: int, capacity: int, keep: bool, attempts: int = 3
) -> tuple[Workspace, str]:
    """A workspace with every agent up and registered. A free port can be taken by another
    process between our choosing it and the agent binding it: then start again, anew."""
    for attempt in range(1, attempts + 1):
        space = Workspace(keep)
        plan = LeaguePlan(
            shared_dir=space.shared,
            players=[(f"P{i + 1}", free_port(), "random") for i in range(players)],
            referees=[(f"R{i + 1}", free_port(), capacity) for i in range(referees)],
            lm_port=free_port(),
        )
        try:
            with httpx.Client(timeout=30) as client:
                return space, start_processes(plan, space.launcher, client)
        except LaunchError as exc:
            space.close(failed=attempt == attempts)
            if attempt == attempts:
                raise
            print(f"  (start failed, trying again: {exc})", flush=True)
        except BaseException as exc:
            space.close(failed=not isinstance(exc, KeyboardInterrupt))
            raise
    raise AssertionError("unreachable")


def _log_events(space: Workspace, *events: str) -> Counter[str]:
    """How often the agents logged each of ``events`` (retries, handler failures)."""
    counts: Counter[str] = Counter()
    needles = {event: f'"event":"{event}"'.encode() for event in events}
    for path in (space.shared / "logs" / "agents").glob("*.log.jsonl"):
        data = path.read_bytes()
        for event, needle in needles.items():
            counts[event] += data.count(needle)
    return counts


def league_run(
    players: int,
    referees: int,
    capacity: int,
    rate: float | None,
    seconds: float | None,
    timeout: float,
    keep: bool,
    max_in_flight: int = 256,
    before_seconds: float = 0.0,
) -> dict[str, Any]:
    space, lm_url = _start_league_processes(players, referees, capacity, keep)
    failed = True
    try:
        row: dict[str, Any] = {}
        load = None
        if rate:
            # The token of a registered player, from the League Manager's own records in
            # this run's private folder (snapshot and journal): the players keep theirs in
            # memory only.
            tokens = RegistryFiles(space.league_dir).read().tokens
            player_id = next(t for t in tokens if not t.startswith("REF"))
            load = QueryLoad(lm_url, rate, players, player_id, tokens[player_id], max_in_flight)
            if before_seconds:
                # The schedule fixed first, so the standings hold every player, as later.
                with httpx.Client(timeout=30) as client:
                    client.post(
                        f"{lm_url}/create_schedule",
                        headers={"Authorization": f"Bearer {space.admin_token()}"},
                    ).raise_for_status()
                row["before_league"] = _load_alone(
                    QueryLoad(lm_url, rate, players, player_id, tokens[player_id], max_in_flight),
                    space,
                    before_seconds,
                )
        pids = {p.popen.pid: p.kind for p in space.launcher.processes}
        before = {pid: cpu_seconds(pid) for pid in pids}
        machine_before, own_before = machine_busy_seconds(), own_cpu_seconds()
        wall = asyncio.run(_play(lm_url, space.admin_token(), load, seconds, timeout))
        cpu: dict[str, float] = {"manager": 0.0, "referee": 0.0, "player": 0.0}
        for pid, kind in pids.items():
            cpu[kind] += cpu_seconds(pid) - before[pid]
        cpu["bench"] = own_cpu_seconds() - own_before
        cpu["others"] = machine_busy_seconds() - machine_before - sum(cpu.values())
        cpu["available"] = wall * (os.cpu_count() or 1)
        with httpx.Client(timeout=30) as client:
            final = client.get(f"{lm_url}/standings").json()
            status = client.get(f"{lm_url}/status").json()
        problems = check_league(space, final, players)
        row.update(
            {
                "loaded": bool(rate),
                "wall_s": wall,
                "cpu_s": cpu,
                "matches": status["matches_completed"],
                "problems": problems,
            }
        )
        if load is not None:
            row["load_s"] = load.seconds
            row["sent"] = load.sent
            row["connections"] = len(load.clients)
            row["streams"] = {
                name: s.summary(load.seconds, load.drained) for name, s in load.streams.items()
            }
        log = SharedDir(space.shared).agent_log_path("league_manager")
        row["lm_log_mb"] = log.stat().st_size / 1e6 if log.exists() else 0.0
        row["log_events"] = dict(_log_events(space, "call_retry", "handler_failed"))
        if row["log_events"].get("handler_failed"):
            problems.append(f"{row['log_events']['handler_failed']} handler failures logged")
        failed = bool(problems)
        return row
    except KeyboardInterrupt:
        failed = False  # nothing to look into: stop and clean up
        raise
    finally:
        space.close(failed)


# -- the command ---------------------------------------------------------------------------


def _print_register(bursts: list[dict[str, Any]], count: int) -> None:
    print(
        f"registration: {count} players at once, {len(bursts)} burst(s), fresh League "
        "Manager + 1 referee each"
    )
    for number, burst in enumerate(bursts, 1):
        ms = [1000 * x for x in burst["latencies"]] or [math.nan]
        print(
            f"  burst {number}: all {count} in {1000 * burst['total_s']:.0f} ms; "
            f"register_player p50 {percentile(ms, 0.5):.0f} ms, p99 {percentile(ms, 0.99):.0f}"
            f" ms; {burst['accepted']} ACCEPTED, {burst['distinct_ids']} distinct ids, "
            f"{burst['tokens_accepted']} tokens valid, {burst['listed']} in /status"
            + (f"; PROBLEMS: {burst['problems']}" if burst["problems"] else ""),
            flush=True,
        )
    pooled = [1000 * x for b in bursts for x in b["latencies"]] or [math.nan]
    print(
        f"  pooled over {len(pooled)} calls: p50 {percentile(pooled, 0.5):.0f} ms, "
        f"p99 {percentile(pooled, 0.99):.0f} ms, max {max(pooled):.0f} ms",
        flush=True,
    )


def _print_league(row: dict[str, Any]) -> None:
    label = "with load" if row["loaded"] else "alone    "
    cpu = row["cpu_s"]
    print(
        f"  league {label}: {row['matches']} matches in {row['wall_s']:.2f} s; CPU s: "
        f"manager {cpu['manager']:.1f}, referees {cpu['referee']:.1f}, players "
        f"{cpu['player']:.1f}, bench {cpu['bench']:.1f}, other processes {cpu['others']:.1f}"
        f" (of {cpu['available']:.0f}); manager log {row['lm_log_mb']:.1f} MB; "
        f"retries in the league {row['log_events'].get('call_retry', 0)}"
        + (f"; {row['connections']} client connections" if "connections" in row else "")
        + (f"; PROBLEMS: {row['problems']}" if row["problems"] else "; result checked"),
        flush=True,
    )
    before = row.get("before_league")
    if before:
        cpu = before["cpu_s"]
        print(
            f"    before the league starts, {before['seconds']:.1f} s of the same load: CPU s:"
            f" manager {cpu['manager']:.1f}, bench {cpu['bench']:.1f}, whole machine "
            f"{cpu['all']:.1f} (of {cpu['available']:.0f})",
            flush=True,
        )
        _print_streams(before["streams"])
    if row.get("streams"):
        print("    during the league:", flush=True)
        _print_streams(row["streams"])


def _print_streams(streams: dict[str, Any]) -> None:
    for name, stream in streams.items():
        print(
            f"      {name:<15} {stream['requests']:>5} sent, {stream['sent_per_s']:5.1f}/s, "
            f"answered {stream['answered_per_s']:5.1f}/s; "
            f"p50 {stream['p50_ms'] or 0:6.1f} ms, p99 {stream['p99_ms'] or 0:6.1f} ms, "
            f"max {stream['max_ms'] or 0:6.1f} ms; send lag p99 "
            f"{stream['send_lag_p99_ms'] or 0:.1f} ms; versions {stream['versions_seen']}; "
            f"slowest at {stream['slowest_at_s']} s; errors {stream['errors'] or 0}"
            + (f" e.g. {stream['error_examples']}" if stream["errors"] else ""),
            flush=True,
        )


def stop_on_signals() -> None:
    """SIGTERM unwinds like Ctrl-C, so every ``finally`` stops its processes; SIGINT too,
    even when started in the background of a script (which ignores it there)."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("register", "query", "both"), default="both")
    parser.add_argument("--register", type=int, default=64, help="players registering at once")
    parser.add_argument(
        "--bursts",
        type=int,
        default=3,
        help="registration bursts, each with a fresh League Manager",
    )
    parser.add_argument("--players", type=int, default=32, help="players in the league")
    parser.add_argument("--referees", type=int, default=2)
    parser.add_argument("--capacity", type=int, default=8, help="matches per referee")
    parser.add_argument(
        "--rate",
        type=float,
        default=200.0,
        help="queries per second, half GET /standings, half league_query",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="stop the load after this "
        "long (default: when the league completes, whichever is first)",
    )
    parser.add_argument(
        "--before",
        type=float,
        default=5.0,
        help="seconds of the same load before each loaded league starts, as a reference (0: none)",
    )
    parser.add_argument(
        "--max-in-flight",
        type=int,
        default=256,
        help="queries in flight "
        "at most (each on its own connection); later ones wait, on the clock",
    )
    parser.add_argument(
        "--pairs", type=int, default=1, help="leagues played alone and under load, alternately"
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds a league may take")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.rate <= 0 or args.register < 1 or args.players < 2 or args.referees < 1:
        parser.error(
            "--rate, --register, --players and --referees must be positive (at least 2 players)"
        )
    stop_on_signals()

    figures: dict[str, Any] = {"argv": sys.argv[1:]}
    failed = False
    if args.part in ("register", "both"):
        bursts = [registration_burst(args.register, args.keep) for _ in range(args.bursts)]
        _print_register(bursts, args.register)
        pooled = [x for b in bursts for x in b["latencies"]] or [math.nan]
        figures["registration"] = {
            "players": args.register,
            "bursts": bursts,
            "pooled_p50_ms": 1000 * percentile(pooled, 0.5),
            "pooled_p99_ms": 1000 * percentile(pooled, 0.99),
        }
        failed |= any(b["problems"] for b in bursts)
    if args.part in ("query", "both"):
        print(
            f"queries during a league: {args.players} players, {args.referees} referee(s) "
            f"x {args.capacity}, {args.rate:g} queries/s",
            flush=True,
        )
        rows = []
        for pair in range(args.pairs):
            order = (None, args.rate) if pair % 2 == 0 else (args.rate, None)
            for rate in order:
                row = league_run(
                    args.players,
                    args.referees,
                    args.capacity,
                    rate,
                    args.seconds,
                    args.timeout,
                    args.keep,
                    args.max_in_flight,
                    args.before,
                )
                _print_league(row)
                rows.append(row)
                failed |= bool(row["problems"]) or any(
                    stream["errors"] for stream in row.get("streams", {}).values()
                )
        alone = [r["wall_s"] for r in rows if not r["loaded"]]
        loaded = [r["wall_s"] for r in rows if r["loaded"]]
        print(
            f"  wall time: alone {min(alone):.2f}-{max(alone):.2f} s, under load "
            f"{min(loaded):.2f}-{max(loaded):.2f} s "
            f"({sum(loaded) / len(loaded) / (sum(alone) / len(alone)) - 1:+.0%} on average)"
        )
        figures["leagues"] = rows
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if failed:
        print("FAILED: see PROBLEMS and errors above", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted: every process this run started has been stopped", file=sys.stderr)
        sys.exit(130)

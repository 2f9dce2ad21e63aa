"""The League Manager's cost per result as the league grows: n = 100, 1,000 and 10,000 players.

    .venv/bin/python bench/scale.py                        # n = 100, 1,000, 10,000
    .venv/bin/python bench/scale.py --sizes 1000 --results 0   # one whole league of 1,000
    .venv/bin/python bench/scale.py --http --players 200 --referees 4   # over real HTTP

A benchmark, not a test. In process (the default) the League Manager is the real one
(``LeagueManager``: registration, schedule, round flow, referee hand-over, report checks,
journal with fsync, standings, notifications, logs) with everything outside it answered at
once by an in-process transport: a referee acknowledges ``start_match`` and its report is
handed to ``report_match_result``'s own method on the next turn of the event loop, and every
player takes its notifications. So the results per second are the League Manager's own
ceiling on one core, with no network and no JSON-RPC parsing of the reports.

Each size runs in a process of its own, so its peak memory (the kernel's high-water mark of
the resident set) is its own. Each plays the whole league (n = 100: 4,950 results) or its
first ``--results`` results (20,000 by default: 4 rounds of 10,000 players), and prints the
time to register the players (in bursts of 100, as many agents starting at once would), what
one registration costs at that size (the median of the last 21, each alone: one journal line
and its fsync), what one snapshot of the registry costs (agents.json and secrets.json, written
once per as many changes as there are agents), the time to fix the schedule, the results per
second, the CPU per result, and memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from league_manager.config import LeagueManagerSettings  # noqa: E402
from league_manager.service import LeagueManager  # noqa: E402
from sdk.config import SharedDir  # noqa: E402
from sdk.messages import (  # noqa: E402
    Acknowledgement,
    LeagueRegisterRequest,
    MatchResult,
    MatchResultReport,
    Method,
    PlayerMeta,
    RefereeMeta,
    RefereeRegisterRequest,
    StartMatchAck,
)

LEAGUE = "league_scale"
REFEREES = 4
REGISTRATION_BURST = 100
"""Players registering at once, before the timed ones."""
TIMED_REGISTRATIONS = 21
"""The last players register one at a time, each timed: the median is one's cost."""
REFEREE_CAPACITY = 1000
"""Each simulated referee takes up to this many matches at once (the protocol's maximum):
a round of 10,000 players hands out its 5,000 matches at once."""


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _shared_dir(root: Path, players: int, broadcasts: bool) -> SharedDir:
    shutil.copytree(REPO / "SHARED" / "config", root / "config")
    template = json.loads((root / "config" / "leagues" / "league_2025_even_odd.json").read_text())
    league = {
        **template,
        "league_id": LEAGUE,
        "display_name": "Scale",
        "max_players": players,
        "registrations_per_minute": players + REFEREES,
        "broadcasts": broadcasts,
    }
    (root / "config" / "leagues" / f"{LEAGUE}.json").write_text(json.dumps(league))
    return SharedDir(root)


class Outside:
    """Every agent the League Manager calls, answered in process: referees acknowledge a
    match and report it at once (a task of its own); players take notifications."""

    def __init__(self) -> None:
        self.manager: LeagueManager | None = None
        self.tokens: dict[str, tuple[str, str]] = {}
        """referee endpoint -> (referee id, token)"""
        self.rejected = 0
        self.notifications = 0
        self._reports: set[asyncio.Future[None]] = set()

    def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        params = body["params"]
        if body["method"] == Method.START_MATCH:
            referee_id, token = self.tokens[str(request.url)]
            task = asyncio.ensure_future(self._report(referee_id, token, params))
            self._reports.add(task)
            task.add_done_callback(self._reports.discard)
            result: dict[str, Any] = {
                "message_type": StartMatchAck.MESSAGE_TYPE,
                "accepted": True,
                "match_id": params["match_id"],
            }
        else:
            self.notifications += 1
            result = {"message_type": Acknowledgement.MESSAGE_TYPE, "status": "ok"}
        envelope = {
            "protocol": "league.v2",
            "sender": "agent:outside",
            "timestamp": "2026-01-01T00:00:00Z",
            "conversation_id": params.get("conversation_id", "x"),
        }
        return httpx.Response(
            200, json={"jsonrpc": "2.0", "result": envelope | result, "id": body["id"]}
        )

    async def _report(self, referee_id: str, token: str, start: dict[str, Any]) -> None:
        """A result decided by the match id: a third drawn, the rest won by either seat."""
        assert self.manager is not None
        players = [seat["player_id"] for seat in start["players"]]
        pick = zlib.crc32(start["match_id"].encode()) % 3
        report = MatchResultReport(
            sender=f"referee:{referee_id}",
            auth_token=token,
            conversation_id=start["conversation_id"],
            league_id=start["league_id"],
            round_id=start["round_id"],
            match_id=start["match_id"],
            game_type="even_odd",
            result=MatchResult(winner=None if pick == 2 else players[pick]),
        )
        ack = await self.manager.report_result(report)
        if ack.status != "RECORDED":
            self.rejected += 1


async def _measure(players: int, results: int, broadcasts: bool, root: Path) -> dict[str, Any]:
    outside = Outside()
    shared = _shared_dir(root, players, broadcasts)
    manager = LeagueManager(
        LeagueManagerSettings(shared_dir=shared.root, league_id=LEAGUE),
        transport=httpx.MockTransport(outside.handle),
    )
    outside.manager = manager
    common = {"sender": "agent:bench", "conversation_id": "bench"}
    started = time.perf_counter()
    for k in range(REFEREES):
        endpoint = f"http://referee-{k}.bench/mcp"
        answer = await manager.register_referee(
            RefereeRegisterRequest(
                **common,
                auth_token=manager.referee_secret,
                referee_meta=(
                    RefereeMeta(
                        display_name=f"Referee {k}",
                        version="1",
                        game_types=["even_odd"],
                        contact_endpoint=endpoint,
                        max_concurrent_matches=REFEREE_CAPACITY,
                    )
                ),
            )
        )
        outside.tokens[endpoint] = (str(answer.referee_id), str(answer.auth_token))

    async def register(k: int) -> float:
        """Register player ``k``; the seconds until its answer."""
        began = time.perf_counter()
        answer = await manager.register_player(
            LeagueRegisterRequest(
                **common,
                player_meta=(
                    PlayerMeta(
                        display_name=f"Player {k}",
                        version="1",
                        game_types=["even_odd"],
                        contact_endpoint=f"http://player-{k}.bench/mcp",
                    )
                ),
            )
        )
        assert answer.status == "ACCEPTED", answer.reason
        return time.perf_counter() - began

    # All but the last few arrive in bursts (their journal lines committed in groups); the
    # watchdog's snapshots run meanwhile, as in a League Manager serving them.
    manager.upkeep.start()
    timed = min(TIMED_REGISTRATIONS, players)
    for first in range(0, players - timed, REGISTRATION_BURST):
        last = min(first + REGISTRATION_BURST, players - timed)
        await asyncio.gather(*(register(k) for k in range(first, last)))
    # What one registration costs at this size: alone, so its own fsync, one at a time.
    alone = sorted([await register(k) for k in range(players - timed, players)])
    registered = time.perf_counter() - started
    started = time.perf_counter()
    manager.agents.save()  # a snapshot at this size, written once per as many changes
    agents_saved = time.perf_counter() - started
    rss_registered = _rss_kb()

    started = time.perf_counter()
    await manager.create_schedule()
    scheduled = time.perf_counter() - started
    rss_scheduled = _rss_kb()

    schedule, accepted = manager.schedule, manager.results
    target = schedule.total_matches if results <= 0 else min(results, schedule.total_matches)
    started = time.perf_counter()
    cpu_started = time.process_time()
    await manager.start()
    while len(accepted) < target:
        await asyncio.sleep(0.05)
    if target == schedule.total_matches:
        await manager.wait_until_completed()  # the last round's snapshot and the end
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    counted = len(accepted)
    rss_played = _rss_kb()
    await manager.shutdown()
    return {
        "players": players,
        "total_matches": schedule.total_matches,
        "results": counted,
        "rounds_completed": schedule.rounds_completed(),
        "rejected": outside.rejected,
        "notifications": outside.notifications,
        "register_s": registered,
        "agents_save_ms": 1000 * agents_saved,
        "registration_ms": 1000 * alone[len(alone) // 2],
        "registration_max_ms": 1000 * alone[-1],
        "schedule_s": scheduled,
        "play_s": elapsed,
        "play_cpu_s": cpu,
        "results_per_s": counted / elapsed,
        "cpu_ms_per_result": 1000 * cpu / counted,
        "rss_registered_mb": rss_registered / 1024,
        "rss_scheduled_mb": rss_scheduled / 1024,
        "rss_played_mb": rss_played / 1024,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "bytes_per_result": 1024 * (rss_played - rss_scheduled) / max(counted, 1),
        "broadcasts": broadcasts,
    }


def _one(players: int, results: int, broadcasts: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as folder:
        found = asyncio.run(_measure(players, results, broadcasts, Path(folder) / "SHARED"))
    print(json.dumps(found))


def _table(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="League Manager bookkeeping in process (one core)")
    for column in (
        "players",
        "results",
        "register",
        "1 registration",
        "snapshot",
        "schedule",
        "results/s",
        "CPU ms/result",
        "notifications",
        "peak RSS",
        "RSS per result",
    ):
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(
            f"{row['players']:,}",
            f"{row['results']:,} of {row['total_matches']:,}",
            f"{row['register_s']:.2f} s",
            f"{row['registration_ms']:.2f} ms",
            f"{row['agents_save_ms']:.0f} ms",
            f"{row['schedule_s']:.3f} s",
            f"{row['results_per_s']:,.0f}",
            f"{row['cpu_ms_per_result']:.3f}",
            f"{row['notifications']:,}",
            f"{row['peak_rss_mb']:,.0f} MB",
            f"{row['bytes_per_result']:,.0f} B",
        )
    Console(width=150).print(table)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        print(
            f"results/s at n={last['players']:,} is "
            f"{last['results_per_s'] / first['results_per_s']:.2f}x that at "
            f"n={first['players']:,}"
        )


def main() -> None:
    if "--http" in sys.argv[1:]:  # everything else is bench/scale_http.py's to read
        rest = [arg for arg in sys.argv[1:] if arg != "--http"]
        os.execv(sys.executable, [sys.executable, str(REPO / "bench" / "scale_http.py"), *rest])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000])
    parser.add_argument(
        "--results",
        type=int,
        default=20_000,
        help="results to play at each size (0: the whole league)",
    )
    parser.add_argument(
        "--no-broadcasts",
        action="store_true",
        help="leagues with broadcasts off (players would poll league_query)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--http",
        action="store_true",
        help="a league over real HTTP instead (bench/scale_http.py's options)",
    )
    args = parser.parse_args()
    broadcasts = not args.no_broadcasts
    if args.one:
        _one(args.one, args.results, broadcasts)
        return
    rows = []
    for players in args.sizes:
        command = [sys.executable, __file__, "--one", str(players), "--results", str(args.results)]
        if not broadcasts:
            command.append("--no-broadcasts")
        done = subprocess.run(command, check=True, capture_output=True, text=True)
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"n={players:,}: {rows[-1]['results_per_s']:,.0f} results/s", file=sys.stderr)
    _table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()

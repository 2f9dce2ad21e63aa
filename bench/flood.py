"""Flood: 20,000 idle connections to a League Manager while a small league plays; does
``/health`` say so within seconds, does the League Manager stay bounded, and does the
league complete once the flood is over, every match counted once?

    .venv/bin/python bench/flood.py
    .venv/bin/python bench/flood.py --connections 20000 --players 16 --hold 10 --json out.json

A League Manager, 2 referees playing --capacity matches each at once and --players players
(``Deliberate``: a match takes about a second, so the league lasts about 35 s), every one a
real process on loopback with a private SHARED folder, on the system's defaults (at most
``http.max_server_connections``, 1,024, connections kept). Once the league has started,
worker processes (``python -m tests.reliability.floods``) open --connections connections in
all to the League Manager as fast as they open, each worker from loopback addresses of its
own (127.0.0.2 and on), and hold every one, as clients that never send a request would;
once all are open they are held --hold seconds more, then the workers are stopped and their
connections close with them. One process holds at most its open-files limit, so this one
raises its soft limit to the hard one first (its workers inherit it) and spreads the
connections over as many workers as that needs (--workers at least).

Measured every --every seconds from the workers' start: ``GET /health`` on a new connection
each time (its answer and how long it took), the League Manager's open files
(``/proc/<pid>/fd``) and the results counted (``GET /status``). Printed: how long after the
first connection ``/health`` said degraded ("flooded"), how long the connections took to
open, ``/health``'s answers and times under the flood, the open files, the results counted
during the flood, how long after the flood ``/health`` was ok again and the league
completed, and the league's check: every scheduled match journaled once, the journal,
``standings.json`` and the match files agreeing (``tests/reliability/crash_league.py``).

Exits 1 when ``/health`` did not say degraded within --tell-within seconds of the first
connection, was not ok again within --tell-within seconds of the flood's end, or the league
did not complete soundly. Every process it started (the league's and the workers) is
stopped by its pid however the run ends: measured, failed, SIGINT or SIGTERM. A benchmark,
not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import stop_on_signals  # noqa: E402
from tests.reliability.crash_league import CrashLeague, check_league, running_league  # noqa: E402

DELIBERATE = ("tests.reliability.deliberate:Deliberate",)
FILES_KEPT = 200
"""Open files a worker keeps for itself beside its connections."""
SOURCES_PER_WORKER = 4
"""Loopback addresses each worker opens its connections from (``ConnectionFlood``)."""


def raise_file_limit() -> int:
    """The soft open-files limit raised to the hard one; the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return 1 << 20 if soft == resource.RLIM_INFINITY else soft


@dataclass
class Workers:
    """The flooding processes, and the connections each says it holds."""

    processes: list[subprocess.Popen[str]] = field(default_factory=list)
    opened: dict[int, int] = field(default_factory=dict)

    def start(self, port: int, counts: list[int]) -> None:
        """One worker for each of ``counts`` connections, each from addresses of its own."""
        for number, count in enumerate(counts):
            sources = [
                f"127.0.0.{2 + number * SOURCES_PER_WORKER + i}" for i in range(SOURCES_PER_WORKER)
            ]
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.reliability.floods", str(port), str(count), *sources],
                cwd=REPO,
                stdout=subprocess.PIPE,
                text=True,
            )
            self.processes.append(process)
            self.opened[process.pid] = 0
            threading.Thread(target=self._read, args=(process,), daemon=True).start()

    def _read(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if line.strip().isdigit():
                self.opened[process.pid] = int(line)

    @property
    def total(self) -> int:
        return sum(self.opened.values())

    def stop(self) -> None:
        """SIGTERM each worker by its pid (its connections close with it), SIGKILL one still
        alive 10 s later."""
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


@dataclass
class Sample:
    at: float
    """Seconds since the flood began."""
    health: int | None
    """``/health``'s HTTP status, or None when it did not answer."""
    health_sec: float
    flooded: bool
    files: int
    counted: int
    opened: int


def sample(league: CrashLeague, started: float, opened: int) -> Sample:
    at = time.monotonic()
    try:
        response = httpx.get(f"{league.lm_url}/health", timeout=10)
        code: int | None = response.status_code
        flooded = any("flooded" in reason for reason in response.json().get("reasons", []))
    except (httpx.HTTPError, ValueError):
        code, flooded = None, False
    took = time.monotonic() - at
    try:
        counted = league.status()["matches_completed"]
    except (httpx.HTTPError, ValueError):
        counted = -1
    files = len(os.listdir(f"/proc/{league.lm.popen.pid}/fd"))
    return Sample(round(at - started, 2), code, round(took, 3), flooded, files, counted, opened)


def flood_league(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Play the league, flood it, measure; what was measured."""
    limit = raise_file_limit()
    workers_needed = max(args.workers, math.ceil(args.connections / (limit - FILES_KEPT)))
    share, extra = divmod(args.connections, workers_needed)
    counts = [share + (1 if i < extra else 0) for i in range(workers_needed)]
    workers = Workers()
    samples: list[Sample] = []
    with running_league(
        root, players=args.players, capacity=args.capacity, strategies=DELIBERATE
    ) as league:
        try:
            total = league.start()
            started = time.monotonic()
            workers.start(league.lm.port, counts)
            all_open_at = None
            while all_open_at is None or time.monotonic() - all_open_at < args.hold:
                samples.append(sample(league, started, workers.total))
                if all_open_at is None and workers.total >= args.connections:
                    all_open_at = time.monotonic()
                if time.monotonic() - started > args.open_within:
                    break  # the connections did not all open: measured as they are
                time.sleep(args.every)
            state_at_end = league.status()["state"]
            workers.stop()
            ended = time.monotonic()
            ok_again = None
            while ok_again is None and time.monotonic() - ended < args.tell_within:
                samples.append(sample(league, started, 0))
                if samples[-1].health == 200:
                    ok_again = time.monotonic() - ended
                else:
                    time.sleep(args.every)
            final = league.wait_completed(args.timeout)
            completed_after = time.monotonic() - ended
            check = check_league(league.shared, final)
        finally:
            workers.stop()
    during = [s for s in samples if s.at <= ended - started]
    answered = [s.health_sec for s in during if s.health is not None]
    # The workers tell their count every 0.2 s: the League Manager's files may show it first.
    first_open = next((s.at for s in during if s.opened or s.files > during[0].files + 100), None)
    told = next((s.at for s in during if s.flooded), None)
    last_open = round(all_open_at - started, 2) if all_open_at else None
    calm = next(
        (s.at for s in samples if last_open is not None and s.at > last_open and s.health == 200),
        None,
    )
    return {
        "connections": args.connections,
        "workers": len(counts),
        "open_files_limit": limit,
        "every_sec": args.every,
        "opened": max(s.opened for s in during),
        "first_open_sec": first_open,
        "all_open_sec": last_open,
        "flood_sec": round(ended - started, 2),
        "degraded_after_sec": told,
        "degraded_after_first_open_sec": (
            round(told - first_open, 2) if told is not None and first_open is not None else None
        ),
        "health_answered": len(answered),
        "health_unanswered": len(during) - len(answered),
        "health_degraded": sum(1 for s in during if s.health == 503),
        "health_sec_max": max(answered, default=None),
        "health_sec_mean": round(sum(answered) / len(answered), 3) if answered else None,
        "files_max": max(s.files for s in during),
        "league_state_at_flood_end": state_at_end,
        "counted_during_flood": max(s.counted for s in during),
        "scheduled": total,
        "ok_after_all_open_sec": (
            round(calm - last_open, 2) if calm is not None and last_open is not None else None
        ),
        "ok_again_after_sec": round(ok_again, 2) if ok_again is not None else None,
        "completed_after_sec": None if state_at_end == "COMPLETED" else round(completed_after, 2),
        "counted": check.counted,
        "double_counts": check.double_counts,
        "mismatches": check.mismatches,
        "samples": [s.__dict__ for s in samples],
    }


def report(found: dict[str, Any]) -> None:
    print(
        f"flood: {found['opened']}/{found['connections']} connections from "
        f"{found['workers']} worker process(es) (open-files limit "
        f"{found['open_files_limit']}); the first open {found['first_open_sec']} s after the "
        f"workers started, all {found['all_open_sec']} s; held {found['flood_sec']} s in all"
    )
    print(
        f"/health: degraded (flooded) {found['degraded_after_sec']} s after the workers "
        f"started, {found['degraded_after_first_open_sec']} s after the first sample that saw "
        f"connections open (samples every {found['every_sec']:g} s and a /health call "
        f"apart); under the flood {found['health_answered']} answered "
        f"({found['health_degraded']} degraded), {found['health_unanswered']} unanswered, "
        f"{found['health_sec_mean']} s mean, {found['health_sec_max']} s max; ok again "
        f"{found['ok_after_all_open_sec']} s after the last connection opened (the held ones "
        f"press no more), {found['ok_again_after_sec']} s after the flood's end"
    )
    completed = (
        "completed during the flood"
        if found["completed_after_sec"] is None
        else f"still {found['league_state_at_flood_end']} at the flood's end, completed "
        f"{found['completed_after_sec']} s after it"
    )
    print(
        f"League Manager: at most {found['files_max']} open files under the flood; "
        f"{found['counted_during_flood']}/{found['scheduled']} results counted during it; "
        f"the league {completed}"
    )
    print(
        f"league: {found['counted']}/{found['scheduled']} counted, "
        f"{len(found['double_counts'])} double count(s), {len(found['mismatches'])} "
        "mismatch(es)"
    )
    for problem in found["double_counts"] + found["mismatches"]:
        print(f"  {problem}")


def failures(found: dict[str, Any], tell_within: float) -> list[str]:
    problems = []
    told = found["degraded_after_first_open_sec"]
    if told is None or told > tell_within:
        problems.append(f"/health did not say degraded within {tell_within:g} s")
    if found["ok_again_after_sec"] is None:
        problems.append(f"/health was not ok within {tell_within:g} s of the flood's end")
    if found["double_counts"] or found["mismatches"] or found["counted"] != found["scheduled"]:
        problems.append("the league did not complete with every match counted once")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2, help="flooding processes, at least")
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument(
        "--capacity",
        type=int,
        default=2,
        help="matches each of the 2 referees plays at once (2: the league lasts about 35 s)",
    )
    parser.add_argument(
        "--hold", type=float, default=10, help="seconds the connections are held once all open"
    )
    parser.add_argument(
        "--open-within", type=float, default=60, help="seconds the connections may take to open"
    )
    parser.add_argument(
        "--tell-within",
        type=float,
        default=15,
        help="seconds /health may take to say degraded, and to be ok after the flood",
    )
    parser.add_argument("--every", type=float, default=0.25, help="seconds between samples")
    parser.add_argument("--timeout", type=float, default=120, help="seconds the league may take")
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    args = parser.parse_args()
    if args.connections < 1 or args.workers < 1 or args.capacity < 1 or args.players < 2:
        parser.error(
            "--connections, --workers and --capacity must be positive, --players at least 2"
        )
    stop_on_signals()
    with tempfile.TemporaryDirectory(prefix="league-flood-") as folder:
        found = flood_league(args, Path(folder))
    report(found)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))
    problems = failures(found, args.tell_within)
    for problem in problems:
        print(f"FAILED: {problem}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

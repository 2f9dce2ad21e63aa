"""Leagues whose own processes die part-way, every agent a real process on loopback with a
private SHARED folder, and the checks that say a league came through: it completed, every
scheduled match was counted exactly once, and ``standings.json`` equals the standings
recomputed from the referees' match files.

Kills are chosen by progress (after k results, read from ``GET /status``), never by
sleeping, so a kill lands where it was meant to on a fast machine and a slow one alike.
Used by ``tests/reliability/test_crash_recovery.py`` (a few kills) and ``bench/soak.py``
(many).
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import LeaguePlan, start_processes, wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir
from tests.match_files import match_files, recompute_standings, scheduled_rounds
from tests.postgres import accepted_rows

__all__ = [
    "FAST_STRATEGIES",
    "LEAGUE",
    "CrashLeague",
    "LeagueCheck",
    "check_league",
    "kill_points",
    "league_shared_dir",
    "running_league",
]

LEAGUE = "league_2025_even_odd"
FAST_STRATEGIES = ("random", "fixed", "history")
"""Strategies that answer at once (run inline by the player host)."""
_POLL_SEC = 0.02
"""How often progress is read while waiting for a kill point."""


@dataclass
class CrashLeague:
    """A running league under test: its processes, the League Manager's fixed port (a
    restarted League Manager comes back on it, where every agent knows it) and a client."""

    shared: SharedDir
    launcher: Launcher
    client: httpx.Client
    lm: AgentProcess
    store_url: str | None = None
    """The League Manager's PostgreSQL store (None: its JSON files)."""
    restarts_sec: list[float] = field(default_factory=list)
    """How long each restart took, from the kill to a healthy League Manager."""

    @property
    def lm_url(self) -> str:
        return self.lm.base_url

    @property
    def league_dir(self) -> Path:
        return self.shared.league_dir(LEAGUE)

    def status(self) -> dict[str, Any]:
        response = self.client.get(f"{self.lm_url}/status")
        response.raise_for_status()
        return response.json()  # type: ignore[no-any-return]

    def start(self) -> int:
        """Start the league as the admin does; returns its number of matches."""
        token = (self.league_dir / "admin_token").read_text().strip()
        response = self.client.post(
            f"{self.lm_url}/start_league", headers={"Authorization": f"Bearer {token}"}
        )
        assert response.status_code == 200, response.text
        return int(response.json()["total_matches"])

    def process(self, name: str) -> AgentProcess:
        """A running agent by its launcher name (``referee-Ref1``, ``player-Player3``)."""
        return next(p for p in self.launcher.processes if p.name == name and p.popen.poll() is None)

    def kill(self, process: AgentProcess) -> None:
        """SIGKILL one process by its pid (no shutdown code runs), and reap it."""
        os.kill(process.popen.pid, signal.SIGKILL)
        process.popen.wait(10)

    def stop_manager(self) -> None:
        """SIGKILL the League Manager (it is never asked to shut down cleanly here)."""
        self.kill(self.lm)

    def start_manager(self, *, healthy: bool = True) -> AgentProcess:
        """Start the League Manager again on the same port and data folder."""
        self.lm = self.launcher.manager(self.lm.port, LEAGUE, store_url=self.store_url)
        if healthy:
            self.launcher.wait_healthy(self.lm)
        return self.lm

    def restart_manager(self) -> None:
        """Kill the League Manager and start it again; the time it took is kept."""
        started = time.monotonic()
        self.stop_manager()
        self.start_manager()
        self.restarts_sec.append(time.monotonic() - started)

    def wait_completed(self, timeout: float) -> dict[str, Any]:
        """Wait for the league's end; returns the final ``GET /standings``."""
        wait_for(
            lambda: self.status()["state"] == "COMPLETED",
            timeout,
            "the league to complete",
            interval=_POLL_SEC,
        )
        return self.client.get(f"{self.lm_url}/standings").json()  # type: ignore[no-any-return]

    def kill_manager_at(self, points: list[int], timeout: float) -> int:
        """Kill and restart the League Manager as soon as the number of results counted
        reaches each of ``points`` (a point already passed: at once, so a kill can also land
        while a restarted League Manager resumes). Returns the kills done (the league may
        complete before the last point)."""
        kills = 0
        for point in points:
            status = wait_for(
                lambda p=point: _reached(self.status(), p),
                timeout,
                f"{point} results",
                interval=_POLL_SEC,
            )
            if status["state"] == "COMPLETED":
                break
            self.restart_manager()
            kills += 1
        return kills


def _reached(status: dict[str, Any], point: int) -> dict[str, Any] | None:
    done = status["state"] == "COMPLETED" or status["matches_completed"] >= point
    return status if done else None


def kill_points(total: int, kills: int, seed: int) -> list[int]:
    """``kills`` distinct numbers of results in the league's first two thirds (in
    1..total-1 when those hold fewer), drawn with ``seed``, ascending: the moments the
    League Manager dies. Not later: a restarted League Manager resumes at once, and a test
    process short of CPU on a loaded runner may look again only once the league is over
    (seen in CI: 120 results, the third kill due at 99)."""
    early = range(1, total * 2 // 3)
    span = early if len(early) >= kills else range(1, total)
    return sorted(random.Random(seed).sample(span, min(kills, len(span))))


def league_shared_dir(
    root: Path,
    *,
    match_timeout_sec: float = 10,
    system: dict[str, Any] | None = None,
    league: dict[str, Any] | None = None,
) -> SharedDir:
    """A private SHARED folder under ``root`` for ``LEAGUE``: ``match_timeout_sec`` is the
    league's; ``system`` and ``league`` override entries of ``system.json`` and of the
    league's config."""
    shared = make_shared_dir(root / "SHARED", **(system or {}))
    league_path = shared.config_dir / "leagues" / f"{LEAGUE}.json"
    config = json.loads(league_path.read_text())
    league_path.write_text(
        json.dumps({**config, "match_timeout_sec": match_timeout_sec, **(league or {})})
    )
    return shared


@contextmanager
def running_league(
    root: Path,
    *,
    players: int,
    referees: int = 2,
    capacity: int = 4,
    strategies: tuple[str, ...] = FAST_STRATEGIES,
    match_timeout_sec: float = 10,
    system: dict[str, Any] | None = None,
    league: dict[str, Any] | None = None,
    store_url: str | None = None,
) -> Iterator[CrashLeague]:
    """A League Manager, ``referees`` referees (``Ref1``…) and ``players`` players
    (``Player1``…, strategies in turn), all registered; every process stopped by its pid
    on the way out. ``match_timeout_sec`` is the league's; ``system`` and ``league``
    override entries of ``system.json`` and of the league's config; ``store_url`` is the
    League Manager's PostgreSQL store (None: its JSON files)."""
    shared = league_shared_dir(
        root, match_timeout_sec=match_timeout_sec, system=system, league=league
    )
    launcher = Launcher(shared.root)
    plan = LeaguePlan(
        shared_dir=shared.root,
        lm_port=free_port(),
        league_id=LEAGUE,
        players=[
            (f"Player{i + 1}", free_port(), strategies[i % len(strategies)]) for i in range(players)
        ],
        referees=[(f"Ref{i + 1}", free_port(), capacity) for i in range(referees)],
        store_url=store_url,
    )
    try:
        with httpx.Client(timeout=10) as client:
            start_processes(plan, launcher, client)
            manager = next(p for p in launcher.processes if p.kind == "manager")
            yield CrashLeague(shared, launcher, client, manager, store_url)
    finally:
        launcher.stop_all()


@dataclass
class LeagueCheck:
    """What the files of a finished league say."""

    scheduled: int
    counted: int
    """Results in the journal or the database (each match must be there exactly once)."""
    double_counts: list[str]
    """Matches journaled more than once."""
    mismatches: list[str]
    """Everything else that disagrees: a match never counted or without its match file,
    a journaled winner that is not the match file's, a player whose standings.json row is
    not what the match files give, or standings.json not the final GET /standings."""

    @property
    def sound(self) -> bool:
        return not self.double_counts and not self.mismatches


def check_league(
    shared: SharedDir, final: dict[str, Any], store_url: str | None = None
) -> LeagueCheck:
    """Check a finished league's results (its journal, or the rows of the PostgreSQL store
    at ``store_url``), match files and standings against each other and against ``final``,
    the League Manager's last ``GET /standings``."""
    league_dir = shared.league_dir(LEAGUE)
    scheduled = [m.match_id for r in scheduled_rounds(shared, LEAGUE, store_url) for m in r.matches]
    journal = (
        [
            json.loads(line)
            for line in (league_dir / "journal.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        if store_url is None
        else accepted_rows(store_url, LEAGUE)
    )
    counts = Counter(record["match_id"] for record in journal)
    double = sorted(match_id for match_id, count in counts.items() if count > 1)
    mismatches = [f"{match_id}: never counted" for match_id in scheduled if match_id not in counts]
    mismatches += [
        f"{match_id}: counted but not scheduled" for match_id in counts if match_id not in scheduled
    ]
    files = {match["match_id"]: match for match in match_files(shared, LEAGUE)}
    winners = {record["match_id"]: record["winner"] for record in journal}
    for match_id in scheduled:
        match = files.get(match_id)
        if match is None or not match.get("result"):
            mismatches.append(f"{match_id}: no match file with a result")
        elif match_id in winners and match["result"]["report"]["winner"] != winners[match_id]:
            mismatches.append(
                f"{match_id}: journaled winner {winners[match_id]}, match file "
                f"{match['result']['report']['winner']}"
            )
    on_disk = json.loads((league_dir / "standings.json").read_text())
    recomputed = recompute_standings(shared, LEAGUE, list(files.values()))
    for row in on_disk["standings"]:
        mine = recomputed.get(row["player_id"], Counter())
        fields = ("played", "wins", "draws", "losses", "points")
        if tuple(row[f] for f in fields) != tuple(mine[f] for f in fields):
            mismatches.append(
                f"{row['player_id']}: standings.json "
                f"{[row[f] for f in fields]}, match files "
                f"{[mine[f] for f in fields]}"
            )
    if on_disk["standings"] != final["standings"] or on_disk["version"] != len(journal):
        mismatches.append("standings.json is not the final standings")
    return LeagueCheck(len(scheduled), len(journal), double, mismatches)

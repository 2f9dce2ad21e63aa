"""The README's one-command league: scripts/start_league.sh and scripts/stop_league.sh as a
user runs them, on free loopback ports and a private SHARED folder."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from league_cli.kept_leagues import STATE_DIR_ENV
from tests.conftest import REPO_ROOT, free_port_block, make_shared_dir
from tests.postgres import accepted_rows

pytestmark = pytest.mark.e2e


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_start_then_stop_exactly_what_was_started(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    env = {**os.environ, STATE_DIR_ENV: str(tmp_path / "state")}  # the record of kept leagues
    base = free_port_block(6)
    started = subprocess.run(
        [
            "bash",
            "scripts/start_league.sh",
            "--shared-dir",
            str(shared.root),
            "--players",
            "3",
            "--referees",
            "1",
            "--lm-port",
            str(base),
            "--referee-port",
            str(base + 1),
            "--player-port",
            str(base + 2),
            "--play-port",
            str(base + 5),
            "--strategies",
            "random,fixed",
            "--keep",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )
    run_dir = shared.root / "run"
    pid_files = sorted(run_dir.glob("*.pid"))
    pids = [json.loads(path.read_text())["pid"] for path in pid_files]
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert started.returncode == 0, started.stdout + started.stderr
        assert "Final standings" in started.stdout
        assert len(pid_files) == 6, [p.name for p in pid_files]  # with the play service
        assert all(alive(pid) for pid in pids), "--keep leaves the league running"
        (run_dir / "decoy.pid").write_text(
            json.dumps({"pid": decoy.pid, "name": "decoy", "command": ["not", "what", "runs"]})
        )

        stopped = subprocess.run(  # no --shared-dir: start_league.sh recorded where it ran
            ["bash", "scripts/stop_league.sh"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert stopped.returncode == 0, stopped.stderr
        assert "stopped 6 process(es) in " in " ".join(stopped.stdout.split())
        assert not any(alive(pid) for pid in pids), "a league process survived stop_league.sh"
        assert decoy.poll() is None, "stop_league.sh killed a process it did not start"
        assert not list(run_dir.glob("*.pid")), "pid files are cleaned up"
    finally:
        decoy.kill()
        decoy.wait()
        for pid in pids:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_help_installs_nothing_and_names_every_option_of_league_up(tmp_path: Path) -> None:
    """``start_league.sh --help`` answers before any install (a copy of the script with no
    .venv beside it stays without one), and its list of options is ``league up``'s."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(REPO_ROOT / "scripts" / "start_league.sh", tmp_path / "scripts")
    helped = subprocess.run(
        ["bash", "scripts/start_league.sh", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    league_up = subprocess.run(
        [sys.executable, "-m", "league_cli", "up", "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    options = {word for word in league_up.stdout.split() if word.startswith("--")}
    listed = {word for word in helped.stdout.split() if word.startswith("--")}
    assert helped.returncode == 0, helped.stderr
    assert not (tmp_path / ".venv").exists()
    assert {"--players", "--shared-dir", "--stop"} <= options, league_up.stdout
    assert options - listed == set(), (
        f"options of `league up` the help does not list: {options - listed}"
    )


def test_the_script_runs_a_league_on_postgresql(tmp_path: Path, database_url: str) -> None:
    """``scripts/start_league.sh --store postgresql://…`` as the README gives it: the league
    completes, its results are the database's rows (no journal), and ``--stop`` leaves no
    process behind."""
    shared = make_shared_dir(tmp_path / "SHARED")
    env = {**os.environ, STATE_DIR_ENV: str(tmp_path / "state")}
    base = free_port_block(7)  # the players' ports from base + 2, one each
    ports = ("--lm-port", "--referee-port", "--player-port", "--play-port")
    started = subprocess.run(
        ["bash", "scripts/start_league.sh", "--shared-dir", str(shared.root), "--store",
         database_url, "--players", "4", "--referees", "1", "--strategies", "random,fixed",
         *(arg for flag, port in zip(ports, (base, base + 1, base + 2, base + 6), strict=True)
           for arg in (flag, str(port))),
         "--stop"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=180, env=env,
    )  # fmt: skip
    pids = [json.loads(p.read_text())["pid"] for p in (shared.root / "run").glob("*.pid")]
    rows = accepted_rows(database_url, "league_2025_even_odd")
    journal = shared.league_dir("league_2025_even_odd") / "journal.jsonl"
    assert started.returncode == 0, started.stdout + started.stderr
    assert "Final standings" in started.stdout
    assert len(rows) == 6, "every match of four players' round robin, once"
    assert not journal.exists() or journal.stat().st_size == 0, "the results are the database's"
    assert not any(alive(pid) for pid in pids), "--stop stops every process it started"

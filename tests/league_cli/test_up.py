"""``league up`` and ``league down`` with real processes: every agent says in one line
where it listens (and a player or referee under which id it registered), a kept league is
found again by ``league down`` without ``--shared-dir``, and a league that cannot start
leaves no process behind."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league_cli.kept_leagues import STATE_DIR_ENV, kept
from league_cli.launcher import LaunchError
from league_cli.main import app
from league_cli.up import LeaguePlan, run_league
from league_manager.pg import STORE_URL_ENV
from sdk.config import SharedDir
from tests.conftest import free_port, free_port_block, make_shared_dir

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"


def _plan(shared: SharedDir) -> LeaguePlan:
    return LeaguePlan(
        shared_dir=shared.root,
        lm_port=free_port(),
        league_id=LEAGUE,
        players=[(f"Player{n}", free_port(), "random") for n in (1, 2)],
        referees=[("Ref1", free_port(), 2)],
        play_port=free_port(),
    )


def _admin_token(shared: SharedDir) -> str:
    return (shared.league_dir(LEAGUE) / "admin_token").read_text().strip()


def _pids(shared: SharedDir) -> list[int]:
    return [int(json.loads(p.read_text())["pid"]) for p in (shared.root / "run").glob("*.pid")]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _outputs_once_registered(shared: SharedDir, expected: int) -> dict[str, str]:
    """Every process's output, once ``expected`` of them said they registered: ``league up``
    may see a registration at the League Manager before the agent has read its answer."""
    folder = shared.root / "logs" / "processes"
    deadline = time.monotonic() + 30
    while True:
        out = {p.stem: p.read_text() for p in folder.glob("*.out")}
        if sum(" registered as " in said for said in out.values()) >= expected:
            return out
        assert time.monotonic() < deadline, f"not every agent said it registered: {out}"
        time.sleep(0.1)


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private record of kept leagues, and a working folder with no ./SHARED."""
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    monkeypatch.delenv("LEAGUE_SHARED_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path / "state"


def test_agents_say_where_they_listen_and_down_finds_the_kept_league(
    tmp_path: Path, state_dir: Path
) -> None:
    """``league up --shared-dir elsewhere --keep`` as a person runs it, then ``league down``
    with no option, from a folder with no SHARED of its own."""
    shared = make_shared_dir(tmp_path / "elsewhere" / "SHARED")
    base = free_port_block(5)  # the League Manager, the play service, a referee, 2 players
    up = subprocess.run(
        [
            sys.executable,
            "-m",
            "league_cli",
            "up",
            "--shared-dir",
            str(shared.root),
            "--players",
            "2",
            "--referees",
            "1",
            "--lm-port",
            str(base),
            "--play-port",
            str(base + 1),
            "--referee-port",
            str(base + 2),
            "--player-port",
            str(base + 3),
            "--strategies",
            "random",
            "--keep",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    pids = _pids(shared)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        assert len(pids) == 5 and all(_alive(pid) for pid in pids)
        assert kept() == [shared.root.resolve()]
        out = _outputs_once_registered(shared, expected=3)
        url = "http://127.0.0.1:{}"
        assert f"League Manager listening on {url.format(base)}\n" in out["league_manager"]
        assert f"Play service listening on {url.format(base + 1)}\n" in out["play-service"]
        referee = out["referee-Ref1"]
        assert f"Referee Ref1 listening on {url.format(base + 2)}\n" in referee
        assert f"Referee Ref1 registered as REF01 in league {LEAGUE}\n" in referee
        players = [name for name in out if name.startswith("player-")]
        ports = set()
        for name in players:
            said, shown = out[name], name.removeprefix("player-")
            listening = re.search(
                rf"^Player {shown} listening on http://127.0.0.1:(\d+)$", said, re.M
            )
            assert listening, said
            ports.add(int(listening.group(1)))
            assert re.search(rf"^Player {shown} registered as P0\d in league {LEAGUE}$", said, re.M)
        assert ports == {base + 3, base + 4}

        down = CliRunner().invoke(app, ["down"], env={STATE_DIR_ENV: str(state_dir)})
        assert down.exit_code == 0, down.output
        # Compared without whitespace: the console wraps a long path even inside a word.
        said = "".join(down.output.split())
        assert f"stopped5process(es)in{shared.root.resolve()}:league_manager," in said
        assert not any(_alive(pid) for pid in pids), "league down found the league by itself"
        assert not list((shared.root / "run").glob("*.pid"))
        assert kept() == [], "a stopped league is no longer recorded"
    finally:
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_league_up_that_cannot_start_stops_every_process_it_started(
    tmp_path: Path, state_dir: Path
) -> None:
    """A league run with ``--stop`` stops its players once they are told it is over. Then
    the data folder of that league: its League Manager refuses the new referee and
    players, and ``league up`` fails, stopping all it started."""
    shared = make_shared_dir(tmp_path / "SHARED")
    run_league(_plan(shared), lambda: _admin_token(shared), stop_at_end=True)
    logs = sorted((shared.logs_dir / "agents").glob("P*.log.jsonl"))
    assert len(logs) == 2, logs
    for log in logs:
        received = [json.loads(line) for line in log.read_text().splitlines()]
        assert any(
            r["event"] == "message_received" and r.get("message_type") == "LEAGUE_COMPLETED"
            for r in received
        ), f"{log.name}: stopped before it was told the league is over"
    with pytest.raises(LaunchError, match="the league has completed"):
        run_league(_plan(shared), lambda: _admin_token(shared), stop_at_end=False)
    assert not list((shared.root / "run").glob("*.pid")), "every process was stopped"
    assert kept() == [], "nothing is left running, so nothing is recorded"


def test_a_league_manager_that_cannot_use_its_store_ends_league_up_with_its_code_2(
    tmp_path: Path, state_dir: Path
) -> None:
    """``league up --store`` a PostgreSQL nobody serves: its League Manager exits 2 (the
    store, doc/reliability.md), and so does ``league up``, in one line with its reason."""
    shared = make_shared_dir(tmp_path / "SHARED")
    base = free_port_block(5)  # the League Manager, the play service, a referee, 2 players
    closed = free_port()  # nobody listens there
    env = {key: value for key, value in os.environ.items() if key != STORE_URL_ENV}
    up = subprocess.run(
        [sys.executable, "-m", "league_cli", "up", "--shared-dir", str(shared.root),
         "--players", "2", "--referees", "1", "--lm-port", str(base), "--play-port",
         str(base + 1), "--referee-port", str(base + 2), "--player-port", str(base + 3),
         "--store", f"postgresql://127.0.0.1:{closed}/x", "--stop"],
        capture_output=True, text=True, env={**env, "COLUMNS": "500"}, timeout=60, check=False,
    )  # fmt: skip
    lines = (up.stdout + up.stderr).splitlines()
    assert up.returncode == 2, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: league_manager exited with code 2 (error: cannot reach "
                               f"PostgreSQL at 127.0.0.1:{closed}: "), lines  # fmt: skip
    assert not list((shared.root / "run").glob("*.pid")), "nothing is left running"

"""bench/scale_http.py: many real player apps behind one port, each its own player, and a
small league measured with real League Manager, referee and player-host processes; however
a run ends (measured, failed, interrupted), its processes are stopped and its folder gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.scale_http import HostedPlayerSettings, LeagueRun, player_host_app, run_league
from league_cli.launcher import AgentProcess, Launcher, LaunchError
from sdk.config import SharedDir
from tests.conftest import REPO_ROOT
from tests.players.conftest import LM_URL, parity_call


def _hosted(shared_dir: SharedDir, key: int, player_id: str) -> HostedPlayerSettings:
    return HostedPlayerSettings(
        shared_dir=shared_dir.root,
        port=9,
        path=f"/p/{key}",
        display_name=f"Bench{key}",
        league_manager_url=LM_URL,
        join_league=False,
        player_id=player_id,
    )


async def _rpc(client: httpx.AsyncClient, path: str, params: dict[str, Any]) -> dict[str, Any]:
    response = await client.post(
        path, json={"jsonrpc": "2.0", "method": "choose_parity", "params": params, "id": 1}
    )
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def test_each_path_is_its_own_player(shared_dir: SharedDir) -> None:
    settings = [_hosted(shared_dir, 0, "P01"), _hosted(shared_dir, 1, "P02")]
    assert settings[1].contact_endpoint == "http://127.0.0.1:9/p/1/mcp"
    app = player_host_app(settings)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client,
    ):
        first = await _rpc(client, "/p/0/mcp", parity_call(player_id="P01"))
        second = await _rpc(client, "/p/1/mcp", parity_call(player_id="P02", opponent_id="P01"))
        misrouted = await _rpc(client, "/p/0/mcp", parity_call(player_id="P02"))
        health = (await client.get("/p/1/health")).json()
        host = (await client.get("/health")).json()
        unknown = await client.post("/p/7/mcp", json={})

    assert first["result"]["sender"] == "player:P01"
    assert first["result"]["parity_choice"] in ("even", "odd")
    assert second["result"]["sender"] == "player:P02"
    refusal = misrouted["result"]
    assert (refusal["message_type"], refusal["error_code"]) == ("LEAGUE_ERROR", "E005")
    assert "this is player P01" in refusal["error_description"]
    assert health["player_id"] == "P02"
    assert host == {"status": "ok", "agent": "player_host", "players": 2, "registered": 0}
    assert unknown.status_code == 404
    assert unknown.json()["detail"] == (
        "no player is served at /p/7; this host serves /p/0 to /p/1"
    )


@pytest.fixture
def started_pids(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The pid of every process the benchmark starts, also when it fails."""
    pids: list[int] = []
    start = Launcher.start

    def recording(self: Launcher, *args: Any, **kwargs: Any) -> AgentProcess:
        process = start(self, *args, **kwargs)
        pids.append(process.popen.pid)
        return process

    monkeypatch.setattr(Launcher, "start", recording)
    yield pids


def _alive(pids: list[int]) -> list[int]:
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()]


@pytest.mark.e2e
def test_a_small_league_is_measured_and_every_process_stopped(temp_root: Path) -> None:
    row = run_league(LeagueRun(players=8, referees=2, capacity=2, rounds=1))

    assert row["rounds_played"] >= 1 and row["matches"] >= 4
    assert row["technical_losses"] == 0
    assert row["played_sum"] == 2 * row["standings_matches"] >= 2 * row["matches"]
    assert row["cpu_s"]["league_manager"] > 0
    assert set(row["cpu_s"]["referees"]) == {"referee-R1", "referee-R2"}
    assert row["lm_cpu_ms_per_result"] == pytest.approx(
        1000 * row["cpu_s"]["league_manager"] / row["matches"]
    )
    assert row["players_cpu_ms_per_result"] == pytest.approx(
        1000 * sum(row["cpu_s"]["player_hosts"].values()) / row["matches"]
    )
    processes = [row["cpu_s"]["league_manager"], *row["cpu_s"]["referees"].values()]
    assert row["whole_cpu_ms_per_result"] == pytest.approx(
        1000 * (sum(processes) + sum(row["cpu_s"]["player_hosts"].values())) / row["matches"]
    )
    assert row["file_create_us"] > 0, "the files made before the league were timed"
    assert row["phases_s"]["rounds_timed"] >= 1
    assert 0 < row["first_result_s"] <= row["round_ends_s"][0]
    assert row["peak_rss_mb"]["league_manager"] > 10
    gone = [pid for pid in row["pids"].values() if Path(f"/proc/{pid}").exists()]
    assert gone == [], f"still running after the benchmark: {gone}"
    assert list(temp_root.iterdir()) == [], "the run's temporary folder is left behind"


@pytest.mark.e2e
def test_a_failed_run_stops_its_processes_and_removes_its_folder(
    temp_root: Path, started_pids: list[int]
) -> None:
    with pytest.raises(LaunchError, match="rounds completed within 0 s"):
        run_league(LeagueRun(players=4, referees=1, capacity=2, timeout=0))

    assert len(started_pids) == 3, started_pids  # League Manager, referee, player host
    assert _alive(started_pids) == [], "still running after the failed run"
    assert list(temp_root.iterdir()) == [], "the failed run's temporary folder is left behind"


def _pid_files(temp_root: Path) -> list[Path]:
    return sorted(temp_root.glob("league-load-*/SHARED/run/*.pid"))


@pytest.mark.e2e
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_stops_its_processes_and_removes_its_folder(
    temp_root: Path, signum: signal.Signals
) -> None:
    """The benchmark as a user runs it, interrupted once every process is started."""
    bench = subprocess.Popen(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "scale_http.py"),
            "--players",
            "20",
            "--referees",
            "1",
            "--capacity",
            "2",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "TMPDIR": str(temp_root)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_pid_files(temp_root)) < 3 and bench.poll() is None:
            assert time.monotonic() < deadline, "the benchmark did not start its processes"
            time.sleep(0.05)
        pids = [json.loads(path.read_text())["pid"] for path in _pid_files(temp_root)]
        assert bench.poll() is None, "the run ended before it could be interrupted"
        bench.send_signal(signum)
        output, _ = bench.communicate(timeout=60)
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait(10)

    assert bench.returncode == 130, output.decode(errors="replace")
    assert b"interrupted: every process this run started is stopped" in output
    assert len(pids) == 3 and _alive(pids) == [], f"still running: {_alive(pids)}"
    assert list(temp_root.iterdir()) == [], "the interrupted run's folder is left behind"

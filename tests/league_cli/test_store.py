"""``league store export`` and ``league store import`` as a user runs them: a real league
played to the end by real processes, moved to a real PostgreSQL and back into another
SHARED folder, where a real League Manager serves the same standings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import LeaguePlan, run_league
from league_manager.pg import STORE_URL_ENV
from league_manager.pg.league_folder import read_league_folder
from sdk.config import SharedDir
from sdk.store import Journal
from tests.conftest import free_port, make_shared_dir

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"


def league_store(shared: SharedDir, *args: str) -> tuple[int, list[str]]:
    """Run ``league store ...``; its exit code and the lines it printed."""
    env = {key: value for key, value in os.environ.items() if key != STORE_URL_ENV}
    done = subprocess.run(
        [sys.executable, "-m", "league_cli", "store", *args, "--shared-dir", str(shared.root),
         "--league-id", LEAGUE],
        capture_output=True, text=True, env={**env, "COLUMNS": "500"}, timeout=60, check=False,
    )  # fmt: skip
    return done.returncode, (done.stdout + done.stderr).splitlines()


def played_league(shared: SharedDir, store_url: str | None = None) -> dict[str, Any]:
    """A four-player league played to the end by real processes in ``shared`` (its League
    Manager on the store at ``store_url``, where given); its final standings."""
    plan = LeaguePlan(
        shared_dir=shared.root,
        players=[(f"Player{n}", free_port(), "random") for n in range(1, 5)],
        referees=[("Ref1", free_port(), 2)],
        lm_port=free_port(),
        league_id=LEAGUE,
        store_url=store_url,
    )
    token = shared.admin_token_path(LEAGUE)
    standings = run_league(plan, lambda: token.read_text().strip(), stop_at_end=True, timeout=120)
    assert standings["matches_completed"] == standings["total_matches"] == 6
    return standings


def test_a_played_league_moved_to_postgresql_and_back_keeps_its_standings(
    tmp_path: Path, database_url: str
) -> None:
    original = make_shared_dir(tmp_path / "original")
    standings = played_league(original)
    password = urlsplit(database_url).password
    assert password

    code, lines = league_store(original, "export", "--store", database_url)
    assert code == 0, lines
    assert lines[-1].endswith(": 5 agents, 3 rounds, 6 results"), lines
    assert all(password not in line for line in lines) and ":***@" in lines[-1]
    moved = make_shared_dir(tmp_path / "moved")
    code, lines = league_store(moved, "import", "--store", database_url)
    assert code == 0, lines
    assert lines[-1].endswith(": 5 agents, 3 rounds, 6 results"), lines

    before, after = read_league_folder(original, LEAGUE), read_league_folder(moved, LEAGUE)
    assert after.notes == []
    assert after.agents == before.agents and after.tokens == before.tokens
    assert after.registration_keys == before.registration_keys
    assert after.rounds == before.rounds and after.status == before.status
    assert [r.status for r in after.rounds] == ["COMPLETED"] * 3
    journals = [Journal.read(s.league_dir(LEAGUE) / "journal.jsonl") for s in (original, moved)]
    assert [r["match_id"] for r in journals[1]] == [r["match_id"] for r in journals[0]]
    assert len({r["match_id"] for r in journals[1]}) == 6
    assert after.results == before.results
    for name in ("admin_token", "referee_secret"):
        assert (moved.league_dir(LEAGUE) / name).read_text() == (
            original.league_dir(LEAGUE) / name
        ).read_text()

    launcher = Launcher(moved.root)
    try:
        manager = launcher.manager(free_port(), LEAGUE)
        launcher.wait_healthy(manager)
        with httpx.Client(timeout=10) as client:
            served = client.get(f"{manager.base_url}/standings").json()
            status = client.get(f"{manager.base_url}/status").json()
    finally:
        launcher.stop_all()
    assert served == standings
    assert status["state"] == "COMPLETED" and status["matches_completed"] == 6


def test_a_league_played_on_postgresql_moved_to_files_keeps_its_standings(
    tmp_path: Path, database_url: str
) -> None:
    """Every part of a league run with --store is in the database: its schedule, registry
    and results come out whole, and a League Manager on the files serves its standings."""
    played = make_shared_dir(tmp_path / "played")
    standings = played_league(played, database_url)
    assert not (played.league_dir(LEAGUE) / "rounds.json").exists(), "the schedule is a file"

    moved = make_shared_dir(tmp_path / "moved")
    code, lines = league_store(moved, "import", "--store", database_url)
    assert code == 0, lines
    assert lines[-1].endswith(": 5 agents, 3 rounds, 6 results"), lines
    after = read_league_folder(moved, LEAGUE)
    assert after.notes == []
    assert [r.status for r in after.rounds] == ["COMPLETED"] * 3
    launcher = Launcher(moved.root)
    try:
        manager = launcher.manager(free_port(), LEAGUE)
        launcher.wait_healthy(manager)
        with httpx.Client(timeout=10) as client:
            served = client.get(f"{manager.base_url}/standings").json()
    finally:
        launcher.stop_all()
    assert served == standings


def test_an_export_the_database_already_holds_is_refused(tmp_path: Path, database_url: str) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    folder = shared.league_dir(LEAGUE)
    folder.mkdir(parents=True)
    (folder / "agents.json").write_text('{"seq": 0, "agents": []}')
    (folder / "secrets.json").write_text('{"seq": 0, "tokens": {}}')
    assert league_store(shared, "export", "--store", database_url)[0] == 0
    code, lines = league_store(shared, "export", "--store", database_url)
    assert code == 2
    assert len(lines) == 1 and lines[0].startswith("error: the database 127.0.0.1:"), lines
    assert lines[0].endswith(f"holds league {LEAGUE} already: give --replace to overwrite it")
    assert league_store(shared, "export", "--store", database_url, "--replace")[0] == 0


def test_an_unreachable_database_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    port = free_port()  # nobody listens there
    for command in ("export", "import"):
        folder = shared.league_dir(LEAGUE)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "agents.json").write_text('{"seq": 0, "agents": []}')
        code, lines = league_store(
            shared, command, "--store", f"postgresql://league:hunter2@127.0.0.1:{port}/league"
        )
        assert code == 2, lines
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"error: cannot reach PostgreSQL at 127.0.0.1:{port}: "), lines
        assert "hunter2" not in lines[0]
        (folder / "agents.json").unlink()


def test_a_missing_league_folder_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    code, lines = league_store(shared, "export", "--store", "postgresql://u:p@127.0.0.1:1/db")
    assert code == 2
    folder = shared.league_dir(LEAGUE)
    assert lines == [f"error: {folder} holds no league {LEAGUE}: nothing to export"]

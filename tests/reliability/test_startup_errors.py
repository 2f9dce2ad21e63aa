"""An agent that cannot start says so in one line, never a traceback: exit 2 when the file
system keeps it from starting (a read-only folder, a full disk, a directory or a file where
the other should be), 1 for a bad configuration or a damaged file. Each case starts the real
``league`` command; a read-only or full file system is a tmpfs the test mounts (tests run as
root, which ignores permissions but not a read-only mount), skipped where mounting is not
permitted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import TinyDisk, free_port, make_shared_dir, mounted_tmpfs
from tests.postgres import PostgresServer
from tests.reliability.services import TRACEBACK_MARKS

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_even_odd"
EXIT_FILE_SYSTEM = 2

AGENT_ARGS = {"manager": [], "referee": ["--standalone"], "player": ["--standalone"]}
"""Each agent as it starts alone (no League Manager to register with)."""


@dataclass(frozen=True)
class Refusal:
    """How a start ended: the exit code and everything the process printed."""

    code: int
    output: str
    """Everything printed: stdout, then stderr."""
    stderr: str = ""

    @property
    def line(self) -> str:
        """The one line printed (checked: one, and no traceback)."""
        lines = self.output.splitlines()
        assert len(lines) == 1, self.output
        assert not any(mark in self.output for mark in TRACEBACK_MARKS), self.output
        return lines[0]


def start_refused(
    agent: str, shared: Path, *args: str, env: dict[str, str] | None = None
) -> Refusal:
    """Start ``league AGENT`` on ``shared`` (``env``: variables added to this process's)
    and wait for it to give up, as each case here must; one still running after the wait is
    killed (``subprocess.run``'s timeout), and the case fails."""
    ended = subprocess.run(
        [
            sys.executable,
            "-m",
            "league_cli",
            agent,
            "--shared-dir",
            str(shared),
            "--port",
            str(free_port()),
            *AGENT_ARGS[agent],
            *args,
        ],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )
    stderr = ended.stderr.decode(errors="replace")
    return Refusal(ended.returncode, ended.stdout.decode(errors="replace") + stderr, stderr)


CASES = [("manager", "data"), ("manager", "logs"), ("referee", "logs"), ("player", "logs")]
"""Each agent against each folder it writes while it starts (the referee and the player
write no data file before their first match)."""


@pytest.mark.parametrize(("agent", "folder"), CASES)
def test_a_read_only_folder_stops_the_start_in_one_line(
    tmp_path: Path, agent: str, folder: str
) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    with mounted_tmpfs(shared / folder, "ro,size=1m") as read_only:
        refusal = start_refused(agent, shared)
    assert refusal.code == EXIT_FILE_SYSTEM, refusal.output
    assert f"cannot write {read_only}/" in refusal.line
    assert "the file system is read-only; make it writable" in refusal.line


@pytest.mark.parametrize(("agent", "folder"), CASES)
def test_a_full_disk_stops_the_start_in_one_line(tmp_path: Path, agent: str, folder: str) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    with mounted_tmpfs(shared / folder, "size=64k") as full:
        TinyDisk(full).fill()
        assert shutil.disk_usage(full).free == 0
        refusal = start_refused(agent, shared)
    assert refusal.code == EXIT_FILE_SYSTEM, refusal.output
    assert f"cannot write {full}/" in refusal.line
    assert "no space left on the device; free some space on it" in refusal.line


@pytest.mark.parametrize("name", ["rounds.json", "agents.json", "journal.jsonl", "admin_token"])
def test_a_directory_where_a_league_file_should_be_stops_the_start_in_one_line(
    tmp_path: Path, name: str
) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    in_the_way = shared / "data" / "leagues" / LEAGUE / name
    (in_the_way / "something").mkdir(parents=True)
    refusal = start_refused("manager", shared)
    assert refusal.code == EXIT_FILE_SYSTEM, refusal.output
    assert (
        f"{in_the_way}: it is a directory where a file should be; move the directory "
        "away" in refusal.line
    )
    assert (in_the_way / "something").is_dir(), "nothing of the user's is touched"


def test_a_directory_where_the_player_history_should_be_stops_the_start_in_one_line(
    tmp_path: Path,
) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    history = shared / "data" / "players" / "P01" / "history.json"
    history.mkdir(parents=True)
    refusal = start_refused("player", shared, "--player-id", "P01")
    assert refusal.code == EXIT_FILE_SYSTEM, refusal.output
    assert f"cannot read {history}: it is a directory where a file" in refusal.line


def test_a_file_where_the_data_folder_should_be_stops_the_start_in_one_line(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    (shared / "data").write_text("not a folder")
    refusal = start_refused("manager", shared)
    assert refusal.code == EXIT_FILE_SYSTEM, refusal.output
    assert f"{shared / 'data'} is a file where a folder should be; move it away" in refusal.line


def test_a_damaged_player_history_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """Damage (not the file system) keeps exit 1, as a damaged league file does."""
    shared = make_shared_dir(tmp_path / "SHARED").root
    history = shared / "data" / "players" / "P01" / "history.json"
    history.parent.mkdir(parents=True)
    history.write_text("{not json")
    refusal = start_refused("player", shared, "--player-id", "P01")
    assert refusal.code == 1, refusal.output
    assert f"{history} is not valid JSON" in refusal.line


def test_negative_points_for_a_win_stop_the_start_in_one_line(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    path = shared.config_dir / "leagues" / f"{LEAGUE}.json"
    league = json.loads(path.read_text())
    league["scoring"]["win"] = -3
    path.write_text(json.dumps(league))
    refusal = start_refused("manager", shared.root)
    assert refusal.code == 1, refusal.output
    assert refusal.line == (
        f"error: {path}: scoring: Value error, win (-3) must be more than "
        "0: a win earns points; win (-3) must be more than draw (1)"
    )


EXIT_NO_DATABASE = 2


@pytest.mark.parametrize("given", ["--store", "env", "system.json"])
def test_an_unreachable_database_stops_the_league_manager_in_one_line_on_stderr(
    tmp_path: Path, given: str
) -> None:
    """Wherever the store URL comes from; its password never shows."""
    url = f"postgresql://league:s3cret-pw@127.0.0.1:{free_port()}/league"
    shared = make_shared_dir(
        tmp_path / "SHARED", **({"store_url": url} if given == "system.json" else {})
    ).root
    refusal = start_refused(
        "manager",
        shared,
        *(["--store", url] if given == "--store" else []),
        env={"LEAGUE_STORE_URL": url} if given == "env" else None,
    )
    assert refusal.code == EXIT_NO_DATABASE, refusal.output
    assert refusal.line == refusal.stderr.strip(), "the line is on stderr"
    assert refusal.line.startswith("error: cannot reach PostgreSQL at 127.0.0.1:"), refusal.line
    assert "s3cret-pw" not in refusal.output
    assert not (shared / "data" / "leagues" / LEAGUE / "journal.jsonl").exists()


def test_a_missing_database_or_a_store_url_of_another_kind_stops_it_in_one_line(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    shared = make_shared_dir(tmp_path / "SHARED").root
    missing = start_refused("manager", shared, "--store", postgres.url("no_such_league"))
    assert missing.code == EXIT_NO_DATABASE, missing.output
    assert "has no database no_such_league: create it" in missing.line
    assert postgres.password not in missing.output
    other = start_refused("manager", shared, "--store", "mysql://league:pw@127.0.0.1/league")
    assert other.code == EXIT_NO_DATABASE, other.output
    assert "is a mysql:// URL, not a PostgreSQL one" in other.line

"""``league db upgrade`` as a user runs it: a subprocess against a real PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from league_manager.pg import STORE_URL_ENV, known_migrations
from sdk.config import SharedDir
from tests.conftest import free_port

pytestmark = pytest.mark.e2e


def league_db_upgrade(
    shared_dir: SharedDir, *args: str, env_url: str | None = None
) -> tuple[int, list[str]]:
    """Run it; its exit code and the lines it printed (stdout and stderr)."""
    env = {key: value for key, value in os.environ.items() if key != STORE_URL_ENV}
    if env_url is not None:
        env[STORE_URL_ENV] = env_url
    done = subprocess.run(
        [sys.executable, "-m", "league_cli", "db", "upgrade", "--shared-dir",
         str(shared_dir.root), *args],
        capture_output=True, text=True, env=env, timeout=60, check=False,
        cwd=Path(shared_dir.root).parent,
    )  # fmt: skip
    return done.returncode, (done.stdout + done.stderr).splitlines()


def test_it_applies_the_migrations_then_says_the_schema_is_current(
    shared_dir: SharedDir, database_url: str
) -> None:
    newest = known_migrations()[-1]
    password = urlsplit(database_url).password
    assert password
    code, lines = league_db_upgrade(shared_dir, "--store", database_url)
    assert code == 0, lines
    assert len(lines) == 1 and lines[0].startswith(f"applied {known_migrations()[0].label}")
    assert lines[0].endswith(f": the schema is at version {newest.version}")
    assert password not in lines[0] and ":***@" in lines[0]

    code, lines = league_db_upgrade(shared_dir, env_url=database_url)
    assert code == 0, lines
    assert len(lines) == 1, lines
    assert lines[0].endswith(f"is current (version {newest.version})")
    assert password not in lines[0]


def test_an_unreachable_database_is_one_error_line_and_exit_2(shared_dir: SharedDir) -> None:
    port = free_port()  # nobody listens there
    code, lines = league_db_upgrade(
        shared_dir, "--store", f"postgresql://league:hunter2@127.0.0.1:{port}/league"
    )
    assert code == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: cannot reach PostgreSQL at 127.0.0.1:{port}: "), lines
    assert "hunter2" not in lines[0]


def test_no_store_url_anywhere_is_exit_2(shared_dir: SharedDir) -> None:
    code, lines = league_db_upgrade(shared_dir)
    assert code == 2
    assert lines == [
        "error: no store URL: give --store postgresql://USER:PASSWORD@HOST:PORT/DATABASE, or set "
        "$LEAGUE_STORE_URL or store_url in system.json"
    ]

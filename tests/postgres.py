"""A throw-away PostgreSQL for the tests of the PostgreSQL store: a cluster made by
``initdb`` in a temporary folder and served by ``pg_ctl`` on a free loopback port, one per
test session (per xdist worker), and a fresh database per test. Never a mock.

``initdb`` refuses to run as root: where the tests run as root, the cluster's programs run
as the ``postgres`` system user (``runuser``), in a folder it owns. The superuser is
``postgres`` with a password made for the session (so the URLs carry one, as real ones
do, and a wrong one is refused)."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests.ports import free_port

SUPERUSER = "postgres"
SYSTEM_USER = "postgres"
"""Who runs the cluster's programs when the tests run as root."""


def server_bindir() -> Path | None:
    """The folder of PostgreSQL's server programs (initdb, pg_ctl): ``pg_config --bindir``
    where it holds them (Debian's points at the client's folder), else the newest
    ``/usr/lib/postgresql/<version>/bin``; None where there is none."""
    candidates: list[Path] = []
    if shutil.which("pg_config"):
        found = subprocess.run(
            ["pg_config", "--bindir"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if found:
            candidates.append(Path(found))
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda path: int(path.parent.name) if path.parent.name.isdigit() else 0,
        reverse=True,
    )
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


@dataclass
class PostgresServer:
    """A running cluster: its port, its superuser's password, and how to reach it."""

    bindir: Path
    root: Path
    port: int
    password: str
    startup_sec: float = 0.0
    """How long initdb and the start took (the fixture's cost, per worker)."""

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    def url(self, database: str = "postgres", password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{SUPERUSER}:{secret}@127.0.0.1:{self.port}/{database}"

    def _run(self, *args: str) -> None:
        """Run one of the cluster's programs (as the postgres user under root).

        Raises:
            RuntimeError: it failed; the message holds its output.
        """
        command = [str(self.bindir / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", SYSTEM_USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
            raise RuntimeError(
                f"{args[0]} exited {done.returncode}: {done.stdout}{done.stderr}{tail}"
            )

    def start(self) -> None:
        started = time.monotonic()
        pwfile = self.root / "pwfile"
        pwfile.write_text(self.password + "\n")
        if os.geteuid() == 0:
            shutil.chown(self.root, SYSTEM_USER, SYSTEM_USER)
            shutil.chown(pwfile, SYSTEM_USER, SYSTEM_USER)
        self._run(
            "initdb",
            "-D",
            str(self.data_dir),
            "-U",
            SUPERUSER,
            "--auth=scram-sha-256",
            f"--pwfile={pwfile}",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        pwfile.unlink()
        self.resume()
        self.startup_sec = time.monotonic() - started

    def resume(self) -> None:
        """Serve the cluster (made by ``start``; again after ``stop``, its data kept)."""
        options = (
            f"-c port={self.port} -c listen_addresses=127.0.0.1 "
            f"-c unix_socket_directories={self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            "pg_ctl", "start", "-w", "-t", "60", "-D", str(self.data_dir),
            "-l", str(self.root / "server.log"), "-o", options,
        )  # fmt: skip

    def stop(self) -> None:
        """Stop the cluster by its own data folder (fast: its sessions are cut)."""
        if (self.data_dir / "postmaster.pid").exists():
            self._run("pg_ctl", "stop", "-w", "-m", "fast", "-D", str(self.data_dir))

    def create_database(self) -> str:
        name = f"league_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        return name

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name))
            )


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """A cluster for as long as the context lasts, stopped and deleted after, or a skip
    where this machine has no PostgreSQL server programs."""
    bindir = server_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server programs (initdb, pg_ctl) on this machine")
    root = Path(tempfile.mkdtemp(prefix="league-pg-"))  # not under pytest's 0700 folders
    server = PostgresServer(bindir, root, free_port(), secrets.token_urlsafe(16))
    try:
        server.start()
        yield server
    finally:
        try:
            server.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL per test session (per xdist worker)."""
    with postgres_server() as server:
        yield server


@pytest.fixture(params=["files", "postgresql"])
def store_url(request: pytest.FixtureRequest) -> str | None:
    """The League Manager's store, for a test of a league on either: None (the JSON files)
    or a fresh PostgreSQL database's URL (``indirect`` parametrization picks one)."""
    if request.param == "files":
        return None
    url: str = request.getfixturevalue("database_url")
    return url


def accepted_rows(url: str, league_id: str) -> list[dict[str, Any]]:
    """The league's results as the database keeps them, in the order they were accepted:
    each one's match id, winner, every player's outcome and points, and the League Manager
    process that wrote the row (``recorded_by``: ``host:pid:nonce``)."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "select r.match_id, r.winner, array_agg(o.player_id), array_agg(o.outcome), "
            "array_agg(o.points), r.recorded_by from results r join result_outcomes o "
            "using (league_id, match_id) where league_id = %s group by r.league_id, "
            "r.match_id, r.seq, r.winner, r.recorded_by order by r.seq",
            (league_id,),
        ).fetchall()
    return [
        {
            "match_id": match_id,
            "winner": winner,
            "outcomes": dict(zip(players, outcomes, strict=True)),
            "points": dict(zip(players, points, strict=True)),
            "recorded_by": recorded_by,
        }
        for match_id, winner, players, outcomes, points, recorded_by in rows
    ]


@pytest.fixture
def database_url(postgres: PostgresServer) -> Iterator[str]:
    """A URL to a fresh, empty database of its own for one test, dropped after it."""
    name = postgres.create_database()
    try:
        yield postgres.url(name)
    finally:
        postgres.drop_database(name)


REFUSAL = "the test refuses writes to this table"
"""The reason a table made to refuse its writes (``refusing``) gives."""


@contextmanager
def refusing(url: str, table: str) -> Iterator[None]:
    """The database refuses every write to ``table`` while the context lasts (a trigger that
    raises ``REFUSAL``), as a server refuses a statement: the League Manager's connections
    and its other tables are untouched, unlike a stopped cluster's."""
    trigger = sql.Identifier(f"refuse_{table}")
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            sql.SQL(
                "create or replace function refuse_writes() returns trigger language plpgsql "
                "as $$ begin raise exception '{}'; end $$"
            ).format(sql.SQL(REFUSAL))
        )
        connection.execute(
            sql.SQL(
                "create trigger {} before insert or update or delete on {} "
                "for each statement execute function refuse_writes()"
            ).format(trigger, sql.Identifier(table))
        )
    try:
        yield
    finally:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(
                sql.SQL("drop trigger {} on {}").format(trigger, sql.Identifier(table))
            )

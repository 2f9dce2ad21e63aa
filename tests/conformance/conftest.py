"""Fixtures of the conformance kit's tests: agents as real processes on free loopback ports
(stopped by pid), and the ``league check-*`` commands run as a student runs them."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, free_port

HERE = Path(__file__).resolve().parent
START_TIMEOUT_SEC = 30.0


@dataclass
class Agent:
    """A process serving /mcp on a loopback port."""

    popen: subprocess.Popen[bytes]
    port: int
    output: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def wait_listening(agent: Agent, timeout: float = START_TIMEOUT_SEC) -> None:
    """Until the port accepts a connection; fail at once if the process exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if agent.popen.poll() is not None:
            raise AssertionError(
                f"the agent exited with {agent.popen.returncode}: {agent.output.read_text()}"
            )
        try:
            with socket.create_connection(("127.0.0.1", agent.port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.02)
    raise AssertionError(f"nothing listens on {agent.port} after {timeout:g} s")


def stop(popen: subprocess.Popen[bytes]) -> None:
    if popen.poll() is None:
        popen.terminate()
        try:
            popen.wait(10)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait(5)


Launch = Callable[..., Agent]


@pytest.fixture
def launch(tmp_path: Path) -> Iterator[Launch]:
    """``launch(*argv)`` starts ``python argv...`` with ``--port`` added, waits until it
    listens and stops it (by its pid) at the end of the test."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> Agent:
        port = free_port()
        output = tmp_path / f"agent-{len(started)}.out"
        with open(output, "wb") as sink:
            popen = subprocess.Popen(
                [sys.executable, *argv, "--port", str(port)],
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                cwd=REPO_ROOT,
            )
        started.append(popen)
        agent = Agent(popen, port, output)
        wait_listening(agent)
        return agent

    try:
        yield start
    finally:
        for popen in started:
            stop(popen)


def broken_player(launch: Launch, fault: str, *extra: str) -> Agent:
    return launch(str(HERE / "broken_player.py"), "--fault", fault, *extra)


def broken_league(launch: Launch, fault: str) -> Agent:
    return launch(str(HERE / "broken_league.py"), "--fault", fault)


def league_command(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``league ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "league_cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO_ROOT,
        env={**os.environ, "COLUMNS": "200"},
    )


def run_check(kind: str, url: str, *args: str) -> tuple[int, dict[str, Any]]:
    """``league check-KIND URL --json ARGS``: the exit status and the report."""
    done = league_command(f"check-{kind}", url, "--json", *args)
    assert done.stdout, f"no report on stdout; stderr: {done.stderr}"
    return done.returncode, json.loads(done.stdout)


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {result["name"]: result["status"] for result in report["results"]}


def failures(report: dict[str, Any]) -> list[str]:
    return [f"{r['name']}: {r['reason']}" for r in report["results"] if r["status"] == "FAIL"]


def unexplained(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The WARNs and FAILs of ``report`` that do not name their field, what was expected,
    what came and the protocol line they rest on."""
    return [
        result
        for result in report["results"]
        if result["status"] in ("WARN", "FAIL")
        and not all(result[key] for key in ("field", "expected", "got", "rests_on"))
    ]

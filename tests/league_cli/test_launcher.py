"""An agent started on a socket bound by the launcher: the port is never free between the
launcher's choice and the agent serving on it, so no other process can take it."""

from __future__ import annotations

import errno
import json
import socket
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from sdk.service import listening_socket
from tests.conftest import make_shared_dir

pytestmark = pytest.mark.e2e


def _bind_fails(port: int) -> bool:
    """True when another socket cannot bind ``port``, even with SO_REUSEADDR (which lets
    it past connections closing in TIME_WAIT, never past a socket bound or listening)."""
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            other.bind(("127.0.0.1", port))
        except OSError as exc:
            assert exc.errno == errno.EADDRINUSE, exc
            return True
    return False


def test_an_agent_serves_on_the_socket_it_was_handed(tmp_path: Path) -> None:
    shared = make_shared_dir(tmp_path / "SHARED")
    launcher = Launcher(shared.root)
    sock = listening_socket()
    port = sock.getsockname()[1]
    unused_lm = "http://127.0.0.1:9/mcp"  # a standalone player never calls it
    try:
        process = launcher.player("Handed", sock, unused_lm, player_id="P01", standalone=True)
        assert sock.fileno() == -1, "the launcher keeps no copy: the port is the agent's"
        assert process.port == port
        assert _bind_fails(port), "the port was free while the agent started"
        launcher.wait_healthy(process)
        health = httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).json()
        assert health["player_id"] == "P01"
        assert json.loads(process.pid_file.read_text())["port"] == port
        assert _bind_fails(port)
    finally:
        launcher.stop_all()
    assert not _bind_fails(port), "the port is still held after the agent stopped"

"""Fixtures every test may use: a private SHARED folder and free loopback ports."""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

import pytest

from sdk.config import SharedDir

REPO_ROOT = Path(__file__).resolve().parent.parent


_HANDED_OUT: set[int] = set()
"""Ports this test process gave out already: the system may offer a released port again at
once, and two agents of one test given the same port collide (one cannot bind, or
registers an endpoint that is taken)."""


def free_port() -> int:
    """A port nobody listens on right now, on 127.0.0.1, never the same twice in a run."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def make_shared_dir(root: Path, **system_overrides: object) -> SharedDir:
    """A copy of the committed SHARED/config under ``root``, with fast retries for tests
    (the protocol's 2 s between retries would make a fault test take minutes)."""
    shutil.copytree(REPO_ROOT / "SHARED" / "config", root / "config")
    system_path = root / "config" / "system.json"
    system = json.loads(system_path.read_text())
    system["retry_policy"] = {"max_retries": 3, "backoff_sec": 0.05,
                              "backoff_multiplier": 1.0, "max_backoff_sec": 0.2}
    system.update(system_overrides)
    system_path.write_text(json.dumps(system, indent=2))
    return SharedDir(root)


@pytest.fixture
def shared_dir(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def port_factory() -> Callable[[], int]:
    return free_port

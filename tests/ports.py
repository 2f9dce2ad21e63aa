"""Free loopback ports for the agents a test or a benchmark starts, apart from the fixtures
(``tests/conftest.py`` hands them to tests; ``tests/postgres.py`` and the benchmarks that start
a PostgreSQL cluster take one too)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

__all__ = ["free_port", "free_port_block"]

_HANDED_OUT: set[int] = set()
"""Ports this test process gave out already: the system may offer a released port again at
once, and two agents of one test given the same port collide (one cannot bind, or
registers an endpoint that is taken)."""


_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0) % _WORKERS
"""This worker's share of the blocks. xdist names the worker that replaces a crashed one
anew (gw2 of 2 workers): without the modulo it matched no block and looped for ever."""
_BLOCK = 64
"""Under pytest-xdist each worker takes its ports from its own blocks of 64 (the system
picks odd ports for a bind to port 0, so a split by parity would starve one worker)."""


def free_port() -> int:
    """A port nobody listens on right now, on 127.0.0.1, never the same twice in a run (nor
    the same as another xdist worker's: ``_WORKER``)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            port = int(sock.getsockname()[1])
        if port not in _HANDED_OUT and (port // _BLOCK) % _WORKERS == _WORKER:
            _HANDED_OUT.add(port)
            return port


def _ephemeral_floor() -> int:
    """The lowest port the system hands to a bind to port 0 or to an outgoing connection."""
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port_block(size: int) -> int:
    """The first of ``size`` consecutive free loopback ports, for scripts that number their
    agents from one base port. The blocks lie below the system's ephemeral range, where
    ``free_port`` and every outgoing connection take theirs, so nothing else of the run
    can take one of them between this check and the script's bind; each xdist worker
    searches its own slice."""
    floor = 20000
    span = (_ephemeral_floor() - floor) // _WORKERS
    start = floor + _WORKER * span
    offset = os.getpid() % max(span - size, 1)
    for step in range(0, span - size, size + 1):
        base = start + (offset + step) % (span - size)
        sockets = []
        try:
            for port in range(base, base + size):
                sock = socket.socket()
                sockets.append(sock)
                sock.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
    raise RuntimeError(f"no block of {size} free ports between {start} and {start + span}")

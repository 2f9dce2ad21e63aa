"""Serving on a socket handed down by the process that chose the port (no free-port race)."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys

import pytest

from sdk.config import ConfigError
from sdk.service import LISTEN_FD_ENV, inherited_socket, listening_socket


def test_a_listening_socket_holds_its_port_from_the_start() -> None:
    sock = listening_socket()
    try:
        port = sock.getsockname()[1]
        assert port > 0
        with socket.socket() as other, pytest.raises(OSError) as taken:
            other.bind(("127.0.0.1", port))
        assert taken.value.errno == errno.EADDRINUSE
    finally:
        sock.close()


def test_without_the_variable_there_is_no_inherited_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(LISTEN_FD_ENV, raising=False)
    assert inherited_socket(8000) is None


def test_the_inherited_socket_is_taken_and_the_variable_removed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with listening_socket() as sock:
        port = sock.getsockname()[1]
        handed = os.dup(sock.fileno())  # what a child process finds: its own descriptor
        monkeypatch.setenv(LISTEN_FD_ENV, str(handed))
        inherited = inherited_socket(port)
        assert inherited is not None
        with inherited:
            assert inherited.fileno() == handed
            assert inherited.getsockname() == ("127.0.0.1", port)
            assert LISTEN_FD_ENV not in os.environ, (
                "a process the agent starts would read the variable again"
            )


def test_a_socket_on_another_port_is_refused_in_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with listening_socket() as sock:
        port = sock.getsockname()[1]
        monkeypatch.setenv(LISTEN_FD_ENV, str(os.dup(sock.fileno())))
        with pytest.raises(
            ConfigError, match=f"bound to port {port}, not to the configured port {port + 1}"
        ):
            inherited_socket(port + 1)


def test_a_variable_that_is_no_socket_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(LISTEN_FD_ENV, "not-a-number")
    with pytest.raises(ConfigError, match="is not the file descriptor of a socket"):
        inherited_socket(8000)


SETTLED = """
import gc, weakref
from sdk.service import YOUNG_OBJECTS_PER_COLLECTION, settle_collector

class Node:
    pass

settle_collector()
print(gc.get_freeze_count() > 0, gc.get_threshold()[0] == YOUNG_OBJECTS_PER_COLLECTION)
cycle = Node()
cycle.me = cycle
gone = weakref.ref(cycle)
del cycle
kept = [Node() for _ in range(YOUNG_OBJECTS_PER_COLLECTION // 2)]
print(gone() is not None)  # a young cycle waits for the next collection
kept += [Node() for _ in range(YOUNG_OBJECTS_PER_COLLECTION)]
print(gone() is None)  # and is collected by it, unprompted
"""


def test_a_settled_collector_freezes_what_lives_and_still_collects_young_cycles() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SETTLED], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["True", "True", "True", "True"]

"""What every service process shares: running its app (FastAPI, ASGI) under uvicorn."""

from __future__ import annotations

import gc
import os
import resource
import socket
import sys
from collections.abc import Callable
from typing import Any

import uvicorn
from starlette.types import ASGIApp
from uvicorn.config import STARTUP_FAILURE

from sdk.config import ConfigError
from sdk.connections import ConnectionGuard
from sdk.errors import LeagueSDKError
from sdk.http_protocol import OneWriteHttp

__all__ = [
    "FD_RESERVE",
    "KEEP_ALIVE_SEC",
    "LISTEN_FD_ENV",
    "ExitSwitch",
    "announce",
    "base_url",
    "inherited_socket",
    "listening_socket",
    "serve",
    "server_config",
    "settle_collector",
]


KEEP_ALIVE_SEC = 15
"""How long an idle client connection stays open: longer than the 4-5 s after which
clients drop theirs, so a client never reuses one we are closing (that resets its request)."""
KEEP_ALIVE_HEADER = ("Keep-Alive", f"timeout={KEEP_ALIVE_SEC}")
"""Told in every answer, so that a client that reads it (``sdk.posting``) keeps its idle
connection longer than the 4 s it gives a server that tells nothing."""


FD_RESERVE = 256
"""Files kept for the agent's own use (data files, logs, its calls to other agents) beside
the connections it serves."""


def _fit_to_file_limit(guard: ConnectionGuard) -> None:
    """Raise the soft open-files limit to the hard one, and keep the guard's connections
    ``FD_RESERVE`` under it: connections must never take the files the agent writes."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft != resource.RLIM_INFINITY:
        guard.max_connections = max(16, min(guard.max_connections, soft - FD_RESERVE))


YOUNG_OBJECTS_PER_COLLECTION = 20_000
"""Objects made (less those freed) between two collections of the youngest generation: an
agent makes and drops thousands a call (a standings copy alone, a row a player), and at
Python's 700 the collector ran hundreds of times a league round, 7 % of the League
Manager's CPU (doc/benchmarks.md); at 20,000 it runs a few times a league."""


def settle_collector() -> None:
    """Ready the garbage collector for a long-lived server. The objects alive now (the
    imported libraries, the app) live as long as the process: ``gc.freeze`` moves them out
    of the collector's sight, so a full collection no longer rescans tens of thousands of
    them while the agent answers calls. The youngest generation is collected after
    ``YOUNG_OBJECTS_PER_COLLECTION`` objects; the older ones as Python chooses."""
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_OBJECTS_PER_COLLECTION, middle, oldest)


LISTEN_FD_ENV = "LEAGUE_LISTEN_FD"
"""The environment variable that hands an agent the file descriptor of a socket already
bound to its port (``listening_socket``): it serves on that socket instead of binding the
port itself, so no other process can take the port between its choice and the agent's start."""


def listening_socket(host: str = "127.0.0.1") -> socket.socket:
    """A TCP socket bound to a port the kernel chose (``getsockname()[1]``), for a child
    process to serve on (``LISTEN_FD_ENV``, ``pass_fds``). The port is held from this moment:
    unlike a port picked free and let go, nothing else can bind it before the child serves.
    Not listening yet: a connection before the child serves is refused, as to a port nobody
    holds."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((host, 0))
    except OSError:
        sock.close()
        raise
    return sock


def inherited_socket(port: int) -> socket.socket | None:
    """The socket handed down in ``LISTEN_FD_ENV`` (the variable is removed, so a process
    this one starts does not read it), or None when there is none.

    Raises:
        ConfigError: the variable is not a socket's file descriptor, or its socket is bound
            to another port than ``port`` (the agent would announce the wrong endpoint).
    """
    raw = os.environ.pop(LISTEN_FD_ENV, None)
    if raw is None:
        return None
    try:
        sock = socket.socket(fileno=int(raw))
    except (ValueError, OSError) as exc:
        raise ConfigError(
            f"{LISTEN_FD_ENV}={raw!r} is not the file descriptor of a socket ({exc})"
        ) from None
    bound = sock.getsockname()[1]
    if bound != port:
        sock.close()
        raise ConfigError(
            f"the socket handed down in {LISTEN_FD_ENV} is bound to port "
            f"{bound}, not to the configured port {port}"
        )
    return sock


def announce(line: str) -> None:
    """Tell the person who started this process one line of its life (it listens, it has
    registered) on stdout, at once: the launcher's output file or the terminal shows it
    even while the process runs on. Every agent announces on stdout; what ends a process is
    on stderr (``league_cli.main``)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def base_url(host: str, port: int) -> str:
    """``http://HOST:PORT`` (an IPv6 address in brackets)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


class ExitSwitch:
    """How a task of an agent ends its whole process, when the agent cannot go on (the
    League Manager refused its registration for good): ``trip(error)`` stops the server as
    SIGTERM would (the app's shutdown runs, the log is closed) and ``serve`` raises
    ``error`` once the server has closed, for the command to print it in one line with its
    exit code. Without a server (the app under a test client) the error is only kept."""

    def __init__(self) -> None:
        self.error: LeagueSDKError | None = None
        self._server: uvicorn.Server | None = None

    def attach(self, server: uvicorn.Server) -> None:
        self._server = server
        if self.error is not None:
            server.should_exit = True

    def trip(self, error: LeagueSDKError) -> None:
        """End the process on ``error`` (the first one, if tripped twice)."""
        if self.error is None:
            self.error = error
        if self._server is not None:
            self._server.should_exit = True


class _Server(uvicorn.Server):
    """uvicorn's server that says in one line when it listens (``name``), and says when it
    starts closing, before it waits for the open connections: a response that never ends
    by itself (a stream of server-sent events) ends then, instead of holding the shutdown
    until the graceful timeout cancels it."""

    def __init__(self, config: uvicorn.Config, on_closing: Callable[[], None] | None, name: str):
        super().__init__(config)
        self._on_closing = on_closing
        self._name = name

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            port = self.servers[0].sockets[0].getsockname()[1]  # the bound one, even for 0
            announce(f"{self._name} listening on {base_url(self.config.host, port)}")

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self._on_closing is not None:
            self._on_closing()
        await super().shutdown(sockets)


def server_config(app: ASGIApp, **options: Any) -> uvicorn.Config:
    """uvicorn's configuration of every agent's server (and of a benchmark's that stands in
    for one): quiet access logs (the agent log has the traffic), a graceful shutdown of 5 s,
    idle connections kept ``KEEP_ALIVE_SEC`` and told so (``KEEP_ALIVE_HEADER``), each answer
    written in one piece (``OneWriteHttp``); ``options`` add to it (host, port) or replace
    it (the HTTP protocol).

    The caller's address is the connection's, never an ``X-Forwarded-For`` header: uvicorn
    believes that header from 127.0.0.1 by default, so any process on the League Manager's
    machine could name another address and escape the limits counted per address (the
    registrations a minute, the refusals logged)."""
    options.setdefault("http", OneWriteHttp)
    return uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        proxy_headers=False,
        timeout_graceful_shutdown=5,
        timeout_keep_alive=KEEP_ALIVE_SEC,
        headers=[KEEP_ALIVE_HEADER],
        **options,
    )


def serve(
    app: ASGIApp,
    host: str,
    port: int,
    *,
    name: str,
    on_closing: Callable[[], None] | None = None,
    guard: ConnectionGuard | None = None,
    exit_switch: ExitSwitch | None = None,
) -> None:
    """Run ``app`` until SIGINT/SIGTERM; quiet access logs (the agent log has the traffic),
    one line once it listens (``NAME listening on http://HOST:PORT``, ``announce``).
    On the socket handed down in ``LISTEN_FD_ENV`` when there is one (``inherited_socket``),
    else on ``host:port``. ``on_closing`` is called once the server stops taking
    connections; ``guard`` bounds the connections and how long each may take to send a
    request (``sdk.connections``); ``exit_switch`` lets the app's tasks end the process.

    The garbage collector is readied for a long-lived server first (``settle_collector``).

    Raises:
        LeagueSDKError: what tripped ``exit_switch``, once the server has closed.
    """
    sock = inherited_socket(port)
    settle_collector()
    extra: dict[str, Any] = {}
    if guard is not None:
        _fit_to_file_limit(guard)
        extra["http"] = guard.protocol()
    server = _Server(server_config(app, host=host, port=port, **extra), on_closing, name)
    if exit_switch is not None:
        exit_switch.attach(server)
    try:
        server.run(sockets=None if sock is None else [sock])
    except KeyboardInterrupt:
        pass
    if exit_switch is not None and exit_switch.error is not None:
        raise exit_switch.error
    if not server.started:  # the port was taken, or the app refused to start: as uvicorn.run
        sys.exit(STARTUP_FAILURE)

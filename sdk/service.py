"""What every service process shares: running a FastAPI app under uvicorn."""

from __future__ import annotations

import gc
import resource
import socket
import sys
from collections.abc import Callable
from typing import Any

import uvicorn
from fastapi import FastAPI
from uvicorn.config import STARTUP_FAILURE

from sdk.connections import ConnectionGuard
from sdk.errors import LeagueSDKError

__all__ = ["FD_RESERVE", "ExitSwitch", "serve"]


KEEP_ALIVE_SEC = 15
"""How long an idle client connection stays open: longer than the 4-5 s after which
clients drop theirs, so a client never reuses one we are closing (that resets its request)."""


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
    """uvicorn's server that says when it starts closing, before it waits for the open
    connections: a response that never ends by itself (a stream of server-sent events)
    ends then, instead of holding the shutdown until the graceful timeout cancels it."""

    def __init__(self, config: uvicorn.Config, on_closing: Callable[[], None] | None):
        super().__init__(config)
        self._on_closing = on_closing

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        if self._on_closing is not None:
            self._on_closing()
        await super().shutdown(sockets)


def serve(app: FastAPI, host: str, port: int, *,
          on_closing: Callable[[], None] | None = None,
          guard: ConnectionGuard | None = None,
          exit_switch: ExitSwitch | None = None) -> None:
    """Run ``app`` until SIGINT/SIGTERM; quiet access logs (the agent log has the traffic).
    ``on_closing`` is called once the server stops taking connections; ``guard`` bounds
    the connections and how long each may take to send a request (``sdk.connections``);
    ``exit_switch`` lets the app's tasks end the process.

    Raises:
        LeagueSDKError: what tripped ``exit_switch``, once the server has closed.

    The objects alive now (the imported libraries, the app) live as long as the process:
    ``gc.freeze`` moves them out of the collector's sight, so a full collection no longer
    rescans tens of thousands of them while the agent answers calls.
    """
    gc.collect()
    gc.freeze()
    extra: dict[str, Any] = {}
    if guard is not None:
        _fit_to_file_limit(guard)
        extra["http"] = guard.protocol()
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=5, timeout_keep_alive=KEEP_ALIVE_SEC,
                            **extra)
    server = _Server(config, on_closing)
    if exit_switch is not None:
        exit_switch.attach(server)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    if exit_switch is not None and exit_switch.error is not None:
        raise exit_switch.error
    if not server.started:  # the port was taken, or the app refused to start: as uvicorn.run
        sys.exit(STARTUP_FAILURE)

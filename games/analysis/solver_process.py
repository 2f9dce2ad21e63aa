"""pygambit's solvers in a worker process, so that every call has a time bound.

pygambit's ``enummixed_solve`` has no stop option, and its ``lcp_solve`` bounds the number
of equilibria, not the time: a degenerate or large game can keep either busy for minutes.
A C++ loop cannot be interrupted from Python, so the solvers run in a child process that
lives across calls; a call past its bound kills that child (by its own handle), raises
``SolverTimeoutError`` naming the bound, and the next call starts a fresh one.

The child is ``games/analysis/solver_worker.py`` run as a script with two inherited pipes:
it imports numpy and pygambit only, neither the caller's main module (as multiprocessing's
``spawn`` would) nor a copy of a threaded service (as ``fork`` would). pygambit is never
imported in the caller's process.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from fractions import Fraction
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

from numpy.typing import NDArray

from games.analysis import solver_worker
from games.analysis.errors import SolverError, SolverTimeoutError

__all__ = ["START_TIMEOUT", "RawProfile", "SolveRequest", "SolverProcess", "default_solver"]

RawProfile = tuple[tuple[Fraction | float, ...], ...]
"""One equilibrium as pygambit returns it: per player, per action, a probability (exact
fractions in rational arithmetic, floats otherwise)."""

START_TIMEOUT = 120.0
"""Seconds the worker may take to start and import pygambit (a loaded machine is slow)."""
_WORKER = Path(solver_worker.__file__)


_NO_PYGAMBIT = (
    "exact equilibria need pygambit, which is not installed here: it comes "
    "with the analysis extra (pip install -e '.[analysis]'; pip compiles it "
    "from source, a few minutes the first time)"
)


@dataclass(frozen=True)
class SolveRequest:
    """One call of a pygambit solver on a 2-player game given by its two payoff arrays."""

    method: Literal["enummixed", "lcp"]
    arrays: tuple[NDArray[Any], ...]
    rational: bool
    stop_after: int | None = None

    def describe(self) -> str:
        return f"pygambit's {self.method} on a {'x'.join(map(str, self.arrays[0].shape))} game"


class SolverProcess:
    """A worker process running pygambit, started on first use and restarted after a kill.

    Calls are serialised (one solver runs at a time); ``close`` stops the worker.
    """

    def __init__(self, start_timeout: float = START_TIMEOUT):
        self._start_timeout = start_timeout
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._requests: Connection | None = None
        self._answers: Connection | None = None

    def solve(self, request: SolveRequest, timeout: float) -> list[RawProfile]:
        """The equilibria pygambit finds, within ``timeout`` seconds of solving.

        Raises:
            SolverTimeoutError: the solver (or the worker's start) went past its bound.
            SolverError: a bound that is not positive, pygambit raised, or the worker died.
        """
        if not timeout > 0:
            raise SolverError(f"a time bound must be a positive number of seconds, not {timeout}")
        with self._lock:
            requests, answers = self._started()
            try:
                requests.send(
                    (request.method, request.arrays, request.rational, request.stop_after)
                )
                if not answers.poll(timeout):
                    self._stop()
                    raise SolverTimeoutError(request.describe(), timeout)
                status, payload = answers.recv()
            except (EOFError, OSError) as exc:
                code = self._process.poll() if self._process is not None else None
                self._stop()
                raise SolverError(
                    f"the solver process died during {request.describe()} "
                    f"(exit code {code}): {exc!r}"
                ) from None
        if status != "ok":
            raise SolverError(f"{request.describe()} failed: {payload}")
        result: list[RawProfile] = payload
        return result

    def _started(self) -> tuple[Connection, Connection]:
        if (
            self._process is not None
            and self._process.poll() is None
            and self._requests is not None
            and self._answers is not None
        ):
            return self._requests, self._answers
        self._stop()
        if importlib.util.find_spec("pygambit") is None:
            raise SolverError(_NO_PYGAMBIT)
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        try:
            process = subprocess.Popen(
                [sys.executable, str(_WORKER), str(to_child), str(from_child)],
                pass_fds=(to_child, from_child),
                stdin=subprocess.DEVNULL,
            )
        finally:
            os.close(to_child)
            os.close(from_child)
        self._process = process
        self._requests = Connection(from_parent, readable=False)
        self._answers = Connection(to_parent, writable=False)
        answers = self._answers
        if not answers.poll(self._start_timeout):
            self._stop()
            raise SolverTimeoutError(
                "starting the solver process (importing pygambit)", self._start_timeout
            )
        try:
            ready = answers.recv()
        except (EOFError, OSError):
            code = process.wait()
            self._stop()
            raise SolverError(
                f"the solver process exited at start (exit code {code}); is pygambit installed?"
            ) from None
        if ready != solver_worker.READY:
            self._stop()
            raise SolverError(f"the solver process said {ready!r} at start")
        return self._requests, answers

    def _stop(self) -> None:
        """Close the pipes and kill the worker this object started, by its handle."""
        process, requests, answers = self._process, self._requests, self._answers
        self._process = self._requests = self._answers = None
        for connection in (requests, answers):
            if connection is not None:
                connection.close()
        if process is not None:
            if process.poll() is None:
                process.kill()
            process.wait()

    def close(self) -> None:
        """Stop the worker; a later call starts a new one."""
        with self._lock:
            self._stop()


_default: SolverProcess | None = None
_default_lock = threading.Lock()


def default_solver() -> SolverProcess:
    """The process-wide worker, stopped at interpreter exit."""
    global _default
    with _default_lock:
        if _default is None:
            _default = SolverProcess()
            atexit.register(_default.close)
        return _default

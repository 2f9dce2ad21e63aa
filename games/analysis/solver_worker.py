"""The worker process that runs pygambit's solvers: started by ``solver_process`` as a
script (``python solver_worker.py READ_FD WRITE_FD``), so that it imports only numpy and
pygambit, never the caller's main module or the ``games`` package.

Protocol, over two pipes wrapped as ``multiprocessing.connection.Connection``: the worker
sends ``"ready"`` once pygambit is imported; then for each request ``(method, arrays,
rational, stop_after)`` it answers ``("ok", equilibria)`` or ``("error", text)``, where an
equilibrium is a tuple per player of probabilities (``fractions.Fraction`` in rational
arithmetic, ``float`` otherwise).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from multiprocessing.connection import Connection
from typing import Any

READY = "ready"


def solve(method: str, arrays: Any, rational: bool, stop_after: int | None) -> list[Any]:
    """Run pygambit's ``enummixed`` or ``lcp`` on the game of ``arrays``."""
    import pygambit

    game = pygambit.Game.from_arrays(*arrays)
    if method == "enummixed":
        result = pygambit.nash.enummixed_solve(game, rational=rational)
    elif method == "lcp":
        result = pygambit.nash.lcp_solve(game, rational=rational, stop_after=stop_after)
    else:
        raise ValueError(f"no solver {method!r}")
    return [
        tuple(
            tuple(_plain(profile[strategy]) for strategy in player.strategies)
            for player in game.players
        )
        for profile in result.equilibria
    ]


def _plain(probability: Any) -> Fraction | float:
    """pygambit's Rational (a Fraction subclass the parent need not import) or a float."""
    if isinstance(probability, Fraction):
        return Fraction(probability.numerator, probability.denominator)
    return float(probability)


def serve(requests: Connection, answers: Connection) -> None:
    """Answer requests until the parent closes its end."""
    import pygambit  # noqa: F401  (loaded before READY, so no call pays for it)

    answers.send(READY)
    while True:
        try:
            method, arrays, rational, stop_after = requests.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[str, Any] = ("ok", solve(method, arrays, rational, stop_after))
        except Exception as exc:  # the parent gets the reason; the worker keeps serving
            answer = ("error", f"{type(exc).__name__}: {exc}")
        answers.send(answer)


if __name__ == "__main__":
    serve(
        Connection(int(sys.argv[1]), writable=False), Connection(int(sys.argv[2]), readable=False)
    )

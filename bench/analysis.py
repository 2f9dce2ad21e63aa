"""Every Nash equilibrium of random 2-player games: our path against pygambit's enummixed
called directly and nashpy's support enumeration.

Random games with payoffs uniform in [0, 1) (non-degenerate with probability one) of sizes
4×4, 8×8 and 12×12, seeded. Three ways to find all their equilibria:

- ours: ``games.analysis.all_equilibria`` (pygambit's enummixed in floating point, in the
  worker process, each equilibrium checked, Nash subsets built), timed in this process:
  the pipe round trip and the checks included, the worker's start excluded (timed apart);
- pygambit: ``pygambit.nash.enummixed_solve(Game.from_arrays(A, B), rational=False)``,
  timed inside a forked child (game building included, pygambit already imported);
- nashpy: ``nashpy.Game(A, B).support_enumeration()``, listed in full, timed inside a
  forked child that is killed at ``--nashpy-timeout`` seconds (support enumeration tries
  every pair of equal-size supports: C(24, 12) = 2.7 million at 12×12).

Per size: the median time per game of each, the ratios, how many games each found the same
set of equilibria as pygambit (equal within 1e-6), and how many of pygambit's equilibria
nashpy missed or which it found that pygambit did not. Also ours with LCP
(``one_equilibrium``: one equilibrium) for scale.

    .venv/bin/pip install "agent-league[bench]"    # or: pip install "nashpy>=0.0.41,<0.1"
    .venv/bin/python bench/analysis.py              # several minutes (12×12 dominates)
    .venv/bin/python bench/analysis.py --games 20 10 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from games.analysis import NormalFormGame, all_equilibria, one_equilibrium
from games.analysis.solver_process import default_solver

SIZES = (4, 8, 12)
SAME = 1e-6
Profile = tuple[float, ...]


def pygambit_enummixed(a: np.ndarray, b: np.ndarray) -> list[Profile]:
    import pygambit

    game = pygambit.Game.from_arrays(a, b)
    result = pygambit.nash.enummixed_solve(game, rational=False)
    return [
        tuple(float(eq[s]) for player in game.players for s in player.strategies)
        for eq in result.equilibria
    ]


def nashpy_support_enumeration(a: np.ndarray, b: np.ndarray) -> list[Profile]:
    import nashpy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            tuple(np.concatenate(eq).tolist()) for eq in nashpy.Game(a, b).support_enumeration()
        ]


def _child(
    connection: Any, solve: Callable[..., list[Profile]], a: np.ndarray, b: np.ndarray
) -> None:
    start = time.perf_counter()
    found = solve(a, b)
    connection.send((time.perf_counter() - start, found))
    connection.close()


def timed_in_child(
    solve: Callable[..., list[Profile]], a: np.ndarray, b: np.ndarray, timeout: float
) -> tuple[float, list[Profile]] | None:
    """(seconds, equilibria) of ``solve`` in a forked child, or None past ``timeout``."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, solve, a, b), daemon=True)
    process.start()
    child.close()
    answer = parent.recv() if parent.poll(timeout) else None
    if process.is_alive():
        process.kill()
    process.join()
    parent.close()
    return answer


def differences(found: Sequence[Profile], reference: Sequence[Profile]) -> tuple[int, int]:
    """(equilibria of ``reference`` that ``found`` misses, equilibria of ``found`` not in
    ``reference``), matching each within ``SAME`` once."""
    unmatched = [np.array(p) for p in reference]
    extra = 0
    for profile in found:
        match = next(
            (
                i
                for i, other in enumerate(unmatched)
                if np.max(np.abs(np.array(profile) - other)) <= SAME
            ),
            None,
        )
        if match is None:
            extra += 1
        else:
            unmatched.pop(match)
    return len(unmatched), extra


def bench_size(
    size: int, games: int, seed: int, timeout: float, nashpy_timeout: float | None
) -> dict[str, Any]:
    rng = np.random.default_rng(seed + size)
    ours, lcp, direct, nashpy = [], [], [], []
    counts: list[int] = []
    agree_ours = agree_nashpy = nashpy_done = nashpy_missing = nashpy_extra = 0
    for _ in range(games):
        a, b = rng.random((size, size)), rng.random((size, size))
        game = NormalFormGame.bimatrix(a, b)
        start = time.perf_counter()
        found = all_equilibria(game, timeout=timeout)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        one_equilibrium(game, timeout=timeout)
        lcp.append(time.perf_counter() - start)
        mine = [tuple(np.concatenate(e.strategies).tolist()) for e in found.equilibria]
        reference = timed_in_child(pygambit_enummixed, a, b, timeout)
        if reference is None:
            raise SystemExit(f"pygambit directly took over {timeout} s on a {size}x{size} game")
        direct.append(reference[0])
        counts.append(len(reference[1]))
        agree_ours += differences(mine, reference[1]) == (0, 0)
        if nashpy_timeout is not None:
            theirs = timed_in_child(nashpy_support_enumeration, a, b, nashpy_timeout)
            if theirs is not None:
                nashpy_done += 1
                nashpy.append(theirs[0])
                missing, extra = differences(theirs[1], reference[1])
                agree_nashpy += (missing, extra) == (0, 0)
                nashpy_missing += missing
                nashpy_extra += extra
    row: dict[str, Any] = {
        "size": size,
        "games": games,
        "equilibria_median": statistics.median(counts),
        "equilibria_max": max(counts),
        "ours_s": statistics.median(ours),
        "ours_lcp_s": statistics.median(lcp),
        "pygambit_s": statistics.median(direct),
        "ours_same_as_pygambit": agree_ours,
    }
    row["ratio_pygambit_to_ours"] = row["pygambit_s"] / row["ours_s"]
    if nashpy_timeout is not None:
        row["nashpy_finished"] = nashpy_done
        row["nashpy_same_as_pygambit"] = agree_nashpy
        row["nashpy_missed"] = nashpy_missing
        row["nashpy_extra"] = nashpy_extra
        if nashpy:
            row["nashpy_s"] = statistics.median(nashpy)
            row["ratio_nashpy_to_ours"] = row["nashpy_s"] / row["ours_s"]
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=int,
        nargs=3,
        default=[20, 10, 3],
        metavar=("N4", "N8", "N12"),
        help="games per size (0 skips a size)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="our bound (and pygambit's) per game, seconds"
    )
    parser.add_argument(
        "--nashpy-timeout", type=float, default=120.0, help="nashpy's bound per game, seconds"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    import pygambit  # noqa: F401  (imported before the children fork: not timed in them)

    try:
        import nashpy  # noqa: F401

        nashpy_timeout: float | None = args.nashpy_timeout
    except ImportError:
        print(
            "nashpy is not installed: pip install 'nashpy>=0.0.41,<0.1' (the 'bench' "
            "extra); only ours and pygambit are timed."
        )
        nashpy_timeout = None

    start = time.perf_counter()
    one_equilibrium(NormalFormGame.zero_sum([[1, -1], [-1, 1]]))
    startup = time.perf_counter() - start
    print(
        f"random games, payoffs uniform in [0, 1), seed {args.seed}; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; worker start {startup:.2f} s"
    )
    rows = []
    for size, games in zip(SIZES, args.games, strict=True):
        if games < 1:
            continue
        row = bench_size(size, games, args.seed, args.timeout, nashpy_timeout)
        rows.append(row)
        line = (
            f"{size:>2}x{size:<2} {games:>3} games, equilibria median "
            f"{row['equilibria_median']:g} (max {row['equilibria_max']})  "
            f"ours {row['ours_s'] * 1000:9.1f} ms  pygambit {row['pygambit_s'] * 1000:9.1f} ms "
            f"({row['ratio_pygambit_to_ours']:.2f}x)  ours LCP "
            f"{row['ours_lcp_s'] * 1000:6.1f} ms  same set as pygambit: ours "
            f"{row['ours_same_as_pygambit']}/{games}"
        )
        if nashpy_timeout is not None:
            finished = row["nashpy_finished"]
            timing = (
                f"{row['nashpy_s'] * 1000:9.1f} ms ({row['ratio_nashpy_to_ours']:.1f}x)"
                if "nashpy_s" in row
                else "       n/a"
            )
            line += (
                f", nashpy {row['nashpy_same_as_pygambit']}/{finished} (missed "
                f"{row['nashpy_missed']}, extra {row['nashpy_extra']})  nashpy {timing}, "
                f"finished {finished}/{games} within {nashpy_timeout:g} s"
            )
        print(line, flush=True)
    default_solver().close()
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "worker_start_s": startup,
                    "load_average": os.getloadavg()[0],
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
    return 0 if all(r["ours_same_as_pygambit"] == r["games"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

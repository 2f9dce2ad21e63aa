"""Round robins of the six prisoner's dilemma baselines: our engine against the Axelrod library.

Both run in this one process, pinned to one CPU (``os.sched_setaffinity``) with every
thread pool of NumPy's BLAS and of PyTorch (which axelrod imports) held to one thread, so
neither side gets more than one core. Axelrod's tournament is played with
``processes=None``, its serial path: ``processes=1`` is its parallel path with worker
processes, which an earlier version of this script timed without their CPU.

Every pair of tit_for_tat, always_cooperate, always_defect, grim_trigger, pavlov and random
(self-play included: 21 match-ups), 200 turns, 50 repetitions, once without noise and once
with noise 0.05. Axelrod is timed two ways: its ``Tournament.play`` (serial, no progress
bar, no result set built; it still writes the interactions to a temporary file, and plays
each deterministic pair once) and a bare loop of its ``Match.play`` over the same 1,050 matches (the
least work the library can do). Our time is ``games.tournament.round_robin``, results
included. The deterministic pairs are checked to score the same in both.

    .venv/bin/pip install "agent-league[bench]"    # or: pip install "axelrod>=4.13,<5"
    .venv/bin/python bench/tournament.py           # ~1 minute
    .venv/bin/python bench/tournament.py --repeat 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

for _pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_pool] = "1"  # before NumPy or PyTorch is imported: their pools read it once
CPU = min(os.sched_getaffinity(0))
os.sched_setaffinity(0, {CPU})

from games.strategies import build  # noqa: E402  (NumPy after the pools are set)
from games.tournament import round_robin  # noqa: E402

OURS = ["tit_for_tat", "always_cooperate", "always_defect", "grim_trigger", "pavlov", "random"]
AXELROD = ["TitForTat", "Cooperator", "Defector", "Grudger", "WinStayLoseShift", "Random"]
DETERMINISTIC = set(OURS) - {"random"}


def cpu_seconds() -> float:
    """CPU time of this process (``process_time``: os.times ticks only every 10 ms) and of
    any child it has waited for (none is expected)."""
    children = os.times()
    return time.process_time() + children.children_user + children.children_system


def best_of(repeat: int, run: Callable[[], Any]) -> float:
    """The least CPU time of ``repeat`` runs, in seconds, all on the one core (the machine is
    shared, so wall time would also count what others run on that core)."""
    times = []
    for _ in range(repeat):
        start = cpu_seconds()
        run()
        times.append(cpu_seconds() - start)
    return min(times)


def ours(turns: int, repetitions: int, noise: float, seed: int) -> dict[tuple[str, str], Any]:
    players = [build("prisoners_dilemma", name) for name in OURS]
    result = round_robin(
        "prisoners_dilemma", players, turns=turns, repetitions=repetitions, noise=noise, seed=seed
    )
    return {(p.first, p.second): (p.first_score, p.second_score) for p in result.pairs}


def axelrod_tournament(axl: Any, turns: int, repetitions: int, noise: float, seed: int) -> None:
    players = [getattr(axl, name)() for name in AXELROD]
    tournament = axl.Tournament(
        players, turns=turns, repetitions=repetitions, noise=noise, seed=seed
    )
    with warnings.catch_warnings():  # "results will not be accessible": we want none
        warnings.simplefilter("ignore", UserWarning)
        tournament.play(processes=None, progress_bar=False, build_results=False)


def axelrod_matches(
    axl: Any, turns: int, repetitions: int, noise: float, seed: int
) -> dict[tuple[str, str], Any]:
    """Mean totals per pair over a plain loop of ``axl.Match``."""
    scores = {}
    for i, first in enumerate(AXELROD):
        for j in range(i, len(AXELROD)):
            pair = (getattr(axl, first)(), getattr(axl, AXELROD[j])())
            totals = []
            for repetition in range(repetitions):
                match = axl.Match(pair, turns=turns, noise=noise, seed=seed + repetition)
                match.play()
                totals.append(match.final_score())
            scores[OURS[i], OURS[j]] = tuple(statistics.mean(t[k] for t in totals) for k in (0, 1))
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repetitions", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import axelrod as axl
    except ImportError:
        print(
            "axelrod is not installed: pip install 'axelrod>=4.13,<5' (the 'bench' extra); "
            "only our engine is timed."
        )
        axl = None

    figures: list[dict[str, Any]] = []
    print(
        f"6 PD baselines, 21 match-ups (self-play included), {args.turns} turns, "
        f"{args.repetitions} repetitions, best of {args.repeat} (CPU time, one core: CPU {CPU})"
    )
    for noise in (0.0, 0.05):
        row: dict[str, Any] = {"noise": noise}
        row["ours_s"] = best_of(
            args.repeat, lambda n=noise: ours(args.turns, args.repetitions, n, args.seed)
        )
        line = f"noise {noise:<4}  ours {row['ours_s'] * 1000:8.1f} ms"
        if axl is not None:
            row["axelrod_tournament_s"] = best_of(
                args.repeat,
                lambda n=noise: axelrod_tournament(axl, args.turns, args.repetitions, n, args.seed),
            )
            row["axelrod_matches_s"] = best_of(
                args.repeat,
                lambda n=noise: axelrod_matches(axl, args.turns, args.repetitions, n, args.seed),
            )
            row["ratio_tournament"] = row["axelrod_tournament_s"] / row["ours_s"]
            row["ratio_matches"] = row["axelrod_matches_s"] / row["ours_s"]
            line += (
                f"  axelrod Tournament {row['axelrod_tournament_s']:7.2f} s "
                f"({row['ratio_tournament']:5.0f}x)  axelrod Match loop "
                f"{row['axelrod_matches_s']:7.2f} s ({row['ratio_matches']:5.0f}x)"
            )
        print(line)
        figures.append(row)

    agree = True
    if axl is not None:
        mine = ours(args.turns, 1, 0.0, args.seed)
        theirs = axelrod_matches(axl, args.turns, 1, 0.0, args.seed)
        for pair in sorted(p for p in mine if set(p) <= DETERMINISTIC):
            same = tuple(mine[pair]) == tuple(theirs[pair])
            agree &= same
            if not same:
                print(f"DIFFERENT {pair}: ours {mine[pair]}, axelrod {theirs[pair]}")
        count = sum(1 for p in mine if set(p) <= DETERMINISTIC)
        print(
            f"deterministic pairs scoring the same in both: "
            f"{'all ' + str(count) if agree else 'NOT all'}"
        )
    if args.json:
        args.json.write_text(json.dumps({"figures": figures, "agree": agree}, indent=2) + "\n")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())

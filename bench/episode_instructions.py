"""Instructions an in-process episode of ``league evaluate`` costs, for cachegrind.

Plays N episodes of the shipped prisoner's dilemma suite (``suites/prisoners_dilemma.yaml``,
pavlov against tit for tat, 100 stages) with ``league_cli.evaluation.episodes.
play_episodes`` at ``--parallel 1``, the evaluation's own path, and nothing else. The code
played is the worktree's on ``PYTHONPATH`` (this script may be run from another worktree,
so a commit that predates it is measured the same way). One episode's instructions are
(Ir of N + 1 episodes − Ir of 1 episode) / N: the first episode's one-time work (what it
imports, builds and caches) is left out, and the count does not depend on the load:

    cd <worktree> && for n in 1 11; do OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 \\
        PYTHONPATH=$PWD valgrind --tool=cachegrind --cache-sim=no \\
        --cachegrind-out-file=/tmp/cg.$n.out .venv/bin/python bench/episode_instructions.py $n
    done; grep ^summary /tmp/cg.1.out /tmp/cg.11.out

``OPENBLAS_NUM_THREADS=1``: NumPy's idle BLAS threads otherwise add about a million
instructions an episode, at random. Run from the worktree's root (the suite is read from
``suites/``).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from league_cli.evaluation.episodes import play_episodes
from league_cli.evaluation.suite_file import load_suite

SUITE = Path("suites/prisoners_dilemma.yaml")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("episodes", type=int, help="episodes to play (at least 1)")
    episodes = parser.parse_args().episodes
    if episodes < 1:
        parser.error("play at least 1 episode")
    suite = load_suite(SUITE).model_copy(update={"episodes": episodes})
    played = asyncio.run(play_episodes(suite, parallel=1))
    stages = sum(len(e.history.stages) for e in played if e.history is not None)
    print(f"{len(played)} episodes, {stages} stages")


if __name__ == "__main__":
    main()

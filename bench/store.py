"""The League Manager's store, JSON files against PostgreSQL, over real HTTP: the same
even/odd league as ``bench/scale_http.py`` (a real League Manager, referee processes, player
hosts), once with the results in ``journal.jsonl`` and once in a throw-away PostgreSQL
cluster, runs alternated, with results/s and the League Manager's CPU per result.

    .venv/bin/python bench/store.py --players 100 --referees 4 --rounds 10 --repeat 3

A benchmark, not a test: it prints a table and, with --json, writes the figures to a file.
The cluster is made with ``initdb`` and served by ``pg_ctl`` on a free loopback port in a
temporary folder (``tests/postgres.py``, as the tests do: as the ``postgres`` user where
this runs as root), with ``fsync=off``: what is measured is the League Manager's own cost of
the store (its driver, its round trips), not a disk. Each PostgreSQL run has a database of
its own. The League Manager is handed the store's URL in its environment
(``$LEAGUE_STORE_URL``), as ``league up --store`` hands it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.scale_http import LeagueRun, run_league  # noqa: E402
from league_manager.pg.store_url import STORE_URL_ENV  # noqa: E402
from tests.postgres import postgres_server, server_bindir  # noqa: E402

STORES = ("json", "postgresql")


def one_run(run: LeagueRun, store_url: str | None) -> dict[str, Any]:
    """``run`` with its League Manager on ``store_url`` (None: the JSON files)."""
    os.environ.pop(STORE_URL_ENV, None)
    if store_url is not None:
        os.environ[STORE_URL_ENV] = store_url
    try:
        return run_league(run)
    finally:
        os.environ.pop(STORE_URL_ENV, None)


def rows_kept(url: str) -> int:
    """The results the database holds: proof that the run's League Manager used it."""
    import psycopg

    with psycopg.connect(url) as connection:
        row = connection.execute("select count(*) from results").fetchone()
    return int(row[0]) if row else 0


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per store: each run's results/s and League Manager CPU per result, and their medians."""
    figures: dict[str, dict[str, Any]] = {}
    for store in STORES:
        runs = [row for row in rows if row["store"] == store]
        rates = [row["results_per_s"] for row in runs]
        cpu = [row["lm_cpu_ms_per_result"] for row in runs]
        figures[store] = {
            "runs": len(runs),
            "results_per_s": rates,
            "lm_cpu_ms_per_result": cpu,
            "median_results_per_s": statistics.median(rates),
            "median_lm_cpu_ms_per_result": statistics.median(cpu),
            "technical_losses": sum(row["technical_losses"] for row in runs),
        }
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--referees", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=10, help="rounds played in each run")
    parser.add_argument("--player-hosts", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each store, alternated")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if server_bindir() is None:
        print(
            "error: no PostgreSQL server programs (initdb, pg_ctl) on this machine: install "
            "Debian's postgresql package",
            file=sys.stderr,
        )
        return 2
    run = LeagueRun(
        players=args.players,
        referees=args.referees,
        rounds=args.rounds,
        player_hosts=args.player_hosts,
    )
    rows: list[dict[str, Any]] = []
    with postgres_server() as server:
        for attempt in range(1, args.repeat + 1):
            for store in STORES:
                url = server.url(server.create_database()) if store == "postgresql" else None
                row = {"store": store, **one_run(run, url)}
                kept = row["matches"] if url is None else rows_kept(url)
                if kept < row["matches"]:
                    raise SystemExit(
                        f"the League Manager recorded {row['matches']} results but the "
                        f"database holds {kept}: it did not use the store"
                    )
                rows.append(row)
                print(
                    f"run {attempt} {store:>10}: {row['matches']} results, "
                    f"{row['results_per_s']:.1f} results/s, League Manager "
                    f"{row['lm_cpu_ms_per_result']:.2f} ms CPU per result, "
                    f"{row['technical_losses']} technical losses",
                    flush=True,
                )
    figures = summary(rows)
    for store, figure in figures.items():
        print(
            f"{store:>10}: median {figure['median_results_per_s']:.1f} results/s "
            f"({min(figure['results_per_s']):.1f}–{max(figure['results_per_s']):.1f}), League "
            f"Manager {figure['median_lm_cpu_ms_per_result']:.2f} ms CPU per result "
            f"({min(figure['lm_cpu_ms_per_result']):.2f}–"
            f"{max(figure['lm_cpu_ms_per_result']):.2f})"
        )
    if args.json:
        args.json.write_text(json.dumps({"runs": rows, "summary": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

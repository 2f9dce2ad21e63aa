"""The League Manager's store, JSON files against PostgreSQL, over real HTTP: the same
even/odd league as ``bench/scale_http.py`` (a real League Manager, referee processes, player
hosts), once with the results in ``journal.jsonl`` and once in a throw-away PostgreSQL
cluster, runs alternated, with results/s and the League Manager's CPU per result; with
``--managers``, the PostgreSQL runs again with that many League Manager processes on the one
database, one of them leading.

    .venv/bin/python bench/store.py --players 100 --referees 4 --rounds 10 --repeat 3
    .venv/bin/python bench/store.py --players 100 --rounds 10 --player-hosts 2 --managers 1 2 4

A benchmark, not a test: it prints a table and, with --json, writes the figures to a file.
The cluster is made with ``initdb`` and served by ``pg_ctl`` on a free loopback port in a
temporary folder (``tests/postgres.py``, as the tests do: as the ``postgres`` user where
this runs as root), with ``fsync=off``: what is measured is the League Manager's own cost of
the store (its driver, its round trips), not a disk. Each PostgreSQL run has a database of
its own. The League Manager is handed the store's URL in its environment
(``$LEAGUE_STORE_URL``), as ``league up --store`` hands it.

Several League Managers: every run (the files' too, so that the runs differ only in their
League Managers) puts the round-robin balancer of the tests (``tests/balancer.py``, a thread
of this process) in front of them; the referees and the players register and report
through it, the admin starts the league at the leader (the one whose ``/health`` says it
leads) and the window is polled there. Every League Manager's CPU is measured: their sum,
the leader's and each follower's per result. The balancer's CPU is this process's (with the
polling), printed apart: on a machine of few cores it takes some from the league.
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


def one_run(run: LeagueRun, store_url: str | None) -> dict[str, Any]:
    """``run`` with its League Manager on ``store_url`` (None: the JSON files)."""
    os.environ.pop(STORE_URL_ENV, None)
    if store_url is not None:
        os.environ[STORE_URL_ENV] = store_url
    try:
        return run_league(run)
    finally:
        os.environ.pop(STORE_URL_ENV, None)


def check_kept(url: str, row: dict[str, Any]) -> None:
    """Proof that the run's League Managers used the database, each result once: it holds a
    row for every match of the rounds played in the window (one per match: the results'
    primary key), and at least as many rows as results were counted (the league played on
    until it was stopped)."""
    import psycopg

    per_round = row["total_matches"] // row["total_rounds"]
    with psycopg.connect(url) as connection:
        found = connection.execute(
            "select count(*), count(*) filter (where round_id <= %s) from results",
            (row["rounds_played"],),
        ).fetchone()
    kept, in_window = (int(found[0]), int(found[1])) if found else (0, 0)
    if in_window != per_round * row["rounds_played"] or kept < row["matches"]:
        raise SystemExit(
            f"the League Managers counted {row['matches']} results in "
            f"{row['rounds_played']} rounds of {per_round} matches, but the database holds "
            f"{kept}, {in_window} of them in those rounds"
        )


def label(store: str, managers: int) -> str:
    """A run's name in the figures: the store, and on PostgreSQL its League Managers."""
    return store if store == "json" else f"postgresql x{managers}"


def summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per store and count of League Managers: each run's results/s and League Manager CPU
    per result (all of them, the leader, a follower on average), and their medians."""
    figures: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(row["label"] for row in rows):
        runs = [row for row in rows if row["label"] == name]
        columns = {
            "results_per_s": [row["results_per_s"] for row in runs],
            "lm_cpu_ms_per_result": [row["lm_cpu_ms_per_result"] for row in runs],
            "leader_cpu_ms_per_result": [row["leader_cpu_ms_per_result"] for row in runs],
            "follower_cpu_ms_per_result": [
                statistics.mean(row["followers_cpu_ms_per_result"])
                for row in runs
                if row["followers_cpu_ms_per_result"]
            ],
            "driver_cpu_ms_per_result": [
                1000 * row["cpu_s"]["driver"] / row["matches"] for row in runs
            ],
            "between_rounds_s": [between_rounds(row) for row in runs],
            "machine_busy_share": [row["machine_busy_share"] for row in runs],
        }
        figures[name] = {
            "runs": len(runs),
            **columns,
            **{f"median_{key}": statistics.median(v) for key, v in columns.items() if v},
            "technical_losses": sum(row["technical_losses"] for row in runs),
        }
    return figures


def between_rounds(row: dict[str, Any]) -> float:
    """Seconds a round, on average, from the first League Manager's last recorded result of
    a round to the next round's start (its league log: ``scale_http.round_phases``). It
    leads, being started alone, and a result it only heard from the others is not in that
    count, so this includes the wait for them."""
    phases = row["phases_s"]
    return float(phases["between_rounds"] / max(1, phases["rounds_timed"]))


def spread(figure: dict[str, Any], key: str) -> str:
    """``key``'s median and range over the runs, or a dash where it has none."""
    values = figure[key]
    if not values:
        return "-"
    return f"{figure[f'median_{key}']:.2f} ({min(values):.2f}–{max(values):.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=100)
    parser.add_argument("--referees", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=10, help="rounds played in each run")
    parser.add_argument("--player-hosts", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each store, alternated")
    parser.add_argument(
        "--managers",
        type=int,
        nargs="+",
        default=[1],
        help="League Manager processes on the PostgreSQL store, one run of each count "
        "(more than 1: every run behind a balancer)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if server_bindir() is None:
        print(
            "error: no PostgreSQL server programs (initdb, pg_ctl) on this machine: install "
            "Debian's postgresql package",
            file=sys.stderr,
        )
        return 2
    if min(args.managers) < 1:
        parser.error("every --managers count must be 1 or more")
    variants = [("json", 1)] + [("postgresql", count) for count in args.managers]
    rows: list[dict[str, Any]] = []
    with postgres_server() as server:
        for attempt in range(1, args.repeat + 1):
            for store, managers in variants:
                run = LeagueRun(
                    players=args.players,
                    referees=args.referees,
                    rounds=args.rounds,
                    player_hosts=args.player_hosts,
                    managers=managers,
                    balanced=max(args.managers) > 1,
                )
                url = server.url(server.create_database()) if store == "postgresql" else None
                row = {"store": store, "label": label(store, managers), **one_run(run, url)}
                if url is not None:
                    check_kept(url, row)
                rows.append(row)
                followers = row["followers_cpu_ms_per_result"]
                print(
                    f"run {attempt} {row['label']:>13}: {row['matches']} results, "
                    f"{row['results_per_s']:.1f} results/s, League Managers "
                    f"{row['lm_cpu_ms_per_result']:.2f} ms CPU per result (leader "
                    f"{row['leader_cpu_ms_per_result']:.2f}"
                    + "".join(f", {ms:.2f}" for ms in followers)
                    + f"), {row['technical_losses']} technical losses",
                    flush=True,
                )
    figures = summary(rows)
    for name, figure in figures.items():
        print(
            f"{name:>13}: {figure['median_results_per_s']:.1f} results/s "
            f"({min(figure['results_per_s']):.1f}–{max(figure['results_per_s']):.1f}); ms CPU "
            f"per result: League Managers {spread(figure, 'lm_cpu_ms_per_result')}, leader "
            f"{spread(figure, 'leader_cpu_ms_per_result')}, a follower "
            f"{spread(figure, 'follower_cpu_ms_per_result')}, this process (balancer, polls) "
            f"{spread(figure, 'driver_cpu_ms_per_result')}; between rounds "
            f"{spread(figure, 'between_rounds_s')} s a round; machine busy "
            f"{figure['median_machine_busy_share']:.0%}"
        )
    if args.json:
        args.json.write_text(json.dumps({"runs": rows, "summary": figures}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

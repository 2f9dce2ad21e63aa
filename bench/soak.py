"""Soak: the League Manager killed with SIGKILL again and again while leagues play, restarted
each time on the same port and data folder; every agent a real process on loopback.

    .venv/bin/python bench/soak.py --kills 30 --seed 7
    .venv/bin/python bench/soak.py --kills 100 --seed 1 --players 16 --kills-per-league 25

Leagues of --players players (fast strategies) and --referees referees are played one after
another until --kills kills are done, each league with up to --kills-per-league kill points:
numbers of results counted, drawn with the seed, at which the League Manager is killed (by
progress read from GET /status, never by sleeping). A point already passed when the League
Manager comes back up kills it again at once, so kills also land while it resumes.

After each league: every scheduled match journaled exactly once (a second record is a double
count), and no mismatch (a match never counted or without its match file, a journaled
winner that is not the match file's, a standings.json row that is not what the match files
give, standings.json not the final GET /standings). Exits 1 if any league had one.

A benchmark, not a test: it prints what it measured and, with --json, writes it to a file.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.reliability.crash_league import check_league, kill_points, running_league  # noqa: E402


def play(
    root: Path, *, players: int, referees: int, kills: int, seed: int, timeout: float
) -> dict[str, Any]:
    """One league with up to ``kills`` League Manager kills; what happened and was found."""
    started = time.monotonic()
    with running_league(root, players=players, referees=referees) as league:
        ready = time.monotonic()
        total = league.start()
        points = kill_points(total, kills, seed)
        done = league.kill_manager_at(points, timeout)
        final = league.wait_completed(timeout)
        played = time.monotonic() - ready
        check = check_league(league.shared, final)
        restarts = list(league.restarts_sec)
    return {
        "seed": seed,
        "kill_points": points,
        "kills": done,
        "scheduled": check.scheduled,
        "counted": check.counted,
        "double_counts": check.double_counts,
        "mismatches": check.mismatches,
        "setup_sec": round(ready - started, 2),
        "league_sec": round(played, 2),
        "restart_sec": [round(seconds, 2) for seconds in restarts],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=30, help="League Manager kills in all")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill points")
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--referees", type=int, default=2)
    parser.add_argument("--kills-per-league", type=int, default=10)
    parser.add_argument(
        "--timeout",
        type=float,
        default=120,
        help="seconds a league may take to reach a kill point or its end",
    )
    parser.add_argument("--json", type=Path, help="write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the leagues' folders")
    args = parser.parse_args()
    if args.kills < 1 or args.kills_per_league < 1 or args.players < 2:
        parser.error("--kills and --kills-per-league must be at least 1, --players at least 2")

    root = Path(tempfile.mkdtemp(prefix="league-soak-"))
    leagues: list[dict[str, Any]] = []
    started = time.monotonic()
    try:
        while sum(league["kills"] for league in leagues) < args.kills:
            left = args.kills - sum(league["kills"] for league in leagues)
            number = len(leagues) + 1
            league = play(
                root / f"league-{number}",
                players=args.players,
                referees=args.referees,
                kills=min(left, args.kills_per_league),
                seed=args.seed * 1000 + number,
                timeout=args.timeout,
            )
            leagues.append(league)
            print(
                f"league {number}: {league['kills']} kill(s) at {league['kill_points']}, "
                f"{league['counted']}/{league['scheduled']} matches counted, "
                f"{len(league['double_counts'])} double count(s), "
                f"{len(league['mismatches'])} mismatch(es), played in "
                f"{league['league_sec']} s",
                flush=True,
            )
            for problem in league["double_counts"] + league["mismatches"]:
                print(f"  {problem}", flush=True)
            if league["kills"] == 0:
                break  # a league too short for any kill point: more would not help
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    elapsed = time.monotonic() - started
    restarts = [seconds for league in leagues for seconds in league["restart_sec"]]
    summary = {
        "kills": sum(league["kills"] for league in leagues),
        "leagues": len(leagues),
        "matches_scheduled": sum(league["scheduled"] for league in leagues),
        "matches_counted": sum(league["counted"] for league in leagues),
        "double_counts": sum(len(league["double_counts"]) for league in leagues),
        "mismatches": sum(len(league["mismatches"]) for league in leagues),
        "restart_sec_mean": round(sum(restarts) / len(restarts), 2) if restarts else None,
        "restart_sec_max": round(max(restarts), 2) if restarts else None,
        "seconds": round(elapsed, 1),
    }
    print(
        f"kills done {summary['kills']} in {summary['leagues']} league(s); matches "
        f"{summary['matches_counted']}/{summary['matches_scheduled']} counted; double counts "
        f"{summary['double_counts']}; mismatches {summary['mismatches']}; restart (kill to "
        f"healthy) mean {summary['restart_sec_mean']} s, max {summary['restart_sec_max']} s; "
        f"time {summary['seconds']} s"
    )
    if args.keep:
        print(f"folders kept in {root}")
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "leagues": leagues}, indent=2))
    sys.exit(1 if summary["double_counts"] or summary["mismatches"] else 0)


if __name__ == "__main__":
    main()

"""Evaluation throughput (``league evaluate``): the shipped repeated prisoner's dilemma suite
(100-round episodes), played in process and with both agents remote over HTTP.

- in process: ``suites/prisoners_dilemma.yaml`` as shipped (pavlov against tit for tat,
  exploitability included), both agents built in;
- remote: the same suite with both agents ``endpoint:`` agents — two real standalone player
  processes (``league player --standalone --game-type prisoners_dilemma``, pavlov and
  tit for tat) on free loopback ports with a private SHARED copied from ``SHARED/config``,
  called by the evaluator as a referee calls them (the match engine's remote seats,
  ``match_engine.remote``). Exploitability is dropped: it is refused for a remote agent;
- mixed (``--modes mixed``): the same with pavlov built in, played in the evaluator's own
  in-process seat (``match_engine.seats.StrategySeat``), against the tit-for-tat process.

Each run is ``league_cli.evaluation.report.evaluate`` (what ``league evaluate`` calls), timed
with ``time.perf_counter``: ``play`` up to the last episode's end, ``total`` with the metrics
and verdicts; the evaluator's CPU (``time.process_time``, every thread) is given in all and
up to the last episode's end (the episodes alone: what the match loop costs). Move calls
are the moves the histories hold (stages × agents); for the remote runs they are also
counted from the players' own logs (every GAME_MOVE_CALL a player served is logged once),
so the figure is what really crossed HTTP. The player processes are
stopped by their pids at the end, also on errors.

    .venv/bin/python bench/evaluation.py                          # 50 episodes, --parallel 1,4,16
    .venv/bin/python bench/evaluation.py --episodes 20 --parallel 4 --json out.json
    .venv/bin/python bench/evaluation.py --profile remote.prof    # cProfile one remote run
    .venv/bin/python bench/evaluation.py --modes local --parallel 4 --profile-local local.prof
    .venv/bin/python bench/evaluation.py --modes local --parallel 1,4 --repeat 5   # spread
    .venv/bin/python bench/evaluation.py --modes remote --parallel 4 --full-transcript

Each remote run writes its transcript (``league_cli.evaluation.transcript``: the summary, or
with --full-transcript every message) in the run's temporary folder; its size is printed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from league_cli.evaluation.report import Evaluation, evaluate  # noqa: E402
from league_cli.evaluation.suite import Suite  # noqa: E402
from league_cli.evaluation.suite_file import load_suite  # noqa: E402
from league_cli.evaluation.transcript import Transcript  # noqa: E402
from league_cli.launcher import AgentProcess, Launcher  # noqa: E402
from sdk.config import SharedDir  # noqa: E402
from tests.ports import free_port  # noqa: E402

SUITE = REPO / "suites" / "prisoners_dilemma.yaml"
GAME = "prisoners_dilemma"
REMOTE_PLAYERS = (("candidate", "pavlov"), ("tft", "tit_for_tat"))
"""(player id, strategy) of the two remote seats, in seat order: the shipped suite's agents."""


def remote_suite_file(endpoints: dict[str, str], folder: Path, mode: str = "remote") -> Path:
    """The shipped suite with its agents ``endpoint:`` agents (``mixed``: the first one built
    in, played in the evaluator's in-process seat) and no exploitability, as YAML."""
    data = yaml.safe_load(SUITE.read_text())
    data["name"] = f"{data['name']}-{mode}"
    data["agents"] = [
        {"name": player, "adapter": "builtin", "strategy": strategy}
        if mode == "mixed" and index == 0
        else {"name": player, "adapter": "http", "endpoint": endpoints[player]}
        for index, (player, strategy) in enumerate(REMOTE_PLAYERS)
    ]
    evaluation = data["evaluation"]
    evaluation["metrics"] = [m for m in evaluation["metrics"] if m["type"] != "exploitability"]
    evaluation["thresholds"].pop("exploitability", None)
    path = folder / f"prisoners_dilemma_{mode}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def start_players(launcher: Launcher) -> list[AgentProcess]:
    """Two standalone players (no League Manager), healthy."""
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"  # a standalone player never calls it
    players = [
        launcher.player(
            player.capitalize(),
            free_port(),
            unused_lm,
            strategy=strategy,
            game_type=GAME,
            player_id=player,
            standalone=True,
        )
        for player, strategy in REMOTE_PLAYERS
    ]
    for process in players:
        launcher.wait_healthy(process)
    return players


def served_move_calls(shared: SharedDir) -> int:
    """GAME_MOVE_CALLs the players served so far, from their logs."""
    served = 0
    for path in (shared.root / "logs" / "agents").glob("*.log.jsonl"):
        if path.name.startswith("evaluation"):
            continue
        with open(path, encoding="utf-8") as handle:
            served += sum(
                '"message_received"' in line and '"GAME_MOVE_CALL"' in line for line in handle
            )
    return served


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a live process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(
    suite: Suite,
    parallel: int,
    shared: SharedDir | None,
    profile: Path | None = None,
    transcript: Transcript | None = None,
) -> tuple[Evaluation, float, float, float]:
    """(the evaluation, seconds to the last episode's end, seconds in all, this process's
    CPU seconds to the last episode's end)."""
    last_done = [0.0, 0.0]

    def done(_episode: object) -> None:
        last_done[:] = [time.perf_counter(), time.process_time()]

    profiler = cProfile.Profile() if profile else None
    cpu_started = time.process_time()
    started = time.perf_counter()
    if profiler:
        profiler.enable()
    evaluation = evaluate(
        suite,
        str(SUITE),
        parallel=parallel,
        shared=shared,
        transcript=transcript,
        on_done=done,
    )
    if profiler and profile:
        profiler.disable()
        profiler.dump_stats(profile)
    total = time.perf_counter() - started
    return evaluation, last_done[0] - started, total, last_done[1] - cpu_started


def row(
    mode: str,
    parallel: int,
    evaluation: Evaluation,
    play: float,
    total: float,
    served: int | None,
    cpu: dict[str, float],
) -> dict[str, Any]:
    finished = evaluation.finished
    moves = sum(
        len(e.history.stages) * len(e.history.players) for e in finished if e.history is not None
    )
    result: dict[str, Any] = {
        "mode": mode,
        "parallel": parallel,
        "episodes": len(evaluation.episodes),
        "finished": len(finished),
        "play_s": play,
        "total_s": total,
        "episodes_per_s": len(evaluation.episodes) / play,
        "moves": moves,
        "moves_per_s": moves / play,
        "verdict": evaluation.verdict,
        "cpu_s": cpu,
    }
    if served is not None:
        result["served_move_calls"] = served
        result["served_move_calls_per_s"] = served / play
    if evaluation.transcript is not None:
        result["transcript"] = evaluation.transcript.to_json()
    return result


def show(result: dict[str, Any]) -> None:
    served = (
        f"  served {result['served_move_calls']:>6} ({result['served_move_calls_per_s']:7.0f}/s)"
        if "served_move_calls" in result
        else ""
    )
    print(
        f"{result['mode']:<10} {result['parallel']:>8} {result['finished']:>4}/"
        f"{result['episodes']:<4} {result['play_s']:>7.2f} {result['total_s']:>7.2f} "
        f"{result['episodes_per_s']:>9.1f} {result['moves_per_s']:>9.0f}{served}  cpu s: "
        + ", ".join(f"{who} {secs:.2f}" for who, secs in result["cpu_s"].items())
        + _transcript_note(result.get("transcript")),
        flush=True,
    )


def _transcript_note(transcript: dict[str, Any] | None) -> str:
    if transcript is None:
        return ""
    over = f", {transcript['withheld']} records over its bound" if transcript["withheld"] else ""
    return f"  transcript ({transcript['mode']}) {transcript['bytes']:,} bytes{over}"


def run_served(
    mode: str,
    suite: Suite,
    levels: list[int],
    players: list[AgentProcess],
    shared: SharedDir,
    workdir: Path,
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    """The suite at each level of parallelism against the running players, with the CPU
    each process spent."""
    rows: list[dict[str, Any]] = []
    for parallel in levels:
        before = served_move_calls(shared)
        cpu_before = {p.name: cpu_seconds(p.popen.pid) for p in players}
        cpu_before["evaluator"] = time.process_time()
        profile = args.profile if mode == "remote" and parallel == levels[-1] else None
        transcript = Transcript(
            workdir / "transcripts" / f"{mode}-parallel-{parallel}",
            suite.name,
            full=args.full_transcript,
        )
        evaluation, play, total, play_cpu = timed(suite, parallel, shared, profile, transcript)
        cpu = {
            "evaluator": time.process_time() - cpu_before["evaluator"],
            "evaluator to the last episode": play_cpu,
            **{p.name: cpu_seconds(p.popen.pid) - cpu_before[p.name] for p in players},
        }
        rows.append(
            row(
                mode,
                parallel,
                evaluation,
                play,
                total,
                served_move_calls(shared) - before,
                cpu,
            )
        )
        show(rows[-1])
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=50)
    parser.add_argument("--parallel", default="1,4,16", help="comma-separated values")
    parser.add_argument(
        "--repeat", type=int, default=1, help="in-process runs at each --parallel (noise)"
    )
    parser.add_argument(
        "--modes", default="local,remote", help="comma-separated: local, remote, mixed"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--full-transcript",
        action="store_true",
        help="remote runs write every message, not the summary",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        help="cProfile the remote run at the largest --parallel into this file",
    )
    parser.add_argument(
        "--profile-local",
        type=Path,
        help="cProfile the in-process run at the largest --parallel into this file",
    )
    args = parser.parse_args()
    levels = sorted({int(p) for p in args.parallel.split(",")})
    modes = args.modes.split(",")
    print(
        f"{SUITE.relative_to(REPO)}, {args.episodes} episodes; load average "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    )
    print(
        f"{'mode':<10} {'parallel':>8} {'finished':>9} {'play s':>7} {'total s':>7} "
        f"{'episodes/s':>9} {'moves/s':>9}"
    )
    rows = []
    if "local" in modes:
        suite = load_suite(SUITE).model_copy(update={"episodes": args.episodes})
        for parallel in [level for level in levels for _ in range(args.repeat)]:
            before = time.process_time()
            profile = args.profile_local if parallel == levels[-1] else None
            evaluation, play, total, play_cpu = timed(suite, parallel, None, profile)
            rows.append(
                row(
                    "in-process",
                    parallel,
                    evaluation,
                    play,
                    total,
                    None,
                    {
                        "evaluator": time.process_time() - before,
                        "evaluator to the last episode": play_cpu,
                    },
                )
            )
            show(rows[-1])

    served_modes = [mode for mode in ("remote", "mixed") if mode in modes]
    if served_modes:
        workdir = Path(tempfile.mkdtemp(prefix="league-bench-evaluation-"))
        shutil.copytree(REPO / "SHARED" / "config", workdir / "SHARED" / "config")
        shared = SharedDir(workdir / "SHARED")
        launcher = Launcher(shared.root)
        try:
            players = start_players(launcher)
            endpoints = {
                player: process.mcp_url
                for (player, _strategy), process in zip(REMOTE_PLAYERS, players, strict=True)
            }
            for mode in served_modes:
                suite = load_suite(remote_suite_file(endpoints, workdir, mode)).model_copy(
                    update={"episodes": args.episodes}
                )
                timed(suite.model_copy(update={"episodes": 2}), 2, shared)  # warm up players
                rows.extend(run_served(mode, suite, levels, players, shared, workdir, args))
        finally:
            launcher.stop_all()
            shutil.rmtree(workdir, ignore_errors=True)
    if args.profile and "remote" in modes:
        print(f"profile of the remote run at --parallel {levels[-1]}: {args.profile}")
    if args.profile_local and "local" in modes:
        print(f"profile of the in-process run at --parallel {levels[-1]}: {args.profile_local}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "suite": str(SUITE.relative_to(REPO)),
                    "episodes": args.episodes,
                    "load_average": os.getloadavg()[0],
                    "cpus": os.cpu_count(),
                    "rows": rows,
                },
                indent=2,
            )
            + "\n"
        )
    return 0 if all(r["finished"] == r["episodes"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

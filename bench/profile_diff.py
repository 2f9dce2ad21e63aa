"""Where a process's extra CPU went between two cProfile runs of it (say the League Manager
with broadcasts off, then on: ``bench/scale_http.py --profile-lm``, or a referee or a player
host before and after a change: ``--profile-referee``, ``--profile-player-host``): each
function's own time (tottime) grouped by what it is, a builtin's charged to its callers in
proportion, per result: the League Manager's recorded (calls of ``ResultDesk._record``), a
referee's reported (``ResultReport.__call__``), or half a player host's GAME_OVERs (each
result is two, one to each player; the hosts share them, so a host's CPU per result of its
own is the players' CPU per result of the league).

    .venv/bin/python bench/profile_diff.py off.prof on.prof

cProfile slows a process 2-4 times: read the shares, not the milliseconds.
"""

from __future__ import annotations

import argparse
import pstats
from collections import defaultdict

HTTP_CLIENT = "HTTP client (aiohttp, httpx, httpcore, h11, anyio)"
LOGGING = "logging (sdk.agent_log, structlog, redaction, orjson)"
JSONRPC = "JSON-RPC serving (sdk.jsonrpc, jsonrpcserver, oslash)"
OWN = "the agent's own code"
GROUPS = (
    ("/aiohttp/", HTTP_CLIENT),
    ("/yarl/", HTTP_CLIENT),
    ("/multidict/", HTTP_CLIENT),
    ("sdk/posting.py", HTTP_CLIENT),
    ("/httpx/", HTTP_CLIENT),
    ("/httpcore/", HTTP_CLIENT),
    ("/h11/", HTTP_CLIENT),
    ("/anyio/", HTTP_CLIENT),
    ("/sniffio/", HTTP_CLIENT),
    ("sdk/jsonrpc.py", JSONRPC),
    ("/jsonrpcserver/", JSONRPC),
    ("/oslash/", JSONRPC),
    ("sdk/agent_log.py", LOGGING),
    ("/structlog/", LOGGING),
    ("sdk/auth.py", LOGGING),
    ("/pydantic", "messages (pydantic)"),
    ("sdk/messages", "messages (pydantic)"),
    ("/json/", "JSON (stdlib json)"),
    ("/uvicorn/", "HTTP server (uvicorn, starlette, fastapi)"),
    ("/starlette/", "HTTP server (uvicorn, starlette, fastapi)"),
    ("/fastapi/", "HTTP server (uvicorn, starlette, fastapi)"),
    ("/asyncio/", "asyncio"),
    ("/uvloop/", "asyncio"),
    ("league_manager/", OWN),
    ("referee/", OWN),
    ("match_engine/", OWN),
    ("players/", OWN),
    ("strategies/", OWN),
    ("sdk/", "sdk, the rest"),
)
IDLE = "idle (waiting for I/O)"
BUILTIN = "builtins (caller unknown)"
RESULTS = (
    ("league_manager/results.py", "_record", 1),
    ("referee/match.py", "__call__", 1),
    ("players/host.py", "game_over", 2),
)
"""What counts the results in each kind of process: the file, the function, the calls per
result."""


def group(path: str, name: str) -> str:
    if path == "~":
        if (
            name.startswith("<method 'poll'")
            or name.startswith("<method 'select'")
            or name.startswith("<method 'control'")
        ):
            return IDLE
        if "orjson" in name:
            return LOGGING
        return BUILTIN
    for key, label in GROUPS:
        if key in path:
            return label
    return "the rest"


def grouped(path: str) -> tuple[dict[str, float], int]:
    """Seconds by group, and the results recorded."""
    seconds: dict[str, float] = defaultdict(float)
    results = 0
    entries = pstats.Stats(path).stats  # type: ignore[attr-defined]
    for (file, _line, name), (_cc, calls, own, _cum, callers) in entries.items():
        label = group(file, name)
        for counter, function, per_result in RESULTS:
            if file.endswith(counter) and name == function:
                results = calls // per_result
        if label == BUILTIN and callers:
            whole = sum(entry[2] for entry in callers.values()) or 1.0
            for (cfile, _cline, cname), entry in callers.items():
                seconds[group(cfile, cname)] += own * entry[2] / whole
        else:
            seconds[label] += own
    return seconds, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", help="cProfile statistics of the first run")
    parser.add_argument(
        "after", nargs="?", help="cProfile statistics of the second run (none: the first alone)"
    )
    args = parser.parse_args()
    before, before_results = grouped(args.before)
    after, after_results = grouped(args.after) if args.after else (before, before_results)
    if not before_results or not after_results:
        parser.error("a profile counts no result (" + ", ".join(f for _, f, _ in RESULTS) + ")")

    def ms(seconds: dict[str, float], results: int, label: str) -> float:
        return 1000 * seconds.get(label, 0.0) / results

    labels = sorted(
        set(before) | set(after),
        key=lambda k: ms(before, before_results, k) - ms(after, after_results, k),
    )
    busy = [label for label in labels if label != IDLE]
    if not args.after:
        _alone(before, before_results, sorted(busy, key=lambda k: -before[k]))
        return
    extra = sum(ms(after, after_results, k) - ms(before, before_results, k) for k in busy)
    print(f"results recorded: {before_results} and {after_results}")
    print(f"{'':55} {'ms/result':>10} {'ms/result':>10} {'extra':>8} {'share':>7}")
    for label in labels:
        first, second = ms(before, before_results, label), ms(after, after_results, label)
        share = "" if label == IDLE or not extra else f"{(second - first) / extra:.0%}"
        print(f"{label:55} {first:10.2f} {second:10.2f} {second - first:8.2f} {share:>7}")
    print(
        f"{'busy, in all':55} {sum(ms(before, before_results, k) for k in busy):10.2f} "
        f"{sum(ms(after, after_results, k) for k in busy):10.2f} {extra:8.2f}"
    )


def _alone(seconds: dict[str, float], results: int, busy: list[str]) -> None:
    """One profile: each group's CPU per result and share of the busy time."""
    total = sum(seconds[label] for label in busy) or 1.0
    print(f"results recorded: {results}")
    print(f"{'':55} {'ms/result':>10} {'share':>7}")
    for label in busy:
        print(f"{label:55} {1000 * seconds[label] / results:10.2f} {seconds[label] / total:7.0%}")
    print(f"{'busy, in all':55} {1000 * total / results:10.2f}")


if __name__ == "__main__":
    main()

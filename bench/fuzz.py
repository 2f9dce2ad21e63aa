"""Fuzzing every service's /mcp by the tens of thousands, over real HTTP on loopback.

    .venv/bin/python bench/fuzz.py                        # 20,000 requests per service
    .venv/bin/python bench/fuzz.py --requests 2000 --seed 7 --concurrency 8
    .venv/bin/python bench/fuzz.py --strict --save-failures /tmp/fuzz-failures

A League Manager, a referee and a player start as their own processes (a private SHARED
folder under a temporary directory, free loopback ports; ``tests/reliability/services.py``),
and each is sent --requests bodies with --concurrency in flight, one service after the other.
The bodies come from the hypothesis strategies of the test suite
(``tests/reliability/strategies.py``): a corpus of --corpus bodies per service, every kind
alike (random bytes, cut-off JSON, deep nesting, arbitrary JSON, JSON-RPC-shaped requests
with the service's real method names and its messages' field names, batches, valid messages
with fields removed or changed), drawn with a fixed seed. Hypothesis draws a few hundred
bodies a second, so the rest are made by mutating the corpus, seeded the same way: a body
sent as drawn, a JSON value spliced in from another body, a part removed, requests batched,
or bytes flipped, cut, inserted or spliced.

Every answer is checked as the test suite checks it (``answer_problems``: never HTTP 500,
a JSON-RPC response, HTTP 204 or 413, no traceback, no -32603); a request that gets no answer
within --timeout, a process that exits, a /health that stops answering and any traceback in
a process's output are failures too. Prints, per service, the count tried, the failures and
the rate; exits 1 if anything failed. With --save-failures, each failing body is written to
that folder (replay one with ``curl --data-binary @file URL``). The processes are stopped by
pid at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.reliability.services import (  # noqa: E402
    TRACEBACK_MARKS,
    Service,
    answer_problems,
    running_services,
)
from tests.reliability.strategies import KINDS, body_kinds, paths_in  # noqa: E402


def draw(strategy: st.SearchStrategy[bytes], count: int, draw_seed: int) -> list[bytes]:
    """``count`` bodies from a hypothesis strategy, generated only (no shrinking), seeded."""
    per_example = 10  # drawing the bodies in lists costs less per body
    drawn: list[bytes] = []

    @seed(draw_seed)
    @settings(
        max_examples=-(-count // per_example),
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(strategy, min_size=per_example, max_size=per_example))
    def collect(bodies: list[bytes]) -> None:
        drawn.extend(bodies)

    collect()
    return drawn[:count]


def draw_corpus(service: Service, size: int, corpus_seed: int) -> list[bytes]:
    """``size`` bodies for ``service`` from the test suite's strategies, every kind alike."""
    per_kind = max(1, size // len(KINDS))
    return [
        body
        for offset, strategy in enumerate(body_kinds(service.methods).values())
        for body in draw(strategy, per_kind, corpus_seed + offset)
    ]


class Mutator:
    """More bodies from a corpus: each sent as drawn or changed once, at the JSON level (a
    value spliced in from another body, a part removed, requests batched) or the byte level."""

    def __init__(self, corpus: list[bytes], rng: random.Random):
        self._corpus = corpus
        self._rng = rng
        self._parsed: list[Any] = []
        for body in corpus:
            try:
                value = json.loads(body)
                paths_in(value)  # nested too deeply to walk: byte mutations only
            except (ValueError, RecursionError):
                continue
            self._parsed.append(value)

    def body(self) -> bytes:
        rng = self._rng
        original = rng.choice(self._corpus)
        roll = rng.random()
        if roll < 0.3:
            return original
        if roll < 0.75 and self._parsed:
            try:
                text = json.dumps(self._json_mutation(), ensure_ascii=rng.random() < 0.5)
                return text.encode("utf-8", "surrogatepass")
            except RecursionError:  # a deep value spliced into a deep one
                pass
        return self._byte_mutation(original)

    def _json_mutation(self) -> Any:
        rng = self._rng
        value = json.loads(json.dumps(rng.choice(self._parsed)))
        if rng.random() < 0.15:
            return [
                json.loads(json.dumps(rng.choice(self._parsed))) for _ in range(rng.randint(1, 8))
            ]
        places = paths_in(value)
        if not places:
            return rng.choice(self._parsed)
        path = rng.choice(places)
        parent = value
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.3:
            del parent[path[-1]]
        else:
            donor = rng.choice(self._parsed)
            donor_places = paths_in(donor)
            spliced = donor
            for key in rng.choice(donor_places) if donor_places else ():
                spliced = spliced[key]
            parent[path[-1]] = spliced
        return value

    def _byte_mutation(self, body: bytes) -> bytes:
        rng = self._rng
        data = bytearray(body or b"{}")
        at = rng.randrange(len(data))
        roll = rng.random()
        if roll < 0.25:
            data[at] = rng.randrange(256)
        elif roll < 0.5:
            del data[at : at + rng.randint(1, 16)]
        elif roll < 0.75:
            data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            other = rng.choice(self._corpus)
            data = data[:at] + other[rng.randrange(len(other) + 1) :]
        return bytes(data)


def answer_kinds(response: httpx.Response) -> list[str]:
    """What each answer in a response was: a JSON-RPC error code, a LEAGUE_ERROR code or the
    message_type of a result (how deep the fuzz reached)."""
    if response.status_code != 200:
        return [f"HTTP {response.status_code}"]
    try:
        payload = response.json()
    except ValueError:
        return ["not JSON"]
    kinds = []
    for item in payload if isinstance(payload, list) else [payload]:
        if not isinstance(item, dict):
            kinds.append("not an object")
        elif "error" in item:
            kinds.append(
                str(item["error"].get("code") if isinstance(item["error"], dict) else "error")
            )
        elif isinstance(item.get("result"), dict):
            result = item["result"]
            kinds.append(str(result.get("error_code") or result.get("message_type")))
        else:
            kinds.append("result")
    return kinds


@dataclass
class Outcome:
    """What one service made of its requests."""

    service: str
    tried: int = 0
    seconds: float = 0.0
    failures: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    examples: list[tuple[str, bytes]] = field(default_factory=list)

    def fail(self, problem: str, body: bytes) -> None:
        kind = problem.split(":", 1)[0][:80]
        self.failures[kind] += 1
        if len(self.examples) < 50:
            self.examples.append((problem, body))


async def fuzz_service(
    service: Service, bodies: list[bytes], concurrency: int, timeout: float
) -> Outcome:
    outcome = Outcome(service.name)
    output_mark = service.output_size()
    pending = iter(bodies)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async def worker(client: httpx.AsyncClient) -> None:
        for body in pending:
            outcome.tried += 1
            try:
                response = await client.post(
                    service.mcp_url, content=body, headers={"content-type": "application/json"}
                )
            except httpx.TimeoutException:
                outcome.fail(f"no answer within {timeout:g} s", body)
                continue
            except httpx.HTTPError as exc:
                outcome.fail(f"transport: {type(exc).__name__}", body)
                continue
            outcome.statuses[response.status_code] += 1
            outcome.answers.update(answer_kinds(response))
            for problem in answer_problems(response, body):
                outcome.fail(problem, body)

    started = time.perf_counter()
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        await asyncio.gather(*(worker(client) for _ in range(concurrency)))
    outcome.seconds = time.perf_counter() - started
    if service.process.popen.poll() is not None:
        outcome.fail(f"process exited with code {service.process.popen.returncode}", b"")
    elif not service.healthy():
        outcome.fail("/health does not answer", b"")
    printed = service.output_since(output_mark)
    if any(mark in printed for mark in TRACEBACK_MARKS):
        outcome.fail("traceback in the process output", printed[-4000:].encode())
    return outcome


def save_failures(outcomes: list[Outcome], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for outcome in outcomes:
        for number, (problem, body) in enumerate(outcome.examples):
            stem = folder / f"{outcome.service}-{number:03d}"
            stem.with_suffix(".body").write_bytes(body)
            stem.with_suffix(".problem.txt").write_text(problem + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=20_000, help="per service")
    parser.add_argument(
        "--corpus",
        type=int,
        default=700,
        help="bodies drawn by hypothesis per service (the rest are mutations)",
    )
    parser.add_argument("--concurrency", type=int, default=16, help="requests in flight")
    parser.add_argument("--seed", type=int, default=2025)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    parser.add_argument(
        "--strict", action="store_true", help="the League Manager's league in strict protocol mode"
    )
    parser.add_argument("--save-failures", type=Path, help="write failing bodies here")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    outcomes: list[Outcome] = []
    with (
        tempfile.TemporaryDirectory(prefix="league-fuzz-") as workdir,
        running_services(Path(workdir), strict_league=args.strict) as services,
    ):
        for offset, service in enumerate(services):
            started = time.perf_counter()
            corpus = draw_corpus(service, args.corpus, args.seed + 100 * offset)
            mutator = Mutator(corpus, random.Random(args.seed + offset))
            bodies = corpus[: args.requests] + [
                mutator.body() for _ in range(max(0, args.requests - len(corpus)))
            ]
            print(
                f"{service.name}: {len(corpus)} bodies drawn by hypothesis, "
                f"{len(bodies) - min(len(corpus), len(bodies))} mutated, "
                f"in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
            outcome = asyncio.run(fuzz_service(service, bodies, args.concurrency, args.timeout))
            outcomes.append(outcome)
            statuses = ", ".join(
                f"{status}: {count}" for status, count in sorted(outcome.statuses.items())
            )
            print(
                f"{service.name}: {outcome.tried} tried in {outcome.seconds:.1f} s "
                f"({outcome.tried / outcome.seconds:,.0f}/s), "
                f"{sum(outcome.failures.values())} failures; HTTP {statuses}",
                flush=True,
            )
            for problem, count in outcome.failures.most_common():
                print(f"    {count:>6} x {problem}")
            print(
                "    answers: "
                + ", ".join(f"{kind} {count}" for kind, count in outcome.answers.most_common()),
                flush=True,
            )

    tried = sum(o.tried for o in outcomes)
    failed = sum(sum(o.failures.values()) for o in outcomes)
    seconds = sum(o.seconds for o in outcomes)
    print(f"total: {tried} tried, {failed} failures, {tried / seconds:,.0f} requests/s")
    if args.save_failures and failed:
        save_failures(outcomes, args.save_failures)
        print(f"failing bodies written to {args.save_failures}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "seed": args.seed,
                    "corpus": args.corpus,
                    "concurrency": args.concurrency,
                    "services": [
                        {
                            "service": o.service,
                            "tried": o.tried,
                            "seconds": o.seconds,
                            "failures": dict(o.failures),
                            "statuses": dict(o.statuses),
                            "answers": dict(o.answers),
                        }
                        for o in outcomes
                    ],
                },
                indent=2,
            )
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

"""The three services that the reliability tests and ``bench/fuzz.py`` aim at: a League
Manager, a referee and a player, real processes on free loopback ports with a private SHARED
folder, each stopped by its pid; and what a sound answer of theirs to any input looks like."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import httpx

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import LeaguePlan, start_processes
from league_manager.handlers import method_table
from players.handlers import player_methods
from referee.handlers import rpc_methods
from sdk.config import SharedDir
from sdk.jsonrpc import served_methods
from sdk.messages import Message
from tests.conftest import free_port, make_shared_dir

__all__ = [
    "SERVICE_NAMES",
    "TRACEBACK_MARKS",
    "Service",
    "Services",
    "answer_problems",
    "method_models",
    "running_services",
]

SERVICE_NAMES = ("league_manager", "referee", "player")
TRACEBACK_MARKS = ("Traceback (most recent call last)", 'File "')
"""Text that only a Python traceback puts in an answer or a process's output."""

_TRANSPORT_CODES = frozenset({-32700, -32600, -32601, -32602})
"""The JSON-RPC codes bad input may get; -32603 (our failure) is a finding, not an answer."""
_ERROR_CODE = re.compile(r"^E\d{3}$")


def method_models(service: str) -> dict[str, type[Message] | None]:
    """Every method name ``service`` serves (aliases too), with the model of its params,
    read from the service's own method table: its handlers close over the service object
    and are never called here, so none is built."""
    tables = {"league_manager": method_table, "referee": rpc_methods, "player": player_methods}
    table = tables[service](cast(Any, None))
    return {name: method.model for name, (method, _) in served_methods(table).items()}


@dataclass
class Service:
    """One running service and a client for its routes."""

    name: str
    process: AgentProcess
    client: httpx.Client
    methods: dict[str, type[Message] | None] = field(init=False)

    def __post_init__(self) -> None:
        self.methods = method_models(self.name)

    @property
    def mcp_url(self) -> str:
        return self.process.mcp_url

    def post(self, body: Any, **headers: str) -> httpx.Response:
        """POST ``body`` (bytes, or anything httpx streams) to /mcp as any peer would."""
        return self.client.post(
            self.mcp_url, content=body, headers={"content-type": "application/json", **headers}
        )

    def healthy(self) -> bool:
        """The process runs and /health answers 200."""
        if self.process.popen.poll() is not None:
            return False
        try:
            return self.client.get(f"{self.process.base_url}/health").status_code == 200
        except httpx.HTTPError:
            return False

    def output_size(self) -> int:
        """How much the process has written to its stdout/stderr file so far."""
        return self.process.output.stat().st_size

    def output_since(self, offset: int) -> str:
        """What the process wrote after ``offset`` (uvicorn and logging print tracebacks
        there, so a failure that the answer hides still shows)."""
        with open(self.process.output, "rb") as handle:
            handle.seek(offset)
            return handle.read().decode(errors="replace")


@dataclass
class Services:
    """The three running services, by name."""

    shared: SharedDir
    by_name: dict[str, Service]

    def __getitem__(self, name: str) -> Service:
        return self.by_name[name]

    def __iter__(self) -> Iterator[Service]:
        return iter(self.by_name.values())


@contextmanager
def running_services(root: Path, *, strict_league: bool = False) -> Iterator[Services]:
    """Start a League Manager, a referee and a player under ``root``, wait until both agents
    have registered, and stop all three by pid on the way out.

    ``strict_league`` runs the League Manager's league in strict protocol mode (grading).
    """
    shared = make_shared_dir(root / "SHARED")
    if strict_league:
        league_path = shared.config_dir / "leagues" / f"{shared.system().default_league_id}.json"
        league = json.loads(league_path.read_text())
        league_path.write_text(json.dumps({**league, "protocol_mode": "strict"}))
    plan = LeaguePlan(
        shared_dir=shared.root,
        players=[("P1", free_port(), "random")],
        referees=[("Ref1", free_port(), 4)],
        lm_port=free_port(),
    )
    launcher = Launcher(shared.root)
    try:
        with httpx.Client(timeout=30) as client:
            start_processes(plan, launcher, client)
            kinds = {process.kind: process for process in launcher.processes}
            yield Services(
                shared,
                {
                    name: Service(name, kinds[kind], client)
                    for name, kind in zip(
                        SERVICE_NAMES, ("manager", "referee", "player"), strict=True
                    )
                },
            )
    finally:
        launcher.stop_all()


def answer_problems(response: httpx.Response, sent: bytes = b"") -> list[str]:
    """What is wrong with an answer of /mcp to any input (empty: nothing).

    Sound answers: HTTP 200 with a JSON-RPC 2.0 response object or a non-empty batch of them,
    HTTP 204 with no body (notifications only), HTTP 413 with a -32600 error (too large).
    Errors carry a code bad input may get and a message; a LEAGUE_ERROR result carries an
    ``Ennn`` code and a description. No traceback text, unless the request itself held it.
    """
    text = response.text
    problems = [
        f"traceback text {mark!r} in the answer"
        for mark in TRACEBACK_MARKS
        if mark in text and mark.encode() not in sent
    ][:1]
    status = response.status_code
    if status == 204:
        return problems + ([f"HTTP 204 with a body: {text[:200]!r}"] if text else [])
    if status not in (200, 413):
        return problems + [f"HTTP {status}: {text[:200]!r}"]
    try:
        payload = json.loads(text)
    except ValueError:
        return problems + [f"HTTP {status} with a body that is not JSON: {text[:200]!r}"]
    if status == 413:
        if not (isinstance(payload, dict) and payload.get("error", {}).get("code") == -32600):
            problems.append(f"HTTP 413 without a -32600 error: {text[:200]!r}")
        return problems
    if isinstance(payload, list) and not payload:
        return problems + ["an empty batch answer (nothing to answer must be HTTP 204)"]
    for item in payload if isinstance(payload, list) else [payload]:
        problems += _response_problems(item)
    return problems


def _response_problems(item: Any) -> list[str]:
    shown = json.dumps(item)[:300]
    if not isinstance(item, dict) or item.get("jsonrpc") != "2.0":
        return [f"not a JSON-RPC 2.0 response object: {shown}"]
    if ("result" in item) == ("error" in item) or not item.keys() <= {
        "jsonrpc",
        "result",
        "error",
        "id",
    }:
        return [f"a response holds result or error, and id: {shown}"]
    request_id = item.get("id", "missing")
    if not isinstance(request_id, (str, int, float, type(None))) or isinstance(request_id, bool):
        return [f"the response's id is not a string, number or null: {shown}"]
    if "error" in item:
        error = item["error"]
        if not isinstance(error, dict) or error.get("code") not in _TRANSPORT_CODES:
            return [f"an error that bad input must not get: {shown}"]
        if not isinstance(error.get("message"), str) or not error["message"]:
            return [f"an error without a message: {shown}"]
        return []
    result = item["result"]
    if isinstance(result, dict) and result.get("message_type") == "LEAGUE_ERROR":
        code, description = result.get("error_code"), result.get("error_description")
        if not isinstance(code, str) or not _ERROR_CODE.match(code):
            return [f"a LEAGUE_ERROR without an Ennn error_code: {shown}"]
        if not isinstance(description, str) or not description.strip():
            return [f"a LEAGUE_ERROR without a description: {shown}"]
    return []

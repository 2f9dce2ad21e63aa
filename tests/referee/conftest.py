"""Scripted players and a fake League Manager behind ``httpx.MockTransport``, and a harness
that runs one match against them."""

from __future__ import annotations

import asyncio
import inspect
import json
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from games import even_odd
from match_engine.decisions import DecisionLog
from match_engine.match import Match
from match_engine.match_file import MatchFile
from match_engine.outcome import MatchOutcome
from match_engine.plan import MatchPlan
from match_engine.remote import RemotePlayers
from match_engine.rules import load_rules
from referee import registration
from referee.app import create_app
from referee.config import RefereeSettings
from referee.match import LeagueReport, referee_match
from referee.service import RefereeService
from sdk.agent_log import AgentLog
from sdk.auth import PROOF_SCHEME, league_manager_proof
from sdk.client import RpcClient
from sdk.config import ScoringConfig, SharedDir
from sdk.messages import (
    Acknowledgement,
    ChooseParityResponse,
    GameJoinAck,
    MatchResultAck,
    MatchSeat,
    ParityChoice,
    RefereeRegisterResponse,
    Role,
    StartMatch,
    WinLossRecord,
)
from sdk.timeutil import utc_now
from sdk.tolerance import ProtocolMode
from tests.conftest import make_shared_dir

LEAGUE_ID = "league_2025_even_odd"
FAST_TIMEOUTS = {
    "register_referee": 0.5,
    "handle_game_invitation": 0.2,
    "choose_parity": 0.2,
    "notify_game_error": 0.2,
    "notify_match_result": 0.2,
    "report_match_result": 0.2,
}

Fault = str
"""'timeout' (hang until the caller gives up), 'connect' (connection refused),
'league_error' (a LEAGUE_ERROR answer), 'http500'."""


class ScriptedAgent:
    """One agent behind the mock network: answers well unless a fault is scripted."""

    def __init__(self, endpoint: str, agent_id: str):
        self.endpoint = endpoint
        self.agent_id = agent_id
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.overrides: dict[str, Callable[[dict[str, Any]], Any]] = {}
        """Per method: builds the result (a dict, or an awaitable of one)."""
        self._faults: dict[str, list[Fault]] = {}
        self._always: dict[str, Fault] = {}
        self.arrived = asyncio.Event()

    def fail(self, method: str, fault: Fault, times: int | None = None) -> None:
        """Fail ``method`` ``times`` times (None: every time)."""
        if times is None:
            self._always[method] = fault
        else:
            self._faults.setdefault(method, []).extend([fault] * times)

    def received(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.calls if name == method]

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return Acknowledgement(
            sender=self.agent_id,
            conversation_id=params["conversation_id"],
            acknowledged=str(params.get("message_type")),
        ).to_wire()

    async def respond(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        method, params = body["method"], body["params"]
        self.calls.append((method, params))
        self.arrived.set()
        queued = self._faults.get(method)
        fault = queued.pop(0) if queued else self._always.get(method)
        if fault == "timeout":
            await asyncio.Event().wait()
        if fault == "connect":
            raise httpx.ConnectError("connection refused", request=request)
        if fault == "http500":
            return httpx.Response(500, text="boom")
        if fault == "league_error":
            result: dict[str, Any] = {
                "message_type": "LEAGUE_ERROR",
                "error_code": "E012",
                "error_description": "scripted refusal",
            }
        elif method in self.overrides:
            result = self.overrides[method](params)
            if inspect.isawaitable(result):
                result = await result
        else:
            result = self.answer(method, params)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result})


class ScriptedPlayer(ScriptedAgent):
    """A player that joins and chooses ``choice``."""

    def __init__(self, player_id: str, choice: ParityChoice = "even", *, accept: bool = True):
        super().__init__(f"http://{player_id.lower()}.test/mcp", player_id)
        self.player_id = player_id
        self.choice = choice
        self.accept = accept

    def seat(self, role: Role, standings: WinLossRecord | None = None) -> MatchSeat:
        return MatchSeat(
            player_id=self.player_id,
            display_name=f"Player {self.player_id}",
            contact_endpoint=self.endpoint,
            role=role,
            standings=standings or WinLossRecord(),
        )

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        common = {
            "sender": f"player:{self.player_id}",
            "conversation_id": params["conversation_id"],
            "match_id": params["match_id"],
            "player_id": self.player_id,
        }
        if method == "handle_game_invitation":
            return GameJoinAck(**common, arrival_timestamp=utc_now(), accept=self.accept).to_wire()
        if method == "choose_parity":
            return ChooseParityResponse(**common, parity_choice=self.choice).to_wire()
        return super().answer(method, params)


class FakeLeagueManager(ScriptedAgent):
    """Registers referees as REF07 and records result reports."""

    TOKEN = "ref07-secret-token-abcdefghijklmnopqrstuvwxyz"

    def __init__(self) -> None:
        super().__init__("http://lm.test/mcp", "league_manager")
        self.reported = asyncio.Event()
        self.status = "ACCEPTED"

    def answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        common = {
            "sender": "league_manager",
            "conversation_id": params["conversation_id"],
            "league_id": LEAGUE_ID,
        }
        if method == "register_referee":
            if self.status != "ACCEPTED":
                return RefereeRegisterResponse(
                    **common, status="REJECTED", reason="the league is full"
                ).to_wire()
            return RefereeRegisterResponse(
                **common,
                status="ACCEPTED",
                referee_id="REF07",
                auth_token=self.TOKEN,
                auth_proofs=PROOF_SCHEME,
            ).to_wire()
        if method == "report_match_result":
            self.reported.set()
            return MatchResultAck(
                **common, match_id=params["match_id"], status="RECORDED"
            ).to_wire()
        return super().answer(method, params)


class Network:
    """Routes each request to the scripted agent at its URL."""

    def __init__(self, *agents: ScriptedAgent):
        self.agents = {agent.endpoint: agent for agent in agents}

    def add(self, *agents: ScriptedAgent) -> None:
        self.agents.update({agent.endpoint: agent for agent in agents})

    async def handle(self, request: httpx.Request) -> httpx.Response:
        agent = self.agents.get(str(request.url))
        if agent is None:
            raise httpx.ConnectError(f"nobody at {request.url}", request=request)
        return await agent.respond(request)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


def seed_drawing(parity: str) -> int:
    """A match seed whose draw has ``parity``."""
    for seed in range(100):
        if even_odd.parity_of(even_odd.draw_number(random.Random(seed))).value == parity:
            return seed
    raise AssertionError("no seed found")


def fast_shared_dir(root: Path, **overrides: Any) -> SharedDir:
    """A private SHARED with fast retries and sub-second timeouts (``overrides`` win)."""
    return make_shared_dir(root, **{"timeouts_sec": FAST_TIMEOUTS, **overrides})


@pytest.fixture
def fast_shared(tmp_path: Path) -> SharedDir:
    return fast_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def lm() -> FakeLeagueManager:
    return FakeLeagueManager()


def referee_settings(shared: SharedDir, **overrides: Any) -> RefereeSettings:
    values: dict[str, Any] = {
        "shared_dir": shared.root,
        "port": 8001,
        "display_name": "Referee Test",
        "league_manager_url": FakeLeagueManager().endpoint,
        "max_concurrent_matches": 2,
    }
    values.update(overrides)
    return RefereeSettings(**values)


class MatchHarness:
    """Runs single matches with a real client over the mock network."""

    SENDER = "referee:REF07"

    def __init__(self, shared: SharedDir, network: Network, lm: FakeLeagueManager):
        self.shared = shared
        self.network = network
        self.lm = lm
        self.system = shared.system()
        self.log = AgentLog(shared.agent_log_path("REF07"), "REF07")
        self.client = RpcClient(self.system, self.log, transport=network.transport())
        self.rules = load_rules(shared, "even_odd")
        self.decisions = DecisionLog(shared.match_path(LEAGUE_ID, "any").parent, "REF07", self.log)
        """The decided records, as a referee keeps them."""

    def record_for(self, plan: MatchPlan, report: bool) -> MatchFile:
        return MatchFile(
            self.shared.match_path(plan.league_id, plan.match_id),
            match_id=plan.match_id,
            league_id=plan.league_id,
            round_id=plan.round_id,
            game_type=plan.game_type,
            referee_id="REF07",
            conversation_id=plan.conversation_id,
            seats=list(plan.seats),
            report_status="pending" if report else "not_required",
            decisions=self.decisions,
        )

    def plan(
        self,
        a: ScriptedPlayer,
        b: ScriptedPlayer,
        *,
        seed: int | None = 0,
        match_id: str = "R1M1",
        standings: tuple[WinLossRecord, WinLossRecord] | None = None,
        protocol_mode: ProtocolMode = "lenient",
    ) -> MatchPlan:
        records = standings or (WinLossRecord(), WinLossRecord())
        return MatchPlan(
            league_id=LEAGUE_ID,
            round_id=1,
            match_id=match_id,
            game_type="even_odd",
            seats=(a.seat("PLAYER_A", records[0]), b.seat("PLAYER_B", records[1])),
            seed=seed,
            scoring=ScoringConfig(),
            protocol_mode=protocol_mode,
        )

    def runner(self, plan: MatchPlan, *, report: bool = True) -> tuple[Match, MatchFile]:
        record = self.record_for(plan, report)
        report_to = LeagueReport(self.lm.endpoint, self.lm.TOKEN) if report else None
        runner = referee_match(
            RemotePlayers(
                plan,
                self.rules,
                client=self.client,
                system=self.system,
                log=self.log,
                record=record,
                sender=self.SENDER,
            ),
            report_to,
        )
        return runner, record

    async def run(
        self, a: ScriptedPlayer, b: ScriptedPlayer, *, report: bool = True, **plan_args: Any
    ) -> tuple[MatchOutcome, MatchFile]:
        self.network.add(a, b)
        runner, record = self.runner(self.plan(a, b, **plan_args), report=report)
        outcome = await asyncio.wait_for(runner.run(), timeout=10)
        return outcome, record

    def match_file(self, record: MatchFile) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(record.path.read_text())
        return document

    async def aclose(self) -> None:
        await self.decisions.close()
        await self.client.aclose()
        self.log.close()


@pytest.fixture
async def harness(fast_shared: SharedDir, lm: FakeLeagueManager) -> AsyncIterator[MatchHarness]:
    made = MatchHarness(fast_shared, Network(lm), lm)
    yield made
    await made.aclose()


@pytest.fixture(autouse=True)
def quiet_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No admin token from the developer's shell; registration retries without a 1 s pause."""
    monkeypatch.delenv("LEAGUE_ADMIN_TOKEN", raising=False)
    monkeypatch.setattr(registration, "RETRY_INTERVAL_SEC", 0.01)


@asynccontextmanager
async def running_referee(
    settings: RefereeSettings, network: Network
) -> AsyncIterator[tuple[httpx.AsyncClient, RefereeService]]:
    """The referee app with its lifespan running, and an HTTP client into it."""
    app = create_app(settings, transport=network.transport())
    service: RefereeService = app.state.referee
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://test"
        ) as http:
            yield http, service


async def registered(service: RefereeService) -> RefereeService:
    await asyncio.wait_for(service.registration_settled.wait(), timeout=5)
    return service


async def rpc(http: httpx.AsyncClient, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """POST one JSON-RPC request to /mcp; the result object."""
    response = await http.post(
        "/mcp", json={"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "result" in body, body
    result: dict[str, Any] = body["result"]
    return result


LM_PROOF = object()
"""``start_match``'s default token: the League Manager's proof for the match's conversation."""


def start_match(
    a: ScriptedPlayer,
    b: ScriptedPlayer,
    *,
    token: str | None | object = LM_PROOF,
    match_id: str = "R1M1",
    game_type: str = "even_odd",
    assignment: int | None = None,
) -> dict[str, Any]:
    conversation_id = f"{LEAGUE_ID}:{match_id}"
    if token is LM_PROOF:
        token = league_manager_proof(FakeLeagueManager.TOKEN, LEAGUE_ID, conversation_id)
    assert token is None or isinstance(token, str)
    return StartMatch(
        sender="league_manager",
        conversation_id=conversation_id,
        auth_token=token,
        league_id=LEAGUE_ID,
        round_id=1,
        match_id=match_id,
        game_type=game_type,
        players=[a.seat("PLAYER_A"), b.seat("PLAYER_B")],
        assignment=assignment,
    ).to_wire()

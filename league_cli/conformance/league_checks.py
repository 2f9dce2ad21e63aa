"""``check-league``: check someone else's League Manager. Register a test referee and test
players (served in-process, see ``stand_ins``), query with and without tokens, then watch
what the League Manager sends them and validate every message with the SDK's models.

The test referee takes every match it is given (START_MATCH, ours) and reports a result
at once (MATCH_RESULT_REPORT), so a league started during the watch runs to its end.

The run and the watch are here; the calls are ``league_calls``, registration and queries
``league_registration``, the test referee's reports ``league_referee``, the judging of what
the test agents received ``league_watch``.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid

import httpx

from league_cli.conformance.answers import ENVELOPE_CHECKS
from league_cli.conformance.league_calls import LeagueCalls
from league_cli.conformance.league_referee import ResultReporter
from league_cli.conformance.league_registration import QUERY_TYPES, Registration
from league_cli.conformance.league_watch import WatchJudge
from league_cli.conformance.probe import Probe
from league_cli.conformance.report import ConformanceReport, Recorder
from sdk.config import SystemConfig
from sdk.timeouts import within
from sdk.timeutil import utc_now_str

__all__ = ["LEAGUE_CHECKS", "LeagueChecker", "check_league"]

LEAGUE_CHECKS: dict[str, str] = {
    "transport.reachable": "the URL accepts a connection and answers the first call",
    "jsonrpc.framing": ENVELOPE_CHECKS["jsonrpc.framing"],
    "register_referee.answer": "register_referee answers a REFEREE_REGISTER_REQUEST with a "
    "result within its timeout",
    "register_referee.fields": "REFEREE_REGISTER_RESPONSE: status ACCEPTED, referee_id, "
    "auth_token, league_id",
    "register_player.answer": "register_player answers each LEAGUE_REGISTER_REQUEST with a "
    "result within its timeout",
    "register_player.fields": "LEAGUE_REGISTER_RESPONSE: status ACCEPTED, player_id, "
    "auth_token, league_id; ids and tokens differ between players",
    **{
        f"query.{query.lower()}": f"league_query {query} with the player's token: a "
        "LEAGUE_QUERY_RESPONSE with the same query_type and "
        "success true, within its timeout"
        for query in QUERY_TYPES
    },
    "query.no_token": "a league_query without auth_token is refused: LEAGUE_ERROR E011",
    "query.wrong_token": "a league_query with another token is refused: LEAGUE_ERROR E012",
    "get_standings.answer": "get_standings answers with the standings (a result holding a "
    "standings list) within its timeout",
    **{name: text for name, text in ENVELOPE_CHECKS.items() if name != "jsonrpc.framing"},
    "league.start": "with --admin-token: POST /start_league (ours) starts the league",
    "referee.start_match": "the matches given to the test referee are valid START_MATCH "
    "messages (ours) between test players",
    "referee.report_result": "the test referee's MATCH_RESULT_REPORT is acknowledged, not refused",
    "notify.method_names": "the League Manager calls the test agents by the protocol's "
    "method names",
    "notify.round_announcement": "every ROUND_ANNOUNCEMENT is a valid message of this league",
    "notify.standings_update": "every LEAGUE_STANDINGS_UPDATE is a valid message of this "
    "league, listing the test players",
    "notify.round_completed": "every ROUND_COMPLETED is a valid message of this league",
    "notify.league_completed": "every LEAGUE_COMPLETED is a valid message of this league, "
    "listing the test players",
    "notify.auth_token": "a message to an agent carries no token or that agent's own, never "
    "another's",
    "notify.sequence": "each test player sees a round announced before its standings and "
    "completion, every announced round completed, LEAGUE_COMPLETED last",
    "notify.unexpected": "the League Manager calls the test agents only with methods they serve",
}
"""Every check of ``check-league``, by its stable name, with what it checks."""


class LeagueChecker:
    """One run of ``check-league`` against the League Manager at ``url``."""

    def __init__(
        self,
        url: str,
        *,
        system: SystemConfig,
        strict: bool = False,
        players: int = 2,
        watch: float = 0.0,
        admin_token: str | None = None,
        host: str = "127.0.0.1",
        seed: int | None = None,
        referee_secret: str | None = None,
    ):
        if players < 1:
            raise ValueError("a run registers at least one test player")
        self.url = url
        self.system = system
        self.players = players
        self.watch = watch
        self.admin_token = admin_token
        self.referee_secret = referee_secret
        self.host = host
        self.recorder = Recorder(LEAGUE_CHECKS, strict=strict)
        self.probe = Probe(url)
        self.notes: list[str] = []
        self._calls = LeagueCalls(url, self.probe, self.recorder, system)
        self._registration = Registration(self._calls, run_id=uuid.uuid4().hex[:8])
        self._reporter = ResultReporter(self.probe, self.recorder, system, random.Random(seed))

    @property
    def reachable(self) -> bool:
        return self._calls.reachable

    @property
    def league_id(self) -> str | None:
        """The league's id, as the first registration that names one gives it."""
        return self._registration.league_id

    # -- the run -------------------------------------------------------------------------

    async def run(self) -> ConformanceReport:
        from league_cli.conformance.stand_ins import StandIns

        started_at, started = utc_now_str(), time.perf_counter()
        self.stand_ins = StandIns(
            players=self.players, host=self.host, on_start_match=self._reporter.take_match
        )
        registration, test_players = self._registration, self.stand_ins.players
        try:
            await self.stand_ins.start()
            await registration.register_referee(self.stand_ins.referee, self.referee_secret)
            await registration.register_players(test_players)
            await registration.queries(test_players)
            await registration.get_standings(test_players)
            await self._start_league()
            await self._watch()
        finally:
            await self._reporter.finish()
            await self.stand_ins.stop()
            await self.probe.aclose()
        WatchJudge(
            self.recorder,
            self.stand_ins,
            league_id=self.league_id,
            watch=self.watch,
            league_manager_sender=self.system.league_manager_sender,
        ).judge()
        gone = self._calls.gone
        if gone:
            self.recorder.not_run_reason = gone
            self.notes.append(gone)
        return ConformanceReport(
            kind="league",
            target=self.url,
            strict=self.recorder.strict,
            started_at=started_at,
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
            reachable=self.reachable,
            results=self.recorder.results(),
            notes=self.notes,
        )

    # -- the league's run ----------------------------------------------------------------

    async def _start_league(self) -> None:
        if self.admin_token is None:
            self.recorder.skipped(
                "league.start",
                "no --admin-token: the league starts on its own (auto start) or by its admin",
            )
            return
        if self._calls.gone:
            return
        base = self.url.removesuffix("/mcp").rstrip("/")
        try:
            async with httpx.AsyncClient(timeout=10) as client:
                response = await client.post(
                    f"{base}/start_league", headers={"Authorization": f"Bearer {self.admin_token}"}
                )
        except httpx.HTTPError as exc:
            self.recorder.failed(
                "league.start",
                f"POST {base}/start_league: {type(exc).__name__}",
                field="HTTP status",
                expected="200",
                got=f"no answer ({type(exc).__name__})",
            )
            return
        if response.status_code == 200:
            self.recorder.passed("league.start", "the league started")
        else:
            self.recorder.failed(
                "league.start",
                f"POST {base}/start_league answered HTTP "
                f"{response.status_code}: {response.text[:300]}",
                field="HTTP status",
                expected="200",
                got=response.status_code,
            )

    async def _watch(self) -> None:
        if self.watch <= 0 or self._calls.gone:
            return
        try:
            await within(self.stand_ins.league_completed.wait(), self.watch)
        except asyncio.TimeoutError:
            self.notes.append(
                f"the {self.watch:g} s watch ended before every test player "
                "received LEAGUE_COMPLETED"
            )


async def check_league(
    url: str,
    *,
    system: SystemConfig,
    strict: bool = False,
    players: int = 2,
    watch: float = 0.0,
    admin_token: str | None = None,
    host: str = "127.0.0.1",
    seed: int | None = None,
    referee_secret: str | None = None,
) -> ConformanceReport:
    """Run every League Manager check against ``url`` (its /mcp endpoint); the test referee
    registers with ``referee_secret`` (a League Manager of ours admits no referee without
    it)."""
    return await LeagueChecker(
        url,
        system=system,
        strict=strict,
        players=players,
        watch=watch,
        admin_token=admin_token,
        host=host,
        seed=seed,
        referee_secret=referee_secret,
    ).run()

"""``check-player``: play the referee's and the League Manager's side against a running
player, and judge every answer.

A run: for each match, ROUND_ANNOUNCEMENT, GAME_INVITATION, CHOOSE_PARITY_CALL, GAME_OVER,
LEAGUE_STANDINGS_UPDATE and ROUND_COMPLETED (and a GAME_ERROR in the first match, and after
any fault); then the bad input; then the optional get_player_state; LEAGUE_COMPLETED last,
since a player may stop after it. Calls go one at a time, to the given URL only, each
bounded by ``probe.hard_limit`` of its method's timeout.

The run is here; the calls are ``player_calls``, the judging of answers ``player_answers``,
a match ``player_match``, the bad input ``player_probes``, the check names
``player_catalogue``.
"""

from __future__ import annotations

import random
import time
import uuid

from league_cli.conformance.answers import ENVELOPE_CHECKS
from league_cli.conformance.player_answers import AnswerJudge
from league_cli.conformance.player_calls import PlayerCalls
from league_cli.conformance.player_catalogue import PLAYER_CHECKS
from league_cli.conformance.player_match import MatchPlay
from league_cli.conformance.player_messages import LeagueSide, MatchPlan, RefereeSide, Table
from league_cli.conformance.player_probes import ask_player_state, send_bad_input
from league_cli.conformance.probe import Probe
from league_cli.conformance.report import ConformanceReport, Recorder
from sdk.config import SystemConfig
from sdk.timeutil import utc_now_str

__all__ = ["PLAYER_CHECKS", "PlayerChecker", "check_player"]


class PlayerChecker:
    """One run of ``check-player`` against the player at ``url``."""

    def __init__(
        self,
        url: str,
        *,
        system: SystemConfig,
        strict: bool = False,
        player_id: str = "P01",
        matches: int = 3,
        token: str | None = None,
        seed: int | None = None,
        probe: Probe | None = None,
        league_manager_sender: str | None = None,
    ):
        if matches < 1:
            raise ValueError("a run plays at least one match")
        self.url = url
        self.system = system
        self.player_id = player_id
        self.matches = matches
        self.recorder = Recorder(PLAYER_CHECKS, strict=strict)
        self.probe = probe or Probe(url)
        self._own_probe = probe is None
        league_id = system.default_league_id
        self.referee = RefereeSide(league_id, player_id, token)
        self.league = LeagueSide(
            league_id, player_id, token, league_manager_sender or system.league_manager_sender
        )
        self._run_id = uuid.uuid4().hex[:8]
        self.opponents = [f"P{n:02d}" for n in range(1, matches + 3) if f"P{n:02d}" != player_id][
            :matches
        ]
        self.table = Table([player_id, *self.opponents])
        self.notes: list[str] = []
        self._calls = PlayerCalls(url, self.probe, self.recorder, system)
        self._judge = AnswerJudge(self.recorder, system, player_id)
        self._match = MatchPlay(
            self._calls,
            self._judge,
            referee=self.referee,
            league=self.league,
            table=self.table,
            rng=random.Random(seed),
        )

    @property
    def reachable(self) -> bool:
        return self._calls.reachable

    async def run(self) -> ConformanceReport:
        started_at, started = utc_now_str(), time.perf_counter()
        try:
            plans = [self._plan(number) for number in range(1, self.matches + 1)]
            for plan in plans:
                await self._match.play(plan, first=plan is plans[0], last=plan is plans[-1])
                if self._calls.gone:
                    break
            await send_bad_input(
                self._calls,
                self.referee,
                self.league,
                self.table,
                run_id=self._run_id,
                opponent_id=self.opponents[0],
                last_round=self.matches,
            )
            await ask_player_state(self._calls, self.league, run_id=self._run_id)
            await self._match.notify(
                "league_completed", self.league.league_completed(len(plans), self.table)
            )
            self._judge.consistency()
        finally:
            if self._own_probe:
                await self.probe.aclose()
        gone = self._calls.gone
        if gone:
            self.recorder.not_run_reason = gone
            self.notes.append(gone)
        elif self.recorder.worst("envelope.fields") is not None:
            for check in ENVELOPE_CHECKS:
                if self.recorder.worst(check) is None:
                    self.recorder.skipped(check, "no answer carried this field")
        return ConformanceReport(
            kind="player",
            target=self.url,
            strict=self.recorder.strict,
            started_at=started_at,
            duration_ms=round((time.perf_counter() - started) * 1000, 1),
            reachable=self.reachable,
            results=self.recorder.results(),
            notes=self.notes,
        )

    def _plan(self, number: int) -> MatchPlan:
        match_id = f"R{number}M1"
        return MatchPlan(
            match_id=match_id,
            round_id=number,
            conversation_id=f"conformance-{self._run_id}-{match_id}",
            role="PLAYER_A" if number % 2 else "PLAYER_B",
            opponent_id=self.opponents[number - 1],
        )


async def check_player(
    url: str,
    *,
    system: SystemConfig,
    strict: bool = False,
    player_id: str = "P01",
    matches: int = 3,
    token: str | None = None,
    seed: int | None = None,
    league_manager_sender: str | None = None,
) -> ConformanceReport:
    """Run every player check against ``url`` (an agent's /mcp endpoint); the League
    Manager's messages signed ``league_manager_sender`` (default: system.json's)."""
    return await PlayerChecker(
        url,
        system=system,
        strict=strict,
        player_id=player_id,
        matches=matches,
        token=token,
        seed=seed,
        league_manager_sender=league_manager_sender,
    ).run()

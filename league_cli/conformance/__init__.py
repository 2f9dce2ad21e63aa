"""The conformance kit: ``league check-player`` and ``league check-league`` play one side of
the league.v2 protocol against someone else's agent and report, check by check, what it
does right and wrong (doc/conformance.md)."""

from __future__ import annotations

from league_cli.conformance.league_checks import LEAGUE_CHECKS, LeagueChecker, check_league
from league_cli.conformance.player_checks import PLAYER_CHECKS, PlayerChecker, check_player
from league_cli.conformance.report import CheckResult, ConformanceReport, Recorder, Status

__all__ = [
    "LEAGUE_CHECKS",
    "PLAYER_CHECKS",
    "CheckResult",
    "ConformanceReport",
    "LeagueChecker",
    "PlayerChecker",
    "Recorder",
    "Status",
    "check_league",
    "check_player",
]

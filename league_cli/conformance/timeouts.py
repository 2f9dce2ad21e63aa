"""The per-method timeouts a run judges against: SHARED/config/system.json's
``timeouts_sec``, or the protocol's own numbers when there is no SHARED folder."""

from __future__ import annotations

from pathlib import Path

from sdk.config import ConfigError, SharedDir, SystemConfig

__all__ = ["PROTOCOL_TIMEOUTS", "load_system"]

PROTOCOL_TIMEOUTS: dict[str, float] = {
    "register_referee": 10,
    "register_player": 10,
    "report_match_result": 10,
    "league_query": 10,
    "get_standings": 10,
    "handle_game_invitation": 5,
    "choose_parity": 30,
    "notify_match_result": 5,
    "notify_round": 10,
    "update_standings": 10,
    "notify_round_completed": 10,
    "notify_league_completed": 10,
    "notify_game_error": 10,
    "get_player_state": 10,
}
"""The league.v2 text's timeouts, in seconds."""

_FALLBACK_LEAGUE = "league_2025_even_odd"


def load_system(shared_dir: Path | None) -> tuple[SystemConfig, str | None]:
    """The system settings and, when they are the protocol's defaults, a note saying why.

    Raises:
        ConfigError: ``shared_dir`` was given and its system.json is missing or wrong.
    """
    try:
        return SharedDir(shared_dir).system(), None
    except ConfigError as exc:
        if shared_dir is not None:
            raise
        fallback = SystemConfig(
            default_league_id=_FALLBACK_LEAGUE, timeouts_sec=dict(PROTOCOL_TIMEOUTS)
        )
        return fallback, f"{exc}: judging against the protocol's timeouts"

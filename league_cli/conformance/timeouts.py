"""The per-method timeouts a run judges against: SHARED/config/system.json's
``timeouts_sec``, or the protocol's own numbers when there is no SHARED folder."""

from __future__ import annotations

from pathlib import Path

from sdk.config import ConfigError, SharedDir, SystemConfig
from sdk.messages import PROTOCOL_TIMEOUTS_SEC

__all__ = ["load_system"]

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
            default_league_id=_FALLBACK_LEAGUE, timeouts_sec=dict(PROTOCOL_TIMEOUTS_SEC)
        )
        return fallback, f"{exc}: judging against the protocol's timeouts"

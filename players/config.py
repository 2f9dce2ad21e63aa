"""Settings of one player host, refusing bad values before anything starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from games import game_types
from sdk.types import McpUrl
from strategies import build_strategy

__all__ = ["AGENT_ID_PATTERN", "SUPPORTED_GAME_TYPES", "PlayerSettings"]

SUPPORTED_GAME_TYPES = tuple(game_types())
"""What this host can play: every registered game (even/odd through ``choose_parity``, the
others through ``make_move``)."""

AGENT_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
"""An id safe to put in a file name (it names the history file and the log)."""


class PlayerSettings(BaseModel):
    """Everything ``league player`` passes to ``players.app.run``."""

    model_config = ConfigDict(extra="forbid")

    shared_dir: Path
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(ge=1, le=65535)
    display_name: str = Field(min_length=1, max_length=100)
    league_manager_url: McpUrl
    strategy: str = "random"
    strategy_options: dict[str, Any] = Field(default_factory=dict)
    game_types: list[str] = Field(default_factory=lambda: ["even_odd"], min_length=1)
    join_league: bool = True
    """Register with the League Manager at start-up (False: a standalone player)."""
    player_id: str | None = Field(default=None, pattern=AGENT_ID_PATTERN)
    """The id this player already holds (a restart, or a standalone player): its history is
    loaded at start-up, and a standalone player answers to it."""
    decision_margin_sec: float = Field(default=1.0, ge=0, le=10)
    """How long before a move's deadline the host stops waiting for the strategy."""
    register_retry_sec: float = Field(default=0.5, gt=0, le=60)
    """Pause between registration attempts while the League Manager is not up."""
    advertise: McpUrl | None = None
    """The /mcp URL that other agents reach this host at, when it is not where it listens
    (a proxy, NAT, a host name, or listening on 0.0.0.0); None: ``http://host:port/mcp``."""

    @field_validator("shared_dir")
    @classmethod
    def _shared_dir_exists(cls, value: Path) -> Path:
        if not value.is_dir():
            raise ValueError(f"{value} is not a folder (the SHARED folder holds config/)")
        return value.resolve()

    @field_validator("game_types")
    @classmethod
    def _playable(cls, value: list[str]) -> list[str]:
        unknown = [game for game in value if game not in SUPPORTED_GAME_TYPES]
        if unknown:
            raise ValueError(
                f"the player host cannot play {', '.join(unknown)}; it plays "
                f"{', '.join(SUPPORTED_GAME_TYPES)}"
            )
        return value

    @model_validator(mode="after")
    def _strategy_builds(self) -> PlayerSettings:
        """Resolve the strategy and its options now, so a typo fails at start, not mid-match."""
        build_strategy(self.strategy, self.strategy_options)
        return self

    @property
    def contact_endpoint(self) -> str:
        """Where the League Manager and the referees reach this host."""
        return self.advertise or f"http://{self.host}:{self.port}/mcp"

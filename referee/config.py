"""The referee's settings: one validated model, so a bad value stops the process at start."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from games import game_types as registered_game_types
from sdk.types import McpUrl

__all__ = ["RefereeSettings"]

REFEREE_VERSION = "1.0.0"


class RefereeSettings(BaseModel):
    """How one referee process runs; ``league referee`` fills it from flags and defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shared_dir: Path
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(ge=1, le=65535)
    display_name: str = Field(min_length=1, max_length=100)
    league_manager_url: McpUrl
    max_concurrent_matches: int = Field(ge=1, le=1000)
    game_types: list[str] = Field(default_factory=lambda: ["even_odd"], min_length=1)
    seed: int | None = None
    join_league: bool = True
    """Register with the League Manager at start-up (False: standalone, for /run_match)."""
    referee_secret: SecretStr | None = None
    """The league's referee secret; None: read it, at each registration attempt, from the
    League Manager's file on this machine (``SharedDir.referee_secret_path``)."""
    league_id: str | None = None
    """Whose referee secret file to read (None: system.json's default league)."""
    advertise: McpUrl | None = None
    """The /mcp URL that the League Manager reaches this referee at, when it is not where it
    listens (a proxy, NAT, a host name, or listening on 0.0.0.0); None: the listening one."""

    @field_validator("display_name")
    @classmethod
    def _visible_name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("display_name must not be blank")
        return value

    @field_validator("game_types")
    @classmethod
    def _known_games(cls, value: list[str]) -> list[str]:
        known = registered_game_types()
        unknown = [game for game in value if game not in known]
        if unknown:
            raise ValueError(
                f"unknown game type(s) {', '.join(unknown)}; known: {', '.join(known)}"
            )
        if len(set(value)) != len(value):
            raise ValueError("game_types lists a game twice")
        return value

    @property
    def contact_endpoint(self) -> str:
        """Where the League Manager reaches this referee."""
        return self.advertise or f"http://{self.host}:{self.port}/mcp"

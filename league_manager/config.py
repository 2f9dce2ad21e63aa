"""Settings of one League Manager process."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sdk.types import AgentUrl

__all__ = ["LeagueManagerSettings"]


class LeagueManagerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    shared_dir: Path | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    league_id: str | None = Field(
        default=None, description="the league to run; None: system.json default_league_id"
    )
    auto_start_players: int | None = Field(
        default=None,
        ge=2,
        description="start once this many players registered; None: the league config decides",
    )
    max_broadcast_concurrency: int = Field(default=64, ge=1)
    play_url: AgentUrl | None = Field(
        default=None,
        description="the play service's /play page, linked from the dashboard; None: no link "
        "(the League Manager serves no game)",
    )

"""The play service's settings: one validated model, so a bad value stops the process at
start (its session limits are ``LEAGUE_PLAY_*``: ``playroom.play_sessions.PlayLimits``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from sdk.types import McpUrl

__all__ = ["PlayServiceSettings"]


class PlayServiceSettings(BaseModel):
    """How one play service runs; ``league play-service`` fills it from flags and
    SHARED/config."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shared_dir: Path | None = None
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=8090, ge=1, le=65535)
    league_manager_url: McpUrl = "http://127.0.0.1:8000/mcp"
    """The League Manager whose registered players a person may play (their list from its
    ``/status``, their proofs from its ``get_play_proof``)."""
    league_id: str | None = None
    """The league whose game is offered first and whose referee secret file to read
    (None: system.json's default league)."""
    referee_secret: SecretStr | None = None
    """The league's referee secret, which ``get_play_proof`` asks for; None: read it, at
    each game against a registered player, from the League Manager's file on this machine
    (``SharedDir.referee_secret_path``), as a referee does."""

    @property
    def league_manager_base(self) -> str:
        """The League Manager's base URL (its ``/status``, its dashboard)."""
        return self.league_manager_url.removesuffix("/mcp")

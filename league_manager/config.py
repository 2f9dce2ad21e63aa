"""Settings of one League Manager process, and the league's game they lead to."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from sdk.config import ConfigError, GameEntry, LeagueConfig, SharedDir
from sdk.types import AgentUrl

__all__ = ["LeagueManagerSettings", "league_game"]


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
    store_url: SecretStr | None = Field(
        default=None,
        description="the PostgreSQL store that keeps the league (postgresql://…), which "
        "several League Managers may share; None: the JSON files in the league's folder",
    )
    max_broadcast_concurrency: int = Field(default=64, ge=1)
    play_url: AgentUrl | None = Field(
        default=None,
        description="the play service's /play page, linked from the dashboard; None: no link "
        "(the League Manager serves no game)",
    )


def league_game(shared: SharedDir, league_id: str, config: LeagueConfig) -> tuple[GameEntry, int]:
    """The league's game and its match size (configured, or the fewest the game allows).

    Raises:
        ConfigError: the game is not in games_registry.json, or the size is outside what it
            allows.
    """
    games = shared.games().games
    if config.game_type not in games:
        raise ConfigError(
            f"league {league_id}: game_type {config.game_type!r} is not in "
            f"games_registry.json (known: {', '.join(sorted(games))})"
        )
    game = games[config.game_type]
    size = config.players_per_match or max(2, game.min_players)
    if not game.min_players <= size <= game.max_players:
        raise ConfigError(
            f"league {league_id}: players_per_match {size} is outside what "
            f"{config.game_type} allows ({game.min_players} to {game.max_players})"
        )
    return game, size

"""Settings from ``SHARED/config``: one pydantic model per file, refusing unknown keys and bad
values with a message that names the file, and ``SharedDir`` for every path the protocol names.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from sdk.errors import LeagueSDKError
from sdk.ids import SAFE_ID_RULE, is_safe_id
from sdk.messages.match import Outcome
from sdk.store import read_json
from sdk.tolerance import ProtocolMode

__all__ = [
    "AgentDefaults",
    "AgentsConfig",
    "ConfigError",
    "GameEntry",
    "GamesRegistry",
    "LeagueConfig",
    "PlayerDefaults",
    "RefereeDefaults",
    "RetryPolicy",
    "ScoringConfig",
    "SharedDir",
    "SystemConfig",
    "resolve_shared_dir",
]

SHARED_DIR_ENV = "LEAGUE_SHARED_DIR"


class ConfigError(LeagueSDKError):
    """A configuration file is missing or holds a bad value; the message names both."""


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _File(_Settings):
    schema_version: str = "1.0.0"
    last_updated: str | None = None


class RetryPolicy(_Settings):
    """Retries for timeouts (E001) and connection errors (E009)."""

    max_retries: int = Field(default=3, ge=0, le=10)
    backoff_sec: float = Field(default=2.0, ge=0)
    backoff_multiplier: float = Field(default=1.0, ge=1.0)
    max_backoff_sec: float = Field(default=10.0, ge=0)

    def delay(self, retry_number: int) -> float:
        """Seconds to wait before retry ``retry_number`` (1-based); any number of retries
        (a registration retries for as long as it takes) stays at ``max_backoff_sec``."""
        try:
            raw = self.backoff_sec * self.backoff_multiplier ** (retry_number - 1)
        except OverflowError:  # the power went past a float: long past the ceiling
            return self.max_backoff_sec
        return min(raw, self.max_backoff_sec)


class SecurityConfig(_Settings):
    admin_token: str | None = None
    admin_token_env: str = "LEAGUE_ADMIN_TOKEN"
    referee_secret: str | None = None
    """What a referee must show to register (None: the League Manager makes one)."""
    referee_secret_env: str = "LEAGUE_REFEREE_SECRET"
    token_bytes: int = Field(default=32, ge=16, le=128)

    def configured_admin_token(self) -> str | None:
        """The admin token from the environment, else from the file (None: generate one)."""
        return os.environ.get(self.admin_token_env) or self.admin_token

    def configured_referee_secret(self) -> str | None:
        """The referee secret from the environment, else from the file (None: the League
        Manager generates one into its data folder)."""
        return os.environ.get(self.referee_secret_env) or self.referee_secret


class HostPort(_Settings):
    host: str = "127.0.0.1"
    port: int = Field(ge=1, le=65535)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"


class HttpConfig(_Settings):
    """Limits of HTTP traffic: what an agent's ``/mcp`` takes, what its client reads."""

    max_body_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        description="the largest request body /mcp takes; a larger one gets HTTP 413 (-32600)",
    )
    max_batch: int = Field(
        default=1000,
        ge=1,
        description="the most requests one JSON-RPC "
        "batch may hold; a larger batch is refused whole (-32600)",
    )
    max_json_depth: int = Field(
        default=64,
        ge=8,
        le=200,
        description="how deeply a request "
        "may nest arrays and objects (-32600 beyond); at most 200, "
        "since the log writer stops at 254 levels",
    )
    max_connections: int = Field(default=256, ge=1)
    max_server_connections: int = Field(
        default=1024,
        ge=16,
        description="connections a service keeps open; past it the "
        "oldest idle one is closed for the new one (a flood cannot starve it); at most its "
        "open-files limit less 256",
    )
    request_timeout_sec: float = Field(
        default=15,
        gt=0,
        description="a connection that has not sent a whole request this "
        "long after it opened, or after its previous answer, is closed",
    )
    max_requests_in_progress: int = Field(
        default=256,
        ge=1,
        description="requests a service handles at once (from their headers until their "
        "handler returns; its health, status and event stream aside); one more is answered "
        "at once, HTTP 503 with Retry-After (at /mcp a JSON-RPC error -32000, E022), never "
        "queued",
    )
    request_handling_timeout_sec: float = Field(
        default=90,
        gt=0,
        description="a request whose answer has not begun this long after its headers is "
        "answered HTTP 503 (E001) in its stead, and its handler left to finish; longer than "
        "any route's own bound (the League Manager's GET /analysis: 60 s)",
    )
    max_response_bytes: int = Field(
        default=1_048_576,
        ge=1024,
        description="the largest answer body a caller reads; "
        "a larger one is refused (E002) before it fills memory",
    )
    refusal_log_bytes: int = Field(
        default=65_536,
        ge=0,
        description="log bytes the refused requests of one network address may cost an "
        "agent in each refusal_log_window_sec; past it they are answered, counted and summed "
        "up in one refusals_unlogged record per window",
    )
    refusal_log_total_bytes: int = Field(
        default=1_048_576,
        ge=0,
        description="the same for the refused requests of all addresses together",
    )
    refusal_log_window_sec: float = Field(
        default=60, gt=0, description="the window of refusal_log_bytes and refusal_log_total_bytes"
    )


class SystemConfig(_File):
    protocol: str = "league.v2"
    protocol_version: str = "2.1.0"
    default_league_id: str
    league_manager: HostPort = HostPort(port=8000)
    play_service: HostPort = HostPort(port=8090)
    """Where ``league play-service`` listens by default (the ``/play`` page)."""
    league_manager_sender: str = Field(
        default="league_manager",
        pattern=r"^league_manager(:[A-Za-z0-9_.-]+)?$",
        description="how the League Manager signs its messages: league_manager, as the "
        "protocol's examples do, or league_manager:<id> (e.g. league_manager:LM01), as some "
        "published agents expect",
    )
    timeouts_sec: dict[str, float] = Field(default_factory=dict)
    default_timeout_sec: float = Field(default=10.0, gt=0)
    retry_policy: RetryPolicy = RetryPolicy()
    security: SecurityConfig = SecurityConfig()
    http: HttpConfig = HttpConfig()
    store_url: SecretStr | None = Field(
        default=None,
        description="where the League Manager keeps its state: a postgresql:// URL, or none "
        "for the JSON files under SHARED/data (the default); --store and $LEAGUE_STORE_URL "
        "come first. Secret: it may hold the database's password",
    )

    @model_validator(mode="after")
    def _positive_timeouts(self) -> SystemConfig:
        bad = [name for name, value in self.timeouts_sec.items() if value <= 0]
        if bad:
            raise ValueError(f"timeouts must be positive: {', '.join(sorted(bad))}")
        return self

    def timeout_for(self, method: str) -> float:
        return self.timeouts_sec.get(method, self.default_timeout_sec)


class RefereeInstance(_Settings):
    display_name: str
    port: int = Field(ge=1, le=65535)
    max_concurrent_matches: int = Field(default=4, ge=1)


class PlayerInstance(_Settings):
    display_name: str
    port: int = Field(ge=1, le=65535)
    strategy: str = "random"


class AgentsConfig(_File):
    """The agents ``league up`` starts when no flag says otherwise."""

    referees: list[RefereeInstance]
    players: list[PlayerInstance]


class ScoringConfig(_Settings):
    """Points for each outcome of a match. Standings rank by them, so they must rank the
    outcomes as a player would: finite numbers, a win worth points and more than a draw, a
    draw no less than a loss, a technical loss no more than a loss (never answering must
    not pay). Losses may cost points (negative)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    win: float = 3
    draw: float = 1
    loss: float = 0
    technical_loss: float = 0

    def points(self, outcome: Outcome) -> float:
        """The points of one player's outcome."""
        return {
            "WIN": self.win,
            "DRAW": self.draw,
            "LOSS": self.loss,
            "TECHNICAL_LOSS": self.technical_loss,
        }[outcome]

    @model_validator(mode="after")
    def _ranked_as_a_player_would(self) -> ScoringConfig:
        rules = [
            (self.win > 0, f"win ({self.win:g}) must be more than 0: a win earns points"),
            (self.win > self.draw, f"win ({self.win:g}) must be more than draw ({self.draw:g})"),
            (self.draw >= self.loss, f"draw ({self.draw:g}) must be at least loss ({self.loss:g})"),
            (
                self.technical_loss <= self.loss,
                f"technical_loss ({self.technical_loss:g}) must be at most loss "
                f"({self.loss:g}): not answering must not pay more than losing",
            ),
        ]
        broken = [said for holds, said in rules if not holds]
        if broken:
            raise ValueError("; ".join(broken))
        return self


class CommunicationConfig(_Settings):
    """Whether the players of a league's matches may talk (games other than even/odd)."""

    enabled: bool = False
    max_message_chars: int = Field(default=280, ge=1, le=10_000)


class LeagueConfig(_File):
    league_id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    display_name: str
    game_type: str
    game_params: dict[str, Any] = Field(default_factory=dict)
    scoring: ScoringConfig = ScoringConfig()
    auto_start_players: int | None = Field(default=None, ge=2)
    min_players: int = Field(default=2, ge=2)
    max_players: int = Field(default=1000, ge=2)
    match_timeout_sec: float = Field(default=300, gt=0)
    stall_after_sec: float = Field(
        default=600,
        gt=0,
        description="a running round without a new result for this long "
        "is a stall: /health is degraded and /status names the matches and referees waited "
        "for (longer than match_timeout_sec, after which a match goes to another referee)",
    )
    registrations_per_minute: int = Field(
        default=300,
        ge=1,
        description="registrations one network address may make in any "
        "minute; more are REJECTED with the time to wait",
    )
    suspend_after_failures: int = Field(
        default=3,
        ge=1,
        description="technical losses or missed notifications in a row "
        "after which a player is SUSPENDED and its remaining matches are forfeits",
    )
    players_per_match: int | None = Field(
        default=None,
        ge=2,
        le=26,
        description="players in each match; by default the "
        "fewest the game allows (two for most games)",
    )
    rounds: int | None = Field(
        default=None,
        ge=1,
        description="with more than two players per match: how many "
        "rounds; by default enough for every player to be able to meet every other once",
    )
    broadcasts: bool = Field(
        default=True,
        description="send every round's announcement, standings update and "
        "completion to every player; false for very large leagues, whose players poll "
        "league_query instead (the league's completion is still sent)",
    )
    communication: CommunicationConfig = CommunicationConfig()
    protocol_mode: ProtocolMode = Field(
        default="lenient",
        description="lenient: take the variations published agents send "
        "and note them; strict (grading): refuse them, naming each",
    )


class GameEntry(_Settings):
    display_name: str
    move_types: list[str]
    valid_choices: list[Any]
    min_players: int = Field(ge=1)
    max_players: int = Field(ge=1)
    rules_module: str
    move_method: str
    max_round_time_sec: float = Field(default=30, gt=0)
    parameters: dict[str, Any] = Field(default_factory=dict)
    """Every parameter the game takes, with its default (a league's game_params override)."""


class GamesRegistry(_File):
    games: dict[str, GameEntry]


class AgentDefaults(_Settings):
    display_name: str
    version: str = "1.0.0"
    game_types: list[str] = Field(default_factory=lambda: ["even_odd"])
    host: str = "127.0.0.1"
    port: int = Field(ge=1, le=65535)

    def name_at(self, port: int) -> str:
        """The display name of an agent started without one, on ``port``: the default
        name and the port (``Referee-8001``). Two agents of one machine never share a
        port, so they never share such a name, and the League Manager takes both."""
        return f"{self.display_name}-{port}"


class RefereeDefaults(AgentDefaults, _File):
    max_concurrent_matches: int = Field(default=4, ge=1)


class PlayerDefaults(AgentDefaults, _File):
    strategy: str = "random"


_M = TypeVar("_M", bound=BaseModel)


def _safe_id(league_id: str) -> str:
    """A league id names files and folders (``sdk.ids``)."""
    if not is_safe_id(league_id):
        raise ConfigError(f"league id {league_id!r} {SAFE_ID_RULE} (it names files)")
    return league_id


def resolve_shared_dir(explicit: Path | str | None = None) -> Path:
    """The SHARED folder: the explicit one, else $LEAGUE_SHARED_DIR, else ./SHARED."""
    if explicit:
        return Path(explicit).resolve()
    from_env = os.environ.get(SHARED_DIR_ENV)
    if from_env:
        return Path(from_env).resolve()
    return (Path.cwd() / "SHARED").resolve()


class SharedDir:
    """The SHARED folder: config to read, data and logs to write, at the protocol's paths."""

    def __init__(self, root: Path | str | None = None):
        self.root = resolve_shared_dir(root)
        self.config_dir = self.root / "config"
        self.data_dir = self.root / "data"
        self.logs_dir = self.root / "logs"

    def _load(self, relative: str, model: type[_M]) -> _M:
        path = self.config_dir / relative
        try:
            raw = read_json(path)
        except FileNotFoundError:
            raise ConfigError(f"configuration file {path} does not exist") from None
        except LeagueSDKError as exc:
            raise ConfigError(str(exc)) from exc
        try:
            return model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(file)'}: {err['msg']}"
                for err in exc.errors(include_url=False)
            )
            raise ConfigError(f"{path}: {problems}") from None

    def system(self) -> SystemConfig:
        return self._load("system.json", SystemConfig)

    def agents(self) -> AgentsConfig:
        return self._load("agents/agents_config.json", AgentsConfig)

    def league(self, league_id: str) -> LeagueConfig:
        config = self._load(f"leagues/{_safe_id(league_id)}.json", LeagueConfig)
        if config.league_id != league_id:
            raise ConfigError(
                f"{self.config_dir / 'leagues' / (league_id + '.json')}: league_id is "
                f"{config.league_id!r} but the file is named for {league_id!r}"
            )
        return config

    def games(self) -> GamesRegistry:
        return self._load("games/games_registry.json", GamesRegistry)

    def referee_defaults(self) -> RefereeDefaults:
        return self._load("defaults/referee.json", RefereeDefaults)

    def player_defaults(self) -> PlayerDefaults:
        return self._load("defaults/player.json", PlayerDefaults)

    def league_dir(self, league_id: str) -> Path:
        return self.data_dir / "leagues" / _safe_id(league_id)

    def admin_token_path(self, league_id: str) -> Path:
        """Where a League Manager without a configured admin token keeps the one it made."""
        return self.league_dir(league_id) / "admin_token"

    def referee_secret_path(self, league_id: str) -> Path:
        """Where a League Manager without a configured referee secret keeps the one it
        made: an owner-only file that the referees of this machine read."""
        return self.league_dir(league_id) / "referee_secret"

    def referee_secret(self, league_id: str | None = None) -> str | None:
        """The referee secret as this machine knows it: configured (environment, then
        system.json), else the file of the League Manager of ``league_id`` (None:
        system.json's default league); None when there is neither yet."""
        system = self.system()
        configured = system.security.configured_referee_secret()
        if configured:
            return configured
        try:
            path = self.referee_secret_path(league_id or system.default_league_id)
            return path.read_text(encoding="utf-8").strip() or None
        except OSError:
            return None

    def match_path(self, league_id: str, match_id: str) -> Path:
        return self.data_dir / "matches" / league_id / f"{match_id}.json"

    def player_history_path(self, player_id: str) -> Path:
        return self.data_dir / "players" / player_id / "history.json"

    def agent_log_path(self, agent_id: str) -> Path:
        return self.logs_dir / "agents" / f"{agent_id}.log.jsonl"

    def league_log_path(self, league_id: str) -> Path:
        return self.logs_dir / "league" / league_id / "league.log.jsonl"

"""Settings from SHARED/config: the committed files load, bad ones are refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sdk.config import (
    SHARED_DIR_ENV,
    ConfigError,
    RetryPolicy,
    SharedDir,
    SystemConfig,
    resolve_shared_dir,
)
from tests.conftest import REPO_ROOT

COMMITTED = SharedDir(REPO_ROOT / "SHARED")


def edit(shared: SharedDir, relative: str, change: dict[str, Any]) -> Path:
    """Update top-level keys of one config file (a value of None deletes the key)."""
    path = shared.config_dir / relative
    data = json.loads(path.read_text())
    for key, value in change.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(json.dumps(data))
    return path


# --- the committed configuration ------------------------------------------------------------


def test_the_committed_system_config_loads() -> None:
    system = COMMITTED.system()
    assert system.protocol == "league.v2"
    assert system.protocol_version == "2.1.0"
    assert system.default_league_id == "league_2025_even_odd"
    assert system.league_manager.base_url == "http://127.0.0.1:8000"
    assert system.retry_policy == RetryPolicy(
        max_retries=3, backoff_sec=2.0, backoff_multiplier=1.0, max_backoff_sec=10.0
    )
    assert system.timeout_for("register_player") == 10
    assert system.timeout_for("handle_game_invitation") == 5
    assert system.timeout_for("choose_parity") == 30
    assert system.timeout_for("notify_match_result") == 5
    assert system.timeout_for("a_method_nobody_listed") == system.default_timeout_sec == 10
    assert system.http.max_body_bytes == 1_048_576


def test_every_other_committed_file_loads() -> None:
    agents = COMMITTED.agents()
    assert [r.port for r in agents.referees] == [8001, 8002]
    assert [p.port for p in agents.players] == [8101, 8102, 8103, 8104]
    league = COMMITTED.league(COMMITTED.system().default_league_id)
    assert league.game_type == "even_odd"
    assert (league.scoring.win, league.scoring.draw, league.scoring.loss) == (3, 1, 0)
    games = COMMITTED.games()
    assert games.games["even_odd"].valid_choices == ["even", "odd"]
    assert games.games["even_odd"].move_method == "choose_parity"
    assert COMMITTED.referee_defaults().port == 8001
    assert COMMITTED.player_defaults().port == 8101


def test_an_agent_started_without_a_name_is_named_for_its_port() -> None:
    assert COMMITTED.referee_defaults().name_at(8001) == "Referee-8001"
    assert COMMITTED.player_defaults().name_at(8117) == "Player-8117"


def test_every_league_file_is_named_for_its_league_id() -> None:
    files = sorted((COMMITTED.config_dir / "leagues").glob("*.json"))
    assert files, "SHARED/config/leagues holds no league"
    for path in files:
        assert COMMITTED.league(path.stem).league_id == path.stem


def test_shared_dir_paths_follow_the_protocol(tmp_path: Path) -> None:
    shared = SharedDir(tmp_path)
    assert shared.league_dir("L1") == tmp_path / "data" / "leagues" / "L1"
    assert shared.match_path("L1", "R1M2") == tmp_path / "data" / "matches" / "L1" / "R1M2.json"
    assert shared.player_history_path("P01") == tmp_path / "data/players/P01/history.json"
    assert shared.agent_log_path("REF01") == tmp_path / "logs/agents/REF01.log.jsonl"
    assert shared.league_log_path("L1") == tmp_path / "logs/league/L1/league.log.jsonl"


# --- bad files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"timeouts_sec": {"choose_parity": -1}}, "choose_parity"),
        ({"default_timeout_sec": 0}, "default_timeout_sec"),
        ({"unknown_key": 1}, "unknown_key"),
        ({"retry_policy": {"max_retries": 99}}, "retry_policy.max_retries"),
        ({"retry_policy": {"max_retries": 3, "typo": 1}}, "retry_policy.typo"),
        ({"league_manager": {"port": 70000}}, "league_manager.port"),
        ({"default_league_id": None}, "default_league_id"),
    ],
)
def test_a_bad_system_value_names_the_file_and_the_field(
    shared_dir: SharedDir, change: dict[str, Any], field: str
) -> None:
    path = edit(shared_dir, "system.json", change)
    with pytest.raises(ConfigError) as caught:
        shared_dir.system()
    assert str(path) in str(caught.value)
    assert field in str(caught.value)


@pytest.mark.parametrize(
    ("relative", "load", "change", "field"),
    [
        (
            "agents/agents_config.json",
            SharedDir.agents,
            {"referees": [{"port": 8001}]},
            "referees.0.display_name",
        ),
        (
            "games/games_registry.json",
            SharedDir.games,
            {"games": {"x": {"min_players": 0}}},
            "games.x.min_players",
        ),
        ("defaults/player.json", SharedDir.player_defaults, {"port": 0}, "port"),
        (
            "defaults/referee.json",
            SharedDir.referee_defaults,
            {"max_concurrent_matches": 0},
            "max_concurrent_matches",
        ),
    ],
)
def test_a_bad_value_in_any_file_names_the_file_and_the_field(
    shared_dir: SharedDir, relative: str, load: Any, change: dict[str, Any], field: str
) -> None:
    path = edit(shared_dir, relative, change)
    with pytest.raises(ConfigError) as caught:
        load(shared_dir)
    assert str(path) in str(caught.value)
    assert field in str(caught.value)


LEAGUE_FILE = "leagues/league_2025_even_odd.json"


@pytest.mark.parametrize(
    ("scoring", "said"),
    [
        (
            {"win": -3},
            "win (-3) must be more than 0: a win earns points; win (-3) must be more than draw (1)",
        ),
        (
            {"win": 0, "draw": -1, "loss": -2, "technical_loss": -3},
            "win (0) must be more than 0: a win earns points",
        ),
        ({"win": 1, "draw": 1}, "win (1) must be more than draw (1)"),
        ({"draw": 0, "loss": 0.5}, "draw (0) must be at least loss (0.5)"),
        (
            {"technical_loss": 1},
            "technical_loss (1) must be at most loss (0): not answering must "
            "not pay more than losing",
        ),
    ],
)
def test_a_scoring_that_ranks_outcomes_wrongly_is_refused_naming_the_fields(
    shared_dir: SharedDir, scoring: dict[str, float], said: str
) -> None:
    league = json.loads((shared_dir.config_dir / LEAGUE_FILE).read_text())
    path = edit(shared_dir, LEAGUE_FILE, {"scoring": {**league["scoring"], **scoring}})
    with pytest.raises(ConfigError) as caught:
        shared_dir.league("league_2025_even_odd")
    assert str(caught.value) == f"{path}: scoring: Value error, {said}"


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN"])
def test_points_must_be_finite(shared_dir: SharedDir, value: str) -> None:
    path = shared_dir.config_dir / LEAGUE_FILE
    path.write_text(path.read_text().replace('"draw": 1', f'"draw": {value}'))
    with pytest.raises(ConfigError, match="scoring.draw: Input should be a finite number"):
        shared_dir.league("league_2025_even_odd")


@pytest.mark.parametrize(
    "scoring",
    [
        {"win": 3, "draw": 1, "loss": 0, "technical_loss": 0},  # the committed one
        {"win": 1, "draw": 0, "loss": 0, "technical_loss": 0},  # a draw as bad as a loss
        {"win": 2, "draw": 0.5, "loss": -1, "technical_loss": -3},  # losing costs points
        {"win": 0.5, "draw": -1, "loss": -1, "technical_loss": -1},
    ],
)
def test_a_scoring_that_ranks_outcomes_as_a_player_would_is_taken(
    shared_dir: SharedDir, scoring: dict[str, float]
) -> None:
    edit(shared_dir, LEAGUE_FILE, {"scoring": scoring})
    assert shared_dir.league("league_2025_even_odd").scoring.model_dump() == scoring


def test_a_missing_file_names_the_path(shared_dir: SharedDir) -> None:
    path = shared_dir.config_dir / "system.json"
    path.unlink()
    with pytest.raises(ConfigError, match="does not exist") as caught:
        shared_dir.system()
    assert str(path) in str(caught.value)


def test_a_missing_league_names_the_path(shared_dir: SharedDir) -> None:
    with pytest.raises(ConfigError) as caught:
        shared_dir.league("no_such_league")
    assert str(shared_dir.config_dir / "leagues" / "no_such_league.json") in str(caught.value)


def test_a_file_that_is_not_json_is_a_config_error(shared_dir: SharedDir) -> None:
    path = shared_dir.config_dir / "games" / "games_registry.json"
    path.write_text('{"games": {')
    with pytest.raises(ConfigError, match="not valid JSON") as caught:
        shared_dir.games()
    assert str(path) in str(caught.value)


def test_a_league_file_must_hold_its_own_league_id(shared_dir: SharedDir) -> None:
    source = shared_dir.config_dir / "leagues" / "league_2025_even_odd.json"
    copy = source.with_name("league_2026.json")
    copy.write_text(source.read_text())
    with pytest.raises(ConfigError) as caught:
        shared_dir.league("league_2026")
    message = str(caught.value)
    assert str(copy) in message
    assert "league_2025_even_odd" in message and "league_2026" in message


# --- where SHARED is ------------------------------------------------------------------------


def test_resolve_shared_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit, from_env, cwd = tmp_path / "explicit", tmp_path / "env", tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv(SHARED_DIR_ENV, raising=False)
    assert resolve_shared_dir() == cwd / "SHARED"
    monkeypatch.setenv(SHARED_DIR_ENV, str(from_env))
    assert resolve_shared_dir() == from_env
    assert resolve_shared_dir(explicit) == explicit
    assert resolve_shared_dir(str(explicit)) == explicit
    assert SharedDir().root == from_env
    assert SharedDir(explicit).config_dir == explicit / "config"


def test_a_relative_shared_dir_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_shared_dir("some/where") == tmp_path / "some" / "where"


# --- retry policy ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "delays"),
    [
        (RetryPolicy(), [2.0, 2.0, 2.0]),
        (RetryPolicy(backoff_sec=1, backoff_multiplier=2, max_backoff_sec=10), [1, 2, 4, 8, 10]),
        (RetryPolicy(backoff_sec=0.5, backoff_multiplier=3, max_backoff_sec=2), [0.5, 1.5, 2]),
    ],
)
def test_retry_delay(policy: RetryPolicy, delays: list[float]) -> None:
    assert [policy.delay(n) for n in range(1, len(delays) + 1)] == pytest.approx(delays)


@pytest.mark.parametrize(
    "bad",
    [
        {"max_retries": -1},
        {"max_retries": 11},
        {"backoff_sec": -0.1},
        {"backoff_multiplier": 0.5},
        {"jitter": True},
    ],
)
def test_a_bad_retry_policy_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy.model_validate(bad)


def test_system_config_refuses_a_non_positive_timeout() -> None:
    with pytest.raises(ValueError, match="notify_round"):
        SystemConfig.model_validate({"default_league_id": "L", "timeouts_sec": {"notify_round": 0}})


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("http://127.0.0.1:8000/mcp", True),
        ("https://league.example/mcp", True),
        ("http://127.0.0.1:8000/", False),
        ("ftp://lm/mcp", False),
        ("127.0.0.1:8000/mcp", False),
        ("http:///mcp", False),
        ("http://lm:port/mcp", False),
        ("", False),
    ],
)
def test_agent_endpoints_must_be_http_urls_ending_in_mcp(url: str, ok: bool) -> None:
    from pydantic import TypeAdapter, ValidationError

    from sdk.types import McpUrl

    adapter = TypeAdapter(McpUrl)
    if ok:
        assert adapter.validate_python(url) == url
    else:
        with pytest.raises(ValidationError):
            adapter.validate_python(url)


@pytest.mark.parametrize("league_id", ["../secrets", "a/b", "..", "", ".hidden", "x" * 101])
def test_a_league_id_cannot_leave_its_folder(shared_dir: SharedDir, league_id: str) -> None:
    with pytest.raises(ConfigError, match="may hold only"):
        shared_dir.league(league_id)
    with pytest.raises(ConfigError, match="may hold only"):
        shared_dir.league_dir(league_id)

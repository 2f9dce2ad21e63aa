"""The app's lifespan and routes: start-up with an existing history, a corrupt one, run()."""

from __future__ import annotations

import json
from typing import Any

import pytest

import players.app
from players import HistoryError, PlayerSettings
from players.app import create_app
from sdk.store import write_document
from tests.players.conftest import LEAGUE, SettingsFactory, game_over, parity_call, serving

PAST_MATCH = {
    "match_id": "R1M1",
    "league_id": LEAGUE,
    "round_id": 1,
    "opponent_id": "P02",
    "role": "PLAYER_B",
    "my_choice": "even",
    "opponent_choice": "even",
    "drawn_number": 4,
    "status": "DRAW",
    "winner_player_id": None,
    "outcome": "DRAW",
    "at": "2025-01-15T10:00:00Z",
}


async def test_health_and_status_describe_the_player(make_settings: SettingsFactory) -> None:
    async with serving(make_settings(strategy="history")) as player:
        health = await player.get("/health")
        status = await player.get("/status")

    assert health == {
        "status": "ok",
        "agent": "player",
        "player_id": "P01",
        "state": "INIT",
        "registration": "standalone",
    }
    assert (status["display_name"], status["strategy"], status["state"]) == (
        "Alice",
        "history",
        "INIT",
    )
    assert status["registration"] == {"status": "DISABLED", "reason": None}
    assert status["contact_endpoint"].endswith("/mcp") and status["has_auth_token"] is False


async def test_a_restarted_player_keeps_its_history(make_settings: SettingsFactory) -> None:
    settings = make_settings()
    path = settings.shared_dir / "data" / "players" / "P01" / "history.json"
    write_document(
        path,
        {
            "player_id": "P01",
            "display_name": "Alice",
            "strategy": "random",
            "matches": [PAST_MATCH],
            "totals": {"played": 1, "draws": 1},
        },
    )

    async with serving(settings) as player:
        stats = await player.get("/stats")
        history = await player.get("/history")

    assert (stats["played"], stats["draws"], stats["win_rate"]) == (1, 1, 0.0)
    assert history["matches"] == [PAST_MATCH]


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps(["a", "list"]),
        json.dumps({"schema_version": "1.0.0", "matches": []}),
    ],
)
def test_a_corrupt_history_stops_the_start_naming_the_file(
    make_settings: SettingsFactory, content: str
) -> None:
    settings = make_settings()
    path = settings.shared_dir / "data" / "players" / "P01" / "history.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)

    with pytest.raises(HistoryError, match="history.json") as caught:
        create_app(settings)  # before it serves: the command says so in one line

    assert str(path) in str(caught.value)
    assert path.read_text() == content, "the corrupt file is left for a human to look at"


async def test_a_corrupt_history_found_at_registration_is_reported_not_overwritten(
    make_settings: SettingsFactory,
) -> None:
    settings = make_settings(player_id=None)
    path = settings.shared_dir / "data" / "players" / "P05" / "history.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    async with serving(settings) as player:
        await player.rpc("choose_parity", parity_call(player_id="P05"))
        ack = await player.rpc(
            "notify_match_result", game_over(choices={"P05": "odd", "P02": "even"}, winner="P05")
        )
        status = await player.get("/status")
        stats = await player.get("/stats")

    assert ack["message_type"] == "ACK"
    assert str(path) in status["fault"]
    assert stats["played"] == 1, "the match is kept in memory"
    assert path.read_text() == "{not json"


def test_run_serves_the_app_on_the_configured_address(
    make_settings: SettingsFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[Any] = []
    monkeypatch.setattr(
        players.app,
        "serve",
        lambda app, host, port, **options: served.append((app, host, port, options)),
    )
    settings: PlayerSettings = make_settings(host="127.0.0.1", port=8123)

    players.app.run(settings)

    [(app, host, port, options)] = served
    assert (host, port) == ("127.0.0.1", 8123)
    assert app.state.player.settings is settings
    assert options == {"exit_switch": app.state.player.exit_switch, "name": "Player Alice"}, (
        "a refused registration must be able to end the process; it says where it listens"
    )
    app.state.player.log.close()

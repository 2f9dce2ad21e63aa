"""A whole league of LLM players: four `--strategy llm` player processes, each asking the
local scripted chat server (no internet, no model) for every move, play a repeated
prisoner's dilemma league to its end through real referees and a real League Manager."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from league_cli.launcher import Launcher
from sdk.config import SharedDir
from tests.conftest import free_port
from tests.e2e.test_league import launcher, play_league  # noqa: F401 - the fixture
from tests.match_files import match_files, recompute_standings
from tests.strategies.llm_server import LlmServer, start_in_thread

pytestmark = pytest.mark.e2e

LEAGUE = "league_2025_prisoners_dilemma"


@pytest.fixture
def chat_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LlmServer]:
    """The scripted server, and the environment the players' processes inherit."""
    port = free_port()
    server, _ = start_in_thread(port)
    monkeypatch.setenv("LEAGUE_LLM_BASE_URL", f"http://127.0.0.1:{port}/valid/league/v1")
    monkeypatch.setenv("LEAGUE_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("LEAGUE_LLM_DEFAULT_MOVE", "C")
    monkeypatch.delenv("LEAGUE_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_a_league_of_llm_players_plays_to_its_end(
    launcher: Launcher,  # noqa: F811
    chat_server: LlmServer,
) -> None:
    _, standings = play_league(launcher, 4, LEAGUE, "prisoners_dilemma", ["llm"])
    shared = SharedDir(launcher.shared_dir)
    matches = match_files(shared, LEAGUE)
    assert len(matches) == 6
    for match in matches:
        assert match["result"]["game_result"]["status"] != "TECHNICAL_LOSS", match["match_id"]
    recomputed = recompute_standings(shared, LEAGUE, matches)
    for row in standings["standings"]:
        assert row["points"] == recomputed[row["player_id"]]["points"], row["player_id"]
    rounds = shared.league(LEAGUE).game_params["rounds"]
    with httpx.Client(timeout=10) as client:
        for process in launcher.processes:
            if process.kind != "player":
                continue
            report = client.get(f"{process.base_url}/stats").json()["strategy_report"]
            assert set(report["by_league"]) == {LEAGUE}, process.name
            assert report["totals"]["moves"] == 3 * rounds, "a move per round of 3 matches"
            assert report["totals"]["default_moves"] == 0 and report["totals"]["prompt_tokens"] > 0

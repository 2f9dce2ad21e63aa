"""The play service as its own process, with real processes around it on free loopback
ports: a League Manager, a player registered in its league, and the play service, which
lists that player from the League Manager's ``/status`` and plays it over the protocol with
the proof the League Manager gave it (``get_play_proof``); the League Manager serves no
game and links to the play service from its dashboard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import LeaguePlan, start_processes
from tests.conftest import free_port, make_shared_dir
from tests.playroom.processes import Running, play_league

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with play_league(make_shared_dir(tmp_path_factory.mktemp("play-service") / "SHARED")) as up:
        yield up


def test_a_person_plays_a_registered_player_with_the_league_manager_s_proof(
    running: Running,
) -> None:
    with httpx.Client(base_url=running.play.base_url, timeout=30) as play:
        config = {
            "game": "even_odd",
            "opponent": {"kind": "player", "player_id": running.player_id},
            "seed": 5,
        }
        created = play.post("/api/play", json=config)
        assert created.status_code == 201, created.text
        session_id = created.json()["session_id"]
        started = play.post(f"/api/play/{session_id}/start").json()
        assert started["turn"] == "you", started
        final = play.post(f"/api/play/{session_id}/moves", json={"move": "EVEN"}).json()
        assert final["status"] == "finished", final
        assert final["error"] is None
        result = final["result"]
        assert result["choices"] == {"human": "even", running.player_id: "even"}, result
        assert result["status"] == "DRAW", "the fixed player answered: no technical loss"
        transcript = play.get(f"/api/play/{session_id}/transcript.json").json()
    assert transcript["configs"]["opponent"]["player_id"] == running.player_id
    texts = " ".join(m["text"] for m in transcript["messages"])
    assert "E012" not in texts and "TECHNICAL_LOSS" not in texts, (
        "the player took the play service's proof: it answered every call"
    )
    with httpx.Client(timeout=10) as client:
        history = client.get(f"{running.player.base_url}/history").json()
    assert "play-even_odd-5" in str(history), "the player played match play-even_odd-5"


def test_the_league_manager_serves_no_game_and_links_to_the_play_service(
    running: Running,
) -> None:
    with httpx.Client(base_url=running.manager.base_url, timeout=10) as lm:
        for path in ("/play", "/play/play.js", "/api/play/defaults"):
            assert lm.get(path).status_code == 404, path
        dashboard = lm.get("/").text
    assert f'<a href="{running.play_url}">Play</a>' in dashboard
    with httpx.Client(base_url=running.play.base_url, timeout=10) as play:
        page = play.get("/play")
        assert page.status_code == 200 and '<script src="/play/play.js"' in page.text
        assert f'<a href="{running.manager.base_url}/">Dashboard</a>' in page.text
        health = play.get("/health").json()
        assert health["status"] == "ok" and health["agent"] == "play_service"


def test_league_up_starts_the_play_service_with_the_rest_and_stops_it(tmp_path: Path) -> None:
    """``league up`` (``start_processes`` with a ``play_port``): the play service runs beside
    the league, the dashboard links to it, and ``stop_all`` stops it by its pid."""
    shared = make_shared_dir(tmp_path / "SHARED")
    launcher = Launcher(shared.root)
    plan = LeaguePlan(
        shared_dir=shared.root,
        players=[(f"Player{n}", free_port(), "random") for n in (1, 2)],
        referees=[("Ref1", free_port(), 1)],
        lm_port=free_port(),
        play_port=free_port(),
    )
    try:
        with httpx.Client(timeout=10) as client:
            lm_url = start_processes(plan, launcher, client)
            assert f'<a href="{plan.play_url}">Play</a>' in client.get(f"{lm_url}/").text
            (play,) = [p for p in launcher.processes if p.kind == "play-service"]
            assert play.port == plan.play_port
            offered = client.get(f"{play.base_url}/api/play/defaults").json()["players"]
            assert {p["player_id"] for p in offered} == {"P01", "P02"}
    finally:
        launcher.stop_all()
    assert play.popen.poll() is not None and not play.pid_file.exists()

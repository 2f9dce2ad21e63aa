"""The dashboard's routes in process: the JSON pages read, the page shells, the assets, and
refusals of unknown or malformed ids (tests/web drives the pages in a browser)."""

from __future__ import annotations

from typing import Any

from league_manager.web import pages
from sdk.config import SharedDir
from tests.analytics_matches import even_odd_match, write_matches
from tests.league_manager.conftest import World
from tests.league_manager.test_app import run_full_league

LEAGUE = "league_2025_even_odd"


def match_file(world: World, match_id: str) -> dict[str, Any]:
    """R1M1's file as a referee writes it, with a transcript."""
    match = world.manager.schedule.match(match_id)
    assert match is not None
    a, b = match.player_ids
    document = even_odd_match(match_id, 1, a, b, match.winner)
    document["lifecycle"] = [
        {"state": "WAITING_FOR_PLAYERS", "at": "2026-01-01T00:00:00Z"},
        {"state": "FINISHED", "at": "2026-01-01T00:00:01Z"},
    ]
    document["transcript"] = [
        {
            "direction": "sent",
            "method": "choose_parity",
            "peer": a,
            "at": "2026-01-01T00:00:00Z",
            "error": None,
            "message": {"message_type": "CHOOSE_PARITY_CALL"},
        }
    ]
    return document


async def test_match_detail_joins_the_record_and_the_match_file(
    world: World, shared_dir: SharedDir
) -> None:
    await run_full_league(world, 4)
    write_matches(shared_dir.data_dir / "matches" / LEAGUE, [match_file(world, "R1M1")])
    detail = (await world.lm.get("/api/matches/R1M1")).json()
    assert detail["status"] == "COMPLETED" and detail["round_id"] == 1
    assert [p["display_name"] for p in detail["players"]] == ["Player 1", "Player 4"]
    assert detail["result"]["outcomes"] == {"P01": "WIN", "P04": "LOSS"}
    assert detail["match_file"]["transcript"][0]["method"] == "choose_parity"
    assert detail["match_file_problem"] is None
    without = (await world.lm.get("/api/matches/R2M1")).json()
    assert without["match_file"] is None and "no match file yet" in without["match_file_problem"]
    (shared_dir.data_dir / "matches" / LEAGUE / "R2M1.json").write_text("{not json")
    broken = (await world.lm.get("/api/matches/R2M1")).json()
    assert broken["match_file"] is None and "not valid JSON" in broken["match_file_problem"]


async def test_unknown_and_malformed_match_ids_are_404_sentences(
    world: World, shared_dir: SharedDir
) -> None:
    await run_full_league(world, 4)
    folder = shared_dir.data_dir / "matches" / LEAGUE
    write_matches(folder, [{"match_id": "stray", "secret": "not scheduled"}])
    # (a client resolves literal ../ itself; encoded, it reaches the server)
    for bad in (
        "R9M9",
        "stray",
        "R1M1.json",
        "..%2F..%2Fconfig%2Fsystem.json",
        "%2Fetc%2Fpasswd",
        "R1M1%2F..%2FR1M2",
        "%2E%2E",
    ):
        answer = await world.lm.get(f"/api/matches/{bad}")
        assert answer.status_code == 404, bad
        assert "is not in this league" in answer.json()["error"], bad
        page = await world.lm.get(f"/ui/matches/{bad}")
        assert page.status_code == 404 and "not in this league&#x27;s schedule" in page.text, bad
    hostile = await world.lm.get("/ui/matches/<script>alert(1)</script>")
    assert hostile.status_code == 404
    assert "<script>alert" not in hostile.text and "&lt;script&gt;alert(1)" in hostile.text


async def test_player_detail_has_record_state_and_matches(world: World) -> None:
    await run_full_league(world, 4)
    detail = (await world.lm.get("/api/players/P01")).json()
    assert detail["player"]["agent_id"] == "P01" and detail["player"]["display_name"] == "Player 1"
    assert detail["player"]["state"] == "SHUTDOWN", "every agent is told the league completed"
    assert detail["stats"]["record"]["played"] == 3 and detail["stats"]["rank"] >= 1
    assert sorted(m["match_id"] for m in detail["matches"]) == sorted(
        m["match_id"] for m in detail["stats"]["matches"]
    )
    assert all(m["outcome"] in ("WIN", "LOSS", "DRAW") for m in detail["matches"])
    for unknown in ("P99", "REF01", "..%2Fagents"):
        answer = await world.lm.get(f"/api/players/{unknown}")
        assert answer.status_code == 404, unknown
        assert "is not in this league" in answer.json()["error"]
        assert (await world.lm.get(f"/ui/players/{unknown}")).status_code == 404


async def test_overview_and_pages_before_and_after_a_league(world: World) -> None:
    early = (await world.lm.get("/api/overview")).json()
    assert early["status"]["state"] == "REGISTRATION" and early["running"] == []
    assert early["standings"]["standings"] == []
    await run_full_league(world, 4)
    late = (await world.lm.get("/api/overview")).json()
    assert late["status"]["state"] == "COMPLETED"
    assert len(late["standings"]["standings"]) == 4 and late["running"] == []
    for path, page in (
        ("/", "dashboard"),
        ("/ui/schedule", "schedule"),
        ("/ui/analysis", "analysis"),
        ("/ui/matches/R1M1", "match"),
        ("/ui/players/P02", "player"),
    ):
        answer = await world.lm.get(path)
        assert answer.status_code == 200, path
        assert answer.headers["content-type"].startswith("text/html")
        assert f'data-page="{page}"' in answer.text and "Even/Odd League 2025" in answer.text
        assert "http://" not in answer.text and "https://" not in answer.text, (
            f"{path} loads nothing from elsewhere"
        )
    script = await world.lm.get("/ui/static/dashboard.js")
    style = await world.lm.get("/ui/static/dashboard.css")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    assert "innerHTML" not in script.text, "the script writes text nodes only"


def test_the_navigation_links_to_the_play_service_only_when_told_where() -> None:
    """The League Manager serves no game: its pages link to the play service's ``/play``
    when it was started with ``--play-url``, and have no Play link otherwise."""
    play_url = "http://127.0.0.1:8090/play"
    for render in (
        lambda url: pages.dashboard_page("L", url),
        lambda url: pages.schedule_page("L", url),
        lambda url: pages.analysis_page("L", url),
        lambda url: pages.match_page("L", "R1M1", url),
        lambda url: pages.player_page("L", "P01", url),
    ):
        assert f'<a href="{play_url}">Play</a>' in render(play_url)
        assert ">Play</a>" not in render(None) and '/play"' not in render(None)

"""Who may do what, against real processes: registration answers (the same endpoint again, a
display name taken, a full league, a flood from one address, a referee without the league's
referee secret or with a wrong one, before and after the start), tokens on every request
(missing E011, wrong E012, another agent's E012), roles on result reports (a player's token
E014, a referee that does not hold the match E014, an unknown match E006), and no token
written in full anywhere but the League Manager's 0600 secrets.
"""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest

from league_manager.registry_files import RegistryFiles
from tests.conftest import free_port
from tests.interop.harness import LEAGUE, Agents, league_query, rpc, start_our_league

pytestmark = pytest.mark.e2e

MAX_PLAYERS = 5
PER_MINUTE = 10
"""Registrations from 127.0.0.1 in a minute: the referee, 3 players and the test's first six
fill it; the seventh of the test's is one too many."""
TOKEN_FILES = {
    "secrets.json",
    "secrets.json.bak",
    "registry.jsonl",
    "registry.jsonl.bak",
    "admin_token",
    "referee_secret",
}
"""The files that hold tokens, each mode 0600."""


def stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def envelope(message_type: str, sender: str, **fields: Any) -> dict[str, Any]:
    return {
        "protocol": "league.v2",
        "message_type": message_type,
        "sender": sender,
        "timestamp": stamp(),
        "conversation_id": "auth-test",
        **fields,
    }


def register(
    url: str,
    kind: str,
    name: str,
    endpoint: str,
    secret: str | None = None,
    *,
    forwarded: str | None = None,
) -> dict[str, Any]:
    """``forwarded``: sent as ``X-Forwarded-For``, as a client on the League Manager's
    machine that claims to relay another address."""
    meta = {
        "display_name": name,
        "version": "1.0.0",
        "game_types": ["even_odd"],
        "contact_endpoint": endpoint,
    }
    if kind == "referee":
        params = envelope(
            "REFEREE_REGISTER_REQUEST",
            f"referee:{name}",
            auth_token=secret,
            referee_meta={**meta, "max_concurrent_matches": 1},
        )
    else:
        params = envelope("LEAGUE_REGISTER_REQUEST", f"player:{name}", player_meta=meta)
    headers = None if forwarded is None else {"X-Forwarded-For": forwarded}
    answer: dict[str, Any] = rpc(url, f"register_{kind}", params, headers)["result"]
    return answer


def nowhere() -> str:
    """An endpoint on a loopback port nobody listens on: calls to it are refused at once."""
    return f"http://127.0.0.1:{free_port()}/mcp"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A league played to its end with two impostor-shaped agents registered by the test
    (a player and a referee that never answer), and what registration answered."""
    agents = Agents(tmp_path_factory.mktemp("auth"))
    try:
        path = agents.shared.config_dir / "leagues" / f"{LEAGUE}.json"
        config = json.loads(path.read_text())
        path.write_text(
            json.dumps(
                {**config, "max_players": MAX_PLAYERS, "registrations_per_minute": PER_MINUTE}
            )
        )
        manager = agents.our_manager()
        url = manager.mcp_url
        agents.ours.wait_healthy(agents.our_referee(url))
        for name in ("Ann", "Ben", "Cy"):
            agents.ours.wait_healthy(agents.our_player(url, name))
        mallory_endpoint = nowhere()
        secret = agents.shared.referee_secret_path(LEAGUE).read_text().strip()
        answers = {
            "rogue_before": register(url, "referee", "Rogue", nowhere()),
            "wrong_before": register(url, "referee", "Rogue", nowhere(), secret[::-1]),
            "mallory": register(url, "player", "Mallory", mallory_endpoint),
            "eve": register(url, "referee", "Eve", nowhere(), secret),
            "same_endpoint": register(url, "player", "Mallory2", mallory_endpoint),
            "same_name": register(url, "player", "mallory ", nowhere()),
            "fifth": register(url, "player", "Trent", nowhere()),
            "full": register(url, "player", "Zed", nowhere()),
            "flood": register(url, "player", "Zoe", nowhere()),
            "forwarded": register(url, "player", "Zia", nowhere(), forwarded="203.0.113.9"),
        }
        status = start_our_league(agents, manager, referees=2, players=MAX_PLAYERS, timeout=60)
        answers["rogue_after"] = register(url, "referee", "Rogue", nowhere())
        answers["wrong_after"] = register(url, "referee", "Rogue", nowhere(), secret + "x")
        yield {"agents": agents, "url": url, "answers": answers, "status": status}
    finally:
        agents.stop_all()


def test_a_referee_without_the_secret_is_refused_before_and_after_the_start(
    league: dict[str, Any],
) -> None:
    answers = league["answers"]
    for name, code in (
        ("rogue_before", "E011"),
        ("wrong_before", "E012"),
        ("rogue_after", "E011"),
        ("wrong_after", "E012"),
    ):
        answer = answers[name]
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", code), name
        assert "referee secret" in answer["error_description"], name
    referees = {r["display_name"] for r in league["status"]["referees"]}
    assert "Rogue" not in referees, "no rogue referee was registered"


def test_registration_answers_are_documented_refusals(league: dict[str, Any]) -> None:
    answers = league["answers"]
    assert answers["mallory"]["status"] == answers["eve"]["status"] == "ACCEPTED"
    mallory = answers["mallory"]["player_id"]
    assert answers["same_endpoint"]["status"] == "REJECTED"
    assert f"already registered as {mallory}" in answers["same_endpoint"]["reason"]
    assert answers["same_name"]["status"] == "REJECTED"
    assert f"is taken by {mallory}" in answers["same_name"]["reason"]
    assert answers["fifth"]["status"] == "ACCEPTED"
    assert answers["full"]["status"] == "REJECTED"
    assert f"the league is full ({MAX_PLAYERS} players)" in answers["full"]["reason"]
    assert answers["flood"]["status"] == "REJECTED"
    assert re.search(
        rf"too many registrations from 127\.0\.0\.1: at most {PER_MINUTE} a "
        r"minute; try again in \d+ s",
        answers["flood"]["reason"],
    )
    assert 0 < answers["flood"]["retry_after_sec"] <= 60, "our agents wait that long, then retry"
    assert "retry_after_sec" not in answers["full"], "no wait changes a full league"
    assert answers["forwarded"]["status"] == "REJECTED"
    assert "too many registrations from 127.0.0.1" in answers["forwarded"]["reason"], (
        "an X-Forwarded-For header names no other address: the connection's is counted"
    )


def test_every_request_needs_its_own_senders_token(league: dict[str, Any]) -> None:
    url, answers = league["url"], league["answers"]
    mallory, token = answers["mallory"]["player_id"], answers["mallory"]["auth_token"]
    someone_else = next(
        p["agent_id"] for p in league["status"]["players"] if p["agent_id"] != mallory
    )
    cases = {
        "E011": league_query(f"player:{mallory}"),
        "E012": league_query(f"player:{mallory}", auth_token=token[::-1]),
    }
    for code, params in cases.items():
        answer = rpc(url, "league_query", params)["result"]
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", code), answer
    impostor = rpc(url, "league_query", league_query(f"player:{someone_else}", auth_token=token))[
        "result"
    ]
    assert impostor["error_code"] == "E012", "another agent's sender with my token"
    own = rpc(url, "league_query", league_query(f"player:{mallory}", auth_token=token))
    assert own["result"]["success"] is True


def report(sender: str, token: str, match_id: str, round_id: int) -> dict[str, Any]:
    return envelope(
        "MATCH_RESULT_REPORT",
        sender,
        auth_token=token,
        league_id=LEAGUE,
        round_id=round_id,
        match_id=match_id,
        game_type="even_odd",
        result={"winner": None, "score": {}, "details": {}},
    )


def test_only_the_referee_given_a_match_may_report_it(league: dict[str, Any]) -> None:
    agents: Agents = league["agents"]
    url, answers = league["url"], league["answers"]
    eve, eve_token = answers["eve"]["referee_id"], answers["eve"]["auth_token"]
    mallory, mallory_token = answers["mallory"]["player_id"], answers["mallory"]["auth_token"]
    rounds = httpx.get(url.removesuffix("/mcp") + "/schedule", timeout=10).json()
    matches = [m for r in rounds["rounds"] for m in r["matches"]]
    first = matches[0]
    by_player = rpc(
        url,
        "report_match_result",
        report(f"player:{mallory}", mallory_token, first["match_id"], first["round_id"]),
    )["result"]
    assert by_player["error_code"] == "E014" and "only a referee" in by_player["error_description"]
    unknown = rpc(url, "report_match_result", report(f"referee:{eve}", eve_token, "R99M9", 99))
    assert unknown["result"]["error_code"] == "E006"
    log = agents.shared.league_log_path(LEAGUE).read_text().splitlines()
    given_to_eve = {
        entry["data"]["match_id"]
        for entry in map(json.loads, log)
        if entry["event"] == "start_match_failed" and entry["data"]["referee_id"] == eve
    }
    assert given_to_eve, "Eve, who never answers, was offered at least one match"
    never_hers = next(m for m in matches if m["match_id"] not in given_to_eve)
    refused = rpc(
        url,
        "report_match_result",
        report(f"referee:{eve}", eve_token, never_hers["match_id"], never_hers["round_id"]),
    )["result"]
    assert refused["error_code"] == "E014"
    assert f"is not {eve}'s to report" in refused["error_description"]
    hers = next(m for m in matches if m["match_id"] in given_to_eve)
    superseded = rpc(
        url,
        "report_match_result",
        report(f"referee:{eve}", eve_token, hers["match_id"], hers["round_id"]),
    )["result"]
    assert superseded["error_code"] == "E014", (
        "a referee whose assignment went to another referee may not report the match"
    )


def test_no_token_is_written_in_full_outside_the_secrets(league: dict[str, Any]) -> None:
    agents: Agents = league["agents"]
    league_dir = agents.shared.league_dir(LEAGUE)
    tokens = RegistryFiles(league_dir).read().tokens
    assert len(tokens) == 2 + MAX_PLAYERS, "every registered agent has its token there"
    known = [token for token in tokens.values() if len(token) >= 20]
    scanned = 0
    for path in agents.root.rglob("*"):
        if not path.is_file() or path.name in TOKEN_FILES:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        scanned += 1
        leaked = [token[:6] for token in known if token in text]
        assert not leaked, f"{path} holds tokens in full (starting {leaked})"
    assert scanned > 20, "the logs, match files and data were all read"
    for name in TOKEN_FILES:
        for path in league_dir.glob(name):
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode == 0o600, f"{path} is {oct(mode)}, not 0600"


def test_suspended_impostor_players_forfeit_and_the_league_still_completes(
    league: dict[str, Any],
) -> None:
    status = league["status"]
    assert status["matches_completed"] == status["total_matches"] == 10
    agents: Agents = league["agents"]
    log = [
        json.loads(line) for line in agents.shared.league_log_path(LEAGUE).read_text().splitlines()
    ]
    suspended = {
        entry["data"]["player_id"] for entry in log if entry["event"] == "player_suspended"
    }
    silent = {league["answers"][name]["player_id"] for name in ("mallory", "fifth")}
    assert suspended == silent, "the two players that never answer, and only they"
    assert any(entry["event"] == "match_forfeited" for entry in log)

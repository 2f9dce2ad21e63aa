"""LLM players as real processes in whole matches: a standalone referee (``/run_match``),
the local chat server (``llm_server.py``) as its own process, and one player host per
scripted model. Checks that matches end normally even when the model is slow, wrong or
down, and that no player's requests hold what the referee did not show it.

Every process starts once for the module; the matches run at once (about 10 s in all).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import wait_for
from sdk.config import SharedDir
from tests.conftest import free_port, make_shared_dir
from tests.strategies import llm_server

pytestmark = pytest.mark.e2e

ADMIN_TOKEN = "llm-admin-token-0123456789abcdef0123"
MOVE_TIMEOUT_SEC = 4.0
"""The referee's move deadline here: long enough for a scripted model, short enough that
the slow one (3 s) costs little and still misses it less the player's margins."""
PLAYERS = {
    "A": "valid",
    "B": "valid",
    "SLOW": "slow-3",
    "ERR": "error500",
    "BAD": "invalid",
    "FIX": "invalid_then_valid",
}
"""Player id → the scripted model's behaviour (the server tag is the player id)."""
GAMES = ["even_odd", "prisoners_dilemma", "auction_first_price"]
AUCTION = {"value_low": 1_000_001, "value_high": 1_999_999, "bid_cap": 2_000_000}
"""Values no other number of a prompt can be, so a leak is a plain substring."""


@dataclass
class Setup:
    shared: SharedDir
    referee: AgentProcess
    players: dict[str, AgentProcess]
    server_url: str


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    root = tmp_path_factory.mktemp("llm")
    shared = make_shared_dir(
        root / "SHARED",
        timeouts_sec={
            "handle_game_invitation": 3,
            "choose_parity": MOVE_TIMEOUT_SEC,
            "make_move": MOVE_TIMEOUT_SEC,
            "notify_match_result": 3,
            "notify_game_error": 1,
        },
        security={
            "admin_token": ADMIN_TOKEN,
            "admin_token_env": "LEAGUE_LLM_TEST_ADMIN_TOKEN",
            "token_bytes": 32,
        },
    )
    for agent in ("player", "referee"):
        defaults = shared.root / "config" / "defaults" / f"{agent}.json"
        defaults.write_text(json.dumps({**json.loads(defaults.read_text()), "game_types": GAMES}))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, llm_server.__file__, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server_url = f"http://127.0.0.1:{port}"
    launcher = Launcher(shared.root)
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"
    try:
        referee = launcher.referee(
            "LlmRef", free_port(), unused_lm, max_concurrent=8, standalone=True
        )
        players: dict[str, AgentProcess] = {}
        for player_id, behaviour in PLAYERS.items():
            with pytest.MonkeyPatch.context() as env:  # the launcher passes os.environ on
                env.setenv("LEAGUE_LLM_BASE_URL", f"{server_url}/{behaviour}/{player_id}/v1")
                env.setenv("LEAGUE_LLM_MODEL", "scripted-1")
                env.setenv("LEAGUE_LLM_DEFAULT_MOVE", "C" if player_id != "BAD" else "D")
                env.setenv("LEAGUE_LLM_SAFETY_MARGIN_SEC", "1.5")
                env.delenv("LEAGUE_LLM_API_KEY", raising=False)
                env.delenv("OPENAI_API_KEY", raising=False)
                players[player_id] = launcher.player(
                    player_id,
                    free_port(),
                    unused_lm,
                    strategy="llm",
                    player_id=player_id,
                    standalone=True,
                )
        launcher.wait_healthy(referee)
        for process in players.values():
            launcher.wait_healthy(process)
        wait_for(lambda: _answers(server_url), 10, "the chat server to listen", interval=0.05)
        yield Setup(shared, referee, players, server_url)
    finally:
        try:
            launcher.stop_all()
        finally:
            server.terminate()
            server.wait(5)


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/requests", timeout=0.5).is_success
    except httpx.HTTPError:
        return False


MATCHES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "eo-valid": ("even_odd", "A", "B", {}),
    "pd-valid": ("prisoners_dilemma", "A", "B", {"rounds": 3}),
    "auction": ("auction_first_price", "A", "B", AUCTION),
    "pd-faulty": ("prisoners_dilemma", "SLOW", "ERR", {"rounds": 2}),
    "eo-invalid": ("even_odd", "BAD", "FIX", {}),
}


@pytest.fixture(scope="module")
def runs(setup: Setup) -> dict[str, dict[str, Any]]:
    """Every match at once; each answer of ``/run_match`` with its match file."""

    def run(match_id: str) -> dict[str, Any]:
        game_type, first, second, params = MATCHES[match_id]
        seats = [{"player_id": p, "endpoint": setup.players[p].mcp_url} for p in (first, second)]
        with httpx.Client(
            base_url=setup.referee.base_url,
            timeout=90,
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
        ) as admin:
            answer = admin.post(
                "/run_match",
                json={
                    "players": seats,
                    "match_id": match_id,
                    "game_type": game_type,
                    "game_params": params,
                    "seed": 11,
                },
            )
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        body["file"] = json.loads(Path(body["match_file"]).read_text())
        return body

    started = time.monotonic()
    with ThreadPoolExecutor(len(MATCHES)) as pool:
        done = dict(zip(MATCHES, pool.map(run, MATCHES), strict=True))
    assert time.monotonic() - started < 30, "the matches took too long"
    return done


def requests_of(setup: Setup, player_id: str) -> list[dict[str, Any]]:
    every: list[dict[str, Any]] = httpx.get(f"{setup.server_url}/requests").json()
    return [r for r in every if r["tag"] == player_id]


def stats(setup: Setup, player_id: str) -> dict[str, Any]:
    report: dict[str, Any] = httpx.get(f"{setup.players[player_id].base_url}/stats").json()
    return report


@pytest.mark.parametrize("match_id", list(MATCHES))
def test_every_match_ends_without_a_technical_loss(
    runs: dict[str, dict[str, Any]], match_id: str
) -> None:
    run = runs[match_id]
    assert run["state"] == "FINISHED", run
    assert run["game_result"]["status"] in ("WIN", "DRAW"), run["game_result"]
    assert not run["result"]["details"].get("technical_losers"), run["result"]


def test_the_stats_count_calls_and_tokens_per_match(
    setup: Setup, runs: dict[str, dict[str, Any]]
) -> None:
    report = stats(setup, "A")["strategy_report"]
    assert set(report["by_match"]) == {"eo-valid", "pd-valid", "auction"}
    assert report["by_match"]["pd-valid"]["moves"] == 3
    assert report["totals"]["calls"] == len(requests_of(setup, "A")) == 5
    assert report["totals"]["prompt_tokens"] > 0 and report["totals"]["default_moves"] == 0
    assert set(report["by_league"]) == {"standalone"}


@pytest.mark.parametrize(
    ("player_id", "reasons"),
    [("SLOW", {"timeout": 2}), ("ERR", {"http_error": 2}), ("BAD", {"invalid": 1}), ("FIX", {})],
)
def test_a_failing_model_falls_back_to_the_default_move(
    setup: Setup, runs: dict[str, dict[str, Any]], player_id: str, reasons: dict[str, int]
) -> None:
    report = stats(setup, player_id)["strategy_report"]
    assert report["totals"]["default_moves_by_reason"] == reasons
    host = stats(setup, player_id)
    assert host["fallbacks_by_reason"] == {f"strategy:{r}": n for r, n in reasons.items()}, (
        "the host counts each default move once, and never had to replace a move itself"
    )
    if player_id == "FIX":
        assert report["totals"]["clarifications"] == 1


def test_an_auction_player_never_sees_the_other_value(
    setup: Setup, runs: dict[str, dict[str, Any]]
) -> None:
    """Each bidder's value is read from its own prompts (the referee shows it only its
    own); the other bidder's requests must never hold it."""
    sent: dict[str, list[str]] = {}
    own: dict[str, int] = {}
    for player_id in ("A", "B"):
        sent[player_id] = [
            json.dumps(r["body"])
            for r in requests_of(setup, player_id)
            if "Match auction" in json.dumps(r["body"])
        ]
        assert sent[player_id], f"{player_id} asked nothing about the auction"
        values = {
            int(v)
            for text in sent[player_id]
            for v in re.findall(r'private\\": \{\\"value\\": (\d+)', text)
        }
        assert len(values) == 1, f"{player_id} was shown values {values}"
        own[player_id] = values.pop()
    assert own["A"] != own["B"]
    for player_id, other in (("A", "B"), ("B", "A")):
        assert not any(str(own[other]) in text for text in sent[player_id]), (
            f"{player_id}'s requests hold {other}'s value {own[other]}"
        )


def test_no_move_is_seen_before_it_is_public(setup: Setup, runs: dict[str, dict[str, Any]]) -> None:
    """In the iterated dilemma each request holds the history of earlier rounds only; in
    even/odd no request holds the opponent's choice at all."""
    for player_id in ("A", "B"):
        rounds = []
        for request in requests_of(setup, player_id):
            turn = request["body"]["messages"][-1]["content"]
            if not turn.startswith("Match pd-valid"):
                continue
            observation = json.loads(re.search(r"observation \(JSON\): (.*)", turn)[1])
            assert len(observation["history"]) == observation["round"] - 1, observation
            rounds.append(observation["round"])
        assert rounds == [1, 2, 3], f"{player_id} was asked rounds {rounds}"
        for request in requests_of(setup, player_id):
            text = json.dumps(request["body"])
            if "Match eo-valid" in text:
                assert "opponent_choice" not in text.replace('"opponent_choice": null', "")

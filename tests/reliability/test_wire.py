"""What a whole league says on the wire, read by taps in front of every agent (see
``wiretap.py``): a token travels only in the registration answer that issues it and in its
owner's requests to the League Manager, never to a player or a referee and never back in any
other answer or page; the referee secret only to the League Manager; and a registration answer
lost on the way costs the agent one retry, which gets back the same id and token, and the
league completes with that agent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from league_cli.launcher import Launcher
from league_cli.up import wait_for
from tests.conftest import free_port, make_shared_dir
from tests.reliability.wiretap import Exchange, Wiretaps, running_taps

pytestmark = pytest.mark.e2e

PLAYERS = ("Ann", "Ben", "Cy", "Dee")
REFEREE = "Ref1"
LOSES_ITS_ANSWER = {"register_referee": REFEREE, "register_player": "Dee"}
"""Whose first registration answer the League Manager's tap drops, by method."""


@dataclass
class WireLeague:
    """A league played to its end behind taps, and what the test needs to read it."""

    exchanges: list[Exchange]
    tap_errors: list[str]
    tokens: dict[str, str]
    """Every agent's id and the token its registration answer issued."""
    referee_secret: str
    admin_token: str
    status: dict[str, Any]
    results: list[dict[str, Any]]

    def calls(self, method: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.rpc().get("method") == method]


def _meta_name(exchange: Exchange) -> str | None:
    params = exchange.rpc().get("params") or {}
    meta = params.get("referee_meta") or params.get("player_meta") or {}
    name = meta.get("display_name")
    return name if isinstance(name, str) else None


def _drops_first_answer() -> Any:
    dropped: set[str] = set()

    def drop(exchange: Exchange) -> bool:
        method = exchange.rpc().get("method")
        if (
            method in LOSES_ITS_ANSWER
            and method not in dropped
            and _meta_name(exchange) == LOSES_ITS_ANSWER[method]
        ):
            dropped.add(method)
            return True
        return False

    return drop


def _pages(
    client: httpx.Client, taps: Wiretaps, admin_token: str, results: list[dict[str, Any]]
) -> None:
    """Every page and query a spectator, an agent or the operator reads, through the taps."""
    match_id, player_id = results[0]["match_id"], results[0]["player_ids"][0]
    paths = {
        "league_manager": [
            "/",
            "/health",
            "/status",
            "/standings",
            "/schedule",
            "/analysis",
            "/api/overview",
            f"/api/matches/{match_id}",
            f"/api/players/{player_id}",
            f"/ui/matches/{match_id}",
            f"/ui/players/{player_id}",
            "/ui/schedule",
        ],
        "player": ["/health", "/status", "/stats", "/history"],
        "referee": ["/health", "/status"],
    }
    for tap in taps.taps:
        for path in paths[tap.agent.split(":")[0]]:
            assert client.get(f"{tap.base_url}{path}").status_code == 200, path
    manager = taps.taps[0]
    for name in ("standings.json", "results.json", "standings.csv", "results.csv"):
        answer = client.get(
            f"{manager.base_url}/admin/export/{name}",
            headers={"Authorization": f"Bearer {admin_token}"},
        )
        assert answer.status_code == 200, name


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireLeague]:
    shared = make_shared_dir(tmp_path_factory.mktemp("wire") / "SHARED")
    launcher = Launcher(shared.root)
    league_id = shared.system().default_league_id
    with running_taps() as taps, httpx.Client(timeout=10) as client:
        try:
            manager_port = free_port()
            lm = taps.tap("league_manager", manager_port, on_answer=_drops_first_answer())
            launcher.wait_healthy(launcher.manager(manager_port))
            agents = [
                launcher.referee(
                    REFEREE,
                    port := free_port(),
                    lm.url,
                    advertise=taps.tap(f"referee:{REFEREE}", port).url,
                )
            ]
            agents += [
                launcher.player(
                    name,
                    port := free_port(),
                    lm.url,
                    advertise=taps.tap(f"player:{name}", port).url,
                )
                for name in PLAYERS
            ]
            for agent in agents:
                launcher.wait_healthy(agent)

            def registered() -> bool:
                status = client.get(f"{lm.base_url}/status").json()
                return len(status["referees"]) == 1 and len(status["players"]) == len(PLAYERS)

            wait_for(registered, 30, "the referee and the players to register")
            admin_token = shared.admin_token_path(league_id).read_text().strip()
            started = client.post(
                f"{lm.base_url}/start_league", headers={"Authorization": f"Bearer {admin_token}"}
            )
            assert started.status_code == 200, started.text

            def completed() -> dict[str, Any] | None:
                status: dict[str, Any] = client.get(f"{lm.base_url}/status").json()
                return status if status["state"] == "COMPLETED" else None

            status = wait_for(completed, 60, "the league to complete")
            results = client.get(
                f"{lm.base_url}/admin/export/results.json",
                headers={"Authorization": f"Bearer {admin_token}"},
            ).json()["results"]
            _pages(client, taps, admin_token, results)
        finally:
            launcher.stop_all()
        exchanges = taps.exchanges()
        tokens: dict[str, str] = {}
        for exchange in exchanges:
            answer = exchange.result()
            if (
                exchange.rpc().get("method") in LOSES_ITS_ANSWER
                and answer.get("status") == "ACCEPTED"
            ):
                tokens[answer.get("referee_id") or answer["player_id"]] = answer["auth_token"]
        yield WireLeague(
            exchanges,
            [e for tap in taps.taps for e in tap.errors],
            tokens,
            shared.referee_secret(league_id) or "",
            admin_token,
            status,
            results,
        )


def test_the_taps_heard_the_whole_league(league: WireLeague) -> None:
    assert league.tap_errors == []
    assert len(league.tokens) == 1 + len(PLAYERS)
    assert league.status["matches_completed"] == league.status["total_matches"] > 0
    to_players = [
        e for e in league.exchanges if e.agent.startswith("player:") and e.method == "POST"
    ]
    assert {e.rpc().get("method") for e in to_players} >= {
        "handle_game_invitation",
        "choose_parity",
        "notify_match_result",
    }


def test_a_token_is_answered_only_by_the_registration_that_issues_it(league: WireLeague) -> None:
    for agent_id, token in league.tokens.items():
        answers = [e for e in league.exchanges if token.encode() in e.received()]
        assert answers and all(
            e.agent == "league_manager"
            and e.rpc()["method"].startswith("register_")
            and agent_id in (e.result().get("referee_id"), e.result().get("player_id"))
            for e in answers
        ), f"{agent_id}'s token in {[e.target for e in answers]}"


def test_no_token_travels_to_a_player_or_a_referee(league: WireLeague) -> None:
    secrets = [*league.tokens.values(), league.referee_secret, league.admin_token]
    to_agents = [e for e in league.exchanges if e.agent != "league_manager"]
    assert to_agents
    for exchange in to_agents:
        assert not [s for s in secrets if s.encode() in exchange.sent()], exchange.target


def test_a_token_goes_to_the_league_manager_only_from_its_owner(league: WireLeague) -> None:
    seen = 0
    for agent_id, token in league.tokens.items():
        for exchange in league.exchanges:
            if token.encode() in exchange.sent():
                seen += 1
                assert exchange.agent == "league_manager"
                carrying = [call for call in exchange.rpcs() if token in json.dumps(call)]
                assert carrying, exchange.target  # each call of a batch with its own token
                assert all(agent_id in call["params"]["sender"] for call in carrying)
    assert seen, "the referee reports its results with its own token"


def test_the_referee_secret_and_the_admin_token_are_never_answered(league: WireLeague) -> None:
    for secret in (league.referee_secret, league.admin_token):
        assert secret
        assert not [e.target for e in league.exchanges if secret.encode() in e.received()]
    with_secret = [e for e in league.exchanges if league.referee_secret.encode() in e.sent()]
    assert with_secret and {e.rpc().get("method") for e in with_secret} == {"register_referee"}


def test_players_are_called_with_proofs_not_tokens(league: WireLeague) -> None:
    calls = [
        call["params"]
        for e in league.exchanges
        if e.agent.startswith("player:")
        for call in e.rpcs()  # a round's news come in a batch
        if call.get("params")
    ]
    assert calls and all(params.get("auth_token") for params in calls)
    assert not {params["auth_token"] for params in calls} & set(league.tokens.values())


@pytest.mark.parametrize("method", sorted(LOSES_ITS_ANSWER))
def test_a_lost_registration_answer_costs_one_retry(league: WireLeague, method: str) -> None:
    name = LOSES_ITS_ANSWER[method]
    tries = [e for e in league.calls(method) if _meta_name(e) == name]
    assert [e.dropped for e in tries] == [True, False]
    lost, retried = (e.result() for e in tries)
    id_key = "referee_id" if method == "register_referee" else "player_id"
    assert lost["status"] == retried["status"] == "ACCEPTED"
    assert (lost[id_key], lost["auth_token"]) == (retried[id_key], retried["auth_token"])
    kind = "referees" if method == "register_referee" else "players"
    assert [agent["display_name"] for agent in league.status[kind]].count(name) == 1
    played = [r for r in league.results if lost[id_key] in (r["referee_id"], *r["player_ids"])]
    assert played and not [r for r in played if r["forfeit"]]
    if method == "register_referee":
        assert len(played) == league.status["total_matches"]
    else:
        assert len(played) == len(PLAYERS) - 1

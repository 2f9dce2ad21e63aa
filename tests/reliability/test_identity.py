"""One agent in any spelling, over HTTP to a real League Manager: an endpoint written as
``localhost`` or ``127.0.0.1``, with a trailing slash, an upper-case host, a query or a
fragment, and a display name with a zero-width character, full-width letters or another
case are the same agent when the registration is repeated (the same conversation, or the
token shown: doc/protocol.md, "Registering again"), and taken when someone else claims them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess
from tests.conftest import free_port
from tests.interop.harness import LEAGUE, Agents, rpc

pytestmark = pytest.mark.e2e

FIRST = "http://localhost:{port}/mcp"
"""Ann's endpoint as she first registers it, on a port nobody listens on (registration
never calls the endpoint)."""
SAME_ENDPOINT = [
    "http://127.0.0.1:{port}/mcp/",
    "http://LOCALHOST:{port}/mcp",
    "http://localhost:{port}/mcp?x",
    "HTTP://[::1]:{port}/mcp/#top",
]
SAME_NAME = ["ann", "ANN", "A\u200bnn", "Ａｎｎ", " Ann\ufeff"]
CONVERSATION = "ann-registration"


def register_player(
    url: str,
    name: str,
    endpoint: str,
    conversation_id: str = CONVERSATION,
    auth_token: str | None = None,
) -> dict[str, Any]:
    params = {
        "protocol": "league.v2",
        "message_type": "LEAGUE_REGISTER_REQUEST",
        "sender": "player:unregistered",
        "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "conversation_id": conversation_id,
        "auth_token": auth_token,
        "player_meta": {
            "display_name": name,
            "version": "1.0.0",
            "game_types": ["even_odd"],
            "contact_endpoint": endpoint,
        },
    }
    answer: dict[str, Any] = rpc(url, "register_player", params)["result"]
    return answer


@pytest.fixture(scope="module")
def manager(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Agents, AgentProcess]]:
    agents = Agents(tmp_path_factory.mktemp("identity"))
    try:
        yield agents, agents.our_manager()
    finally:
        agents.stop_all()


@pytest.fixture(scope="module")
def ann(manager: tuple[Agents, AgentProcess]) -> dict[str, Any]:
    """Ann's first registration, at ``FIRST``, and her port."""
    port = free_port()
    answer = register_player(manager[1].mcp_url, "Ann", FIRST.format(port=port))
    assert answer["status"] == "ACCEPTED", answer
    return {**answer, "port": port}


def players(manager: tuple[Agents, AgentProcess]) -> list[dict[str, Any]]:
    status: dict[str, Any] = httpx.get(f"{manager[1].base_url}/status", timeout=10).json()
    return list(status["players"])


@pytest.mark.parametrize("spelling", SAME_ENDPOINT)
def test_a_retry_at_the_same_endpoint_in_another_spelling_is_the_same_agent(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any], spelling: str
) -> None:
    again = register_player(manager[1].mcp_url, "Ann", spelling.format(port=ann["port"]))
    assert again["status"] == "ACCEPTED", again
    assert (again["player_id"], again["auth_token"]) == (ann["player_id"], ann["auth_token"])
    assert [p["agent_id"] for p in players(manager)] == [ann["player_id"]]


@pytest.mark.parametrize("name", SAME_NAME)
def test_a_retry_under_the_same_name_in_another_spelling_is_the_same_agent(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any], name: str
) -> None:
    again = register_player(manager[1].mcp_url, name, f"http://127.0.0.1:{ann['port']}/mcp")
    assert again["status"] == "ACCEPTED", again
    assert (again["player_id"], again["auth_token"]) == (ann["player_id"], ann["auth_token"])
    assert [p["display_name"] for p in players(manager)] == ["Ann"], "the first name is kept"


def test_the_token_shown_in_another_conversation_is_the_same_agent(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any]
) -> None:
    restarted = register_player(
        manager[1].mcp_url,
        "ANN",
        f"http://LocalHost:{ann['port']}/mcp/?restarted",
        "after-a-restart",
        ann["auth_token"],
    )
    assert (restarted["status"], restarted["player_id"]) == ("ACCEPTED", ann["player_id"])


@pytest.mark.parametrize("spelling", SAME_ENDPOINT)
def test_someone_else_at_the_endpoint_in_any_spelling_is_refused(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any], spelling: str
) -> None:
    url, ann_id = manager[1].mcp_url, ann["player_id"]
    endpoint = spelling.format(port=ann["port"])
    thief = register_player(url, "Ann", endpoint, "the-thiefs-conversation")
    assert thief["status"] == "REJECTED" and thief.get("auth_token") is None, thief
    assert thief["reason"] == (
        f"{endpoint} is already registered as {ann_id}; a retry of a registration whose "
        "answer was lost must repeat its conversation_id, or send the auth_token it was given"
    )
    bob = register_player(url, "Bob", endpoint)
    assert (bob["status"], bob["reason"]) == (
        "REJECTED",
        f"{endpoint} is already registered as {ann_id}",
    )
    assert bob.get("auth_token") is None
    agents = manager[0]
    secret = agents.shared.referee_secret(LEAGUE)
    referee = rpc(
        url,
        "register_referee",
        {
            "protocol": "league.v2",
            "message_type": "REFEREE_REGISTER_REQUEST",
            "sender": "referee:unregistered",
            "timestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "conversation_id": CONVERSATION,
            "auth_token": secret,
            "referee_meta": {
                "display_name": "Ann",
                "version": "1.0.0",
                "game_types": ["even_odd"],
                "contact_endpoint": endpoint,
                "max_concurrent_matches": 1,
            },
        },
    )["result"]
    assert (referee["status"], referee["reason"]) == (
        "REJECTED",
        f"{endpoint} is already registered as {ann_id}",
    ), "one endpoint is one agent, of either kind"


@pytest.mark.parametrize("name", SAME_NAME)
def test_the_name_in_any_spelling_is_taken_at_another_endpoint(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any], name: str
) -> None:
    namesake = register_player(
        manager[1].mcp_url, name, f"http://127.0.0.1:{free_port()}/mcp", f"namesake-{name}"
    )
    assert namesake["status"] == "REJECTED" and namesake.get("auth_token") is None, namesake
    assert namesake["reason"] == (
        f"the display name {name!r} is taken by {ann['player_id']}; register under another"
    )


def test_a_name_is_kept_cleaned_and_ann_is_registered_once(
    manager: tuple[Agents, AgentProcess], ann: dict[str, Any]
) -> None:
    ben = register_player(
        manager[1].mcp_url, "Ｂｅｎ\u200b", f"http://127.0.0.1:{free_port()}/mcp", "ben"
    )
    assert ben["status"] == "ACCEPTED", ben
    assert sorted((p["agent_id"], p["display_name"]) for p in players(manager)) == [
        (ann["player_id"], "Ann"),
        (ben["player_id"], "Ben"),
    ]

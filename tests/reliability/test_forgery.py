"""Forged messages to a real player registered with a real League Manager: an invitation, a
move call and a GAME_OVER with no auth_token, with a wrong one or with the player's own token
(a token is no proof) are refused with E011/E012 and a sentence, and leave its history, its
statistics and its status as they were; a GAME_OVER with a good proof for a match that
referee never invited it to is refused with E014 and recorded nowhere either.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess
from league_cli.up import wait_for
from league_manager.registry_files import RegistryFiles
from players.history import journal_path
from sdk.auth import match_proof
from sdk.examples import example
from tests.interop.harness import LEAGUE, Agents, rpc

pytestmark = pytest.mark.e2e

WRONG_PROOF = "0123456789abcdef" * 4
OWN_TOKEN = "the player's own token"
"""Stands for the player's token in the parameters (known only once the player registered)."""


@dataclass
class Target:
    """The running player, the id the League Manager gave it and its token (read from the
    League Manager's secrets, as only the test may: it makes the good proofs)."""

    process: AgentProcess
    player_id: str
    token: str
    history_file: Path
    """Its history's journal: the first match recorded creates it."""

    def get(self, path: str) -> Any:
        return httpx.get(f"{self.process.base_url}{path}", timeout=10).json()

    def snapshot(self) -> dict[str, Any]:
        """What a forged message must not change: the history, the statistics, the status."""
        return {path: self.get(path) for path in ("/history", "/stats", "/status")}

    def call(self, method: str, message: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = rpc(self.process.mcp_url, method, message)["result"]
        return answer


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    agents = Agents(tmp_path_factory.mktemp("forgery"))
    try:
        manager = agents.our_manager()
        player = agents.our_player(manager.mcp_url, "Ann")
        agents.ours.wait_healthy(player)

        def registered() -> str | None:
            status = httpx.get(f"{player.base_url}/status", timeout=5).json()
            verified = status["state"] == "REGISTERED" and status["callers"]["verified"]
            return status["player_id"] if verified else None

        player_id = wait_for(registered, 30, "Ann to register and verify her callers")
        tokens = RegistryFiles(agents.shared.league_dir(LEAGUE)).read().tokens
        yield Target(
            player,
            player_id,
            tokens[player_id],
            journal_path(agents.shared.player_history_path(player_id)),
        )
    finally:
        agents.stop_all()


def now(seconds: float = 0) -> str:
    moment = datetime.now(timezone.utc) + timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def forged(target: Target, match_id: str = "R1M1", referee: str = "REF01") -> dict[str, Any]:
    """Each message a referee sends a player in a match, by method, as the protocol shapes
    it and addressed to ``target`` (without any auth_token yet)."""
    me = target.player_id
    common = {
        "sender": f"referee:{referee}",
        "timestamp": now(),
        "conversation_id": f"forged-{match_id}",
        "league_id": LEAGUE,
        "match_id": match_id,
    }
    result = {
        "status": "WIN",
        "winner_player_id": me,
        "drawn_number": 8,
        "number_parity": "even",
        "choices": {me: "even", "P99": "odd"},
        "reason": f"{me} chose even, the number was 8",
    }
    return {
        "handle_game_invitation": example("GAME_INVITATION", **common, opponent_id="P99"),
        "choose_parity": example("CHOOSE_PARITY_CALL", **common, player_id=me, deadline=now(30)),
        "make_move": example("GAME_MOVE_CALL", **common, player_id=me, deadline=now(30)),
        "notify_match_result": example("GAME_OVER", **common, round_id=1, game_result=result),
    }


@pytest.mark.parametrize(
    ("shown", "code"),
    [(None, "E011"), ("", "E011"), (WRONG_PROOF, "E012"), (OWN_TOKEN, "E012")],
    ids=["none", "empty", "wrong", "own-token"],
)
def test_forged_match_messages_are_refused_and_change_nothing(
    target: Target, shown: str | None, code: str
) -> None:
    if shown == OWN_TOKEN:
        shown = target.token
    before = target.snapshot()
    for method, message in forged(target).items():
        answer = target.call(method, {**message, "auth_token": shown})
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", code), (
            method,
            answer,
        )
        description = answer["error_description"]
        assert description.strip() and "\n" not in description, (method, description)
        expected = "carries no auth_token" if code == "E011" else "is not referee:REF01's proof"
        assert expected in description, (method, description)
        assert target.token not in json.dumps(answer), "the refusal never shows the token"
    assert target.snapshot() == before
    assert not target.history_file.exists(), "nothing was written to the player's history"


def test_a_game_over_from_a_referee_that_did_not_invite_is_refused(target: Target) -> None:
    """Good proofs, wrong referee: the League Manager would make these for REF01 and REF02,
    but REF01 never invited the player to R9M9, and REF02 did not invite it to R1M2."""
    history = target.get("/history")

    def proved(message: dict[str, Any], match_id: str, referee: str) -> dict[str, Any]:
        proof = match_proof(target.token, LEAGUE, match_id, referee)
        return {**message, "auth_token": proof}

    never_invited = target.call(
        "notify_match_result",
        proved(forged(target, "R9M9")["notify_match_result"], "R9M9", "REF01"),
    )
    assert never_invited["error_code"] == "E014", never_invited
    assert never_invited["error_description"] == (
        "REF01 did not invite this player to match R9M9; its GAME_OVER is not recorded"
    )
    invited = target.call(
        "handle_game_invitation",
        proved(forged(target, "R1M2")["handle_game_invitation"], "R1M2", "REF01"),
    )
    assert invited["accept"] is True, invited
    from_another = target.call(
        "notify_match_result",
        proved(forged(target, "R1M2", "REF02")["notify_match_result"], "R1M2", "REF02"),
    )
    assert from_another["error_code"] == "E014", from_another
    assert from_another["error_description"] == (
        "REF02 did not invite this player to match R1M2 (REF01 did); its GAME_OVER is not recorded"
    )
    assert target.get("/history") == history and history["matches"] == []
    assert target.get("/stats")["played"] == 0
    assert not target.history_file.exists()

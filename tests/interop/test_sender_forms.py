"""Our referee under a foreign League Manager (``foreign_league_manager.py``) that signs
``league_manager:LM01`` where this league's ``league_manager_sender`` is ``league_manager``
(system.json's default): a lenient league takes the other form and plays the match; a strict
one refuses the League Manager's START_MATCH with E002, naming ``sender``, what came and the
form this league expects."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from league_cli.up import wait_for
from tests.interop.harness import LEAGUE, Agents

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_our_referee_takes_or_refuses_the_other_sender_form(agents: Agents, mode: str) -> None:
    config = agents.shared.root / "config" / "leagues" / f"{LEAGUE}.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "protocol_mode": mode}))
    manager = agents.foreign_league_manager("--sender", "league_manager:LM01")
    agents.our_referee(manager.mcp_url)
    for name in ("Foreign1", "Foreign2"):
        assert agents.wait_registered(agents.foreign_player(manager.mcp_url, name)) == "ACCEPTED"

    def state() -> dict[str, Any]:
        snapshot: dict[str, Any] = httpx.get(f"{manager.base_url}/state", timeout=5).json()
        return snapshot

    wait_for(lambda: len(state()["referees"]) == 1, 15, "our referee to register")
    assert httpx.post(f"{manager.base_url}/start", timeout=5).status_code == 200

    def start_match() -> dict[str, Any] | None:
        calls = [call for call in state()["calls"] if call["method"] == "start_match"]
        return calls[0] if calls else None

    call = wait_for(start_match, 15, "the foreign League Manager to hand our referee the match")
    assert call["params"]["sender"] == "league_manager:LM01"
    answer = call["response"]["result"]
    if mode == "strict":
        assert (answer["message_type"], answer["error_code"]) == ("LEAGUE_ERROR", "E002"), answer
        description = answer["error_description"]
        assert description.startswith("strict league: sender 'league_manager:LM01'"), description
        assert "signs 'league_manager' in this league" in description, description
        assert [d["field"] for d in answer["context"]["deviations"]] == ["sender"], answer
        return
    assert (answer["message_type"], answer["accepted"]) == ("START_MATCH_ACK", True), answer
    wait_for(lambda: state()["state"] == "COMPLETED", 30, "the foreign league to complete")
    final = state()
    assert final["problems"] == [] and final["refused_reports"] == [], final
    assert [report["match_id"] for report in final["reports"]] == ["R1M1"]

"""The registry's journal: a registration is one line appended before its answer, the
snapshots (agents.json, secrets.json) are written now and then, and start-up replays the
journal's lines after them, each once; a torn last line was never acknowledged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from league_manager.agents import SNAPSHOT_MIN_CHANGES, AgentRegistry
from league_manager.registry_files import JournalMark
from sdk.store import StoreError, backup_path, read_json
from tests.league_manager.conftest import World, meta

LEAGUE = "league_test"


def view(registry: AgentRegistry) -> dict[str, Any]:
    """Everything the registry holds: agents in order with their states, tokens, keys."""
    agents = registry.of_kind("referee") + registry.of_kind("player")
    return {
        "agents": [agent.model_dump() for agent in agents],
        "tokens": {agent.agent_id: registry.token_of(agent.agent_id) for agent in agents},
        "keys": {
            agent.agent_id: registry.same_registration(agent.agent_id, f"key-{agent.agent_id}")
            for agent in agents
        },
    }


def populated(folder: Path, players: int = 5) -> AgentRegistry:
    """A referee and ``players`` players, two of them ACTIVE then one SUSPENDED."""
    registry = AgentRegistry(folder, LEAGUE)
    registry.add("referee", meta(0, "referee"), "key-REF01")
    for n in range(1, players + 1):
        registry.add("player", meta(n), f"key-P{n:02d}")
    registry.journal_states(registry.set_states(["P01", "P02"], "ACTIVE"), "ACTIVE")
    registry.journal_states(registry.set_states(["P02"], "SUSPENDED"), "SUSPENDED")
    return registry


def journal_lines(folder: Path) -> list[dict[str, Any]]:
    text = (folder / "registry.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_a_registration_is_one_journal_line_and_no_snapshot(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path, LEAGUE)
    before = {name: (tmp_path / name).read_bytes() for name in ("agents.json", "secrets.json")}
    agent, token = registry.add("player", meta(1), "key-P01")
    assert journal_lines(tmp_path) == [
        {
            "op": "register",
            "seq": 1,
            "agent": agent.model_dump(),
            "token": token,
            "key": journal_lines(tmp_path)[0]["key"],
        }
    ]
    assert "key-P01" not in (tmp_path / "registry.jsonl").read_text(), "a digest, not the key"
    after = {name: (tmp_path / name).read_bytes() for name in ("agents.json", "secrets.json")}
    assert after == before, "no snapshot rewritten by a registration"
    assert (tmp_path / "registry.jsonl").stat().st_mode & 0o777 == 0o600
    registry.close()


def test_a_restart_replays_the_journal_into_the_same_registry(tmp_path: Path) -> None:
    registry = populated(tmp_path)
    expected = view(registry)
    assert expected["agents"][2]["state"] == "SUSPENDED" and all(expected["keys"].values())
    registry.close()
    replayed = AgentRegistry(tmp_path, LEAGUE)
    assert view(replayed) == expected and replayed.recovery_notes == []
    replayed.save()  # snapshots of it all; the journal rolls over, empty
    replayed.close()
    assert (tmp_path / "registry.jsonl").read_bytes() == b""
    assert read_json(tmp_path / "agents.json")["seq"] == 8
    token = expected["tokens"]["P01"]
    assert token not in (tmp_path / "agents.json").read_text(), "no token in agents.json"
    assert (tmp_path / "secrets.json").stat().st_mode & 0o777 == 0o600
    assert view(AgentRegistry(tmp_path, LEAGUE)) == expected


def test_a_change_a_snapshot_holds_is_not_taken_again(tmp_path: Path) -> None:
    """A crash after the snapshots were written but before the journal rolled over: its
    lines are all in them; replaying P02's registration again would make it REGISTERED."""
    registry = populated(tmp_path)
    expected = view(registry)
    registry.save()
    registry.close()
    journal = tmp_path / "registry.jsonl"
    journal.write_bytes(backup_path(journal).read_bytes())
    backup_path(journal).unlink()
    assert view(AgentRegistry(tmp_path, LEAGUE)) == expected


def test_a_torn_last_line_is_dropped_and_its_id_given_again(tmp_path: Path) -> None:
    registry = populated(tmp_path, players=2)
    registry.close()
    journal = tmp_path / "registry.jsonl"
    whole = journal.read_bytes()
    torn = json.dumps({"op": "register", "seq": 6, "agent": {"agent_id": "P03"}})[:40]
    journal.write_bytes(whole + torn.encode())
    restarted = AgentRegistry(tmp_path, LEAGUE)
    assert [a.agent_id for a in restarted.of_kind("player")] == ["P01", "P02"]
    assert journal.read_bytes() == whole, "the torn line is cut off"
    agent, _ = restarted.add("player", meta(3), "key-P03")
    assert agent.agent_id == "P03"
    assert journal_lines(tmp_path)[-1]["seq"] == 6


def test_a_damaged_line_a_snapshot_lacks_refuses_to_start(tmp_path: Path) -> None:
    populated(tmp_path, players=3).close()
    journal = tmp_path / "registry.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    lines[2] = lines[2][:30] + "\n"  # P02's registration, complete but damaged
    journal.write_text("".join(lines))
    with pytest.raises(StoreError, match=r"cannot start: .*registry.jsonl line 3 "):
        AgentRegistry(tmp_path, LEAGUE)
    del lines[2]  # gone altogether: the numbers tell
    journal.write_text("".join(lines))
    with pytest.raises(StoreError, match=r"registry.jsonl lacks change 3 \(it goes on at 4\)"):
        AgentRegistry(tmp_path, LEAGUE)


def test_a_damaged_line_a_snapshot_holds_is_harmless(tmp_path: Path) -> None:
    registry = populated(tmp_path, players=3)
    expected = view(registry)
    registry.save()
    registry.close()
    kept = backup_path(tmp_path / "registry.jsonl")
    lines = kept.read_text().splitlines(keepends=True)
    lines[1] = "garbage\n"
    kept.write_text("".join(lines))
    assert view(AgentRegistry(tmp_path, LEAGUE)) == expected


def test_snapshots_fall_due_after_as_many_changes_as_agents(tmp_path: Path) -> None:
    registry = AgentRegistry(tmp_path, LEAGUE)
    registry.save()  # as at start-up: the timed rule waits a second from here
    for n in range(1, SNAPSHOT_MIN_CHANGES):
        registry.add("player", meta(n), f"key-{n}")
    assert not registry.snapshot_due() and registry.snapshot_due(at_once=True)
    registry.add("player", meta(SNAPSHOT_MIN_CHANGES), "key-last")
    assert registry.snapshot_due()
    registry.save()
    assert not registry.snapshot_due(at_once=True)
    assert len(read_json(tmp_path / "agents.json")["agents"]) == SNAPSHOT_MIN_CHANGES
    registry.close()


async def test_a_registration_is_on_disk_before_its_answer(world: World) -> None:
    league_dir = world.manager.shared.league_dir("league_2025_even_odd")
    answer = await world.register_player(1)
    assert answer["status"] == "ACCEPTED"
    lines = journal_lines(league_dir)
    assert [(line["agent"]["agent_id"], line["token"]) for line in lines] == [
        (answer["player_id"], answer["auth_token"])
    ]
    assert answer["auth_token"] not in (league_dir / "agents.json").read_text()


@pytest.mark.parametrize("how", ["deleted", "replaced"])
def test_a_journal_lost_under_the_registry_is_started_afresh_by_the_next_snapshot(
    tmp_path: Path, how: str
) -> None:
    """registry.jsonl deleted (or another file put in its place) after a snapshot: what is
    registered next goes to the lost file, so the next snapshot holds it from memory and a
    fresh journal follows (a roll would fail on a deleted file, or keep a stranger's)."""
    registry = populated(tmp_path, players=2)
    registry.save()
    journal = tmp_path / "registry.jsonl"
    mark = JournalMark(tmp_path)
    journal.unlink()
    if how == "replaced":
        journal.write_text("not the registry's\n")
    registry.add("player", meta(3), "key-P03")
    assert mark.moved()
    registry.save()
    mark.mark()
    registry.add("player", meta(4), "key-P04")  # appended to the fresh journal
    expected = view(registry)
    registry.close()
    assert not mark.moved()
    assert [line["agent"]["agent_id"] for line in journal_lines(tmp_path)] == ["P04"]
    assert view(AgentRegistry(tmp_path, LEAGUE)) == expected

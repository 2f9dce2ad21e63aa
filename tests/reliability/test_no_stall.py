"""Never silently stuck, with real processes on loopback: the League Manager's disk fills
up, its PostgreSQL store stops, its registry files are deleted, a flood of connections or
of requests holds it. Each
time ``/health`` says degraded with the reason within seconds, ``/status`` names the alarm
(and, for a round that makes no progress, the matches and referees waited for), and once
the cause is gone the league completes by itself with nothing lost nor counted twice: the
journal (or the database's rows), the standings and the referees' match files agree."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from league_cli.up import wait_for
from league_manager.registry_files import RegistryFiles
from league_manager.upkeep import FLOOD
from sdk.config import SharedDir
from sdk.messages import LeagueQuery, LeagueRegisterRequest, PlayerMeta
from tests.conftest import TinyDisk, free_port
from tests.postgres import PostgresServer, accepted_rows
from tests.reliability.crash_league import LEAGUE, CrashLeague, check_league, running_league
from tests.reliability.deliberate import GATE_ENV
from tests.reliability.floods import ConnectionFlood, RequestFlood, http_request

DELIBERATE = ("tests.reliability.deliberate:Deliberate",)
GATED = ("tests.reliability.deliberate:Gated",)

pytestmark = pytest.mark.e2e

STALL_AFTER_SEC = 2.0
FLOOD_CONNECTIONS = 3000
FLOOD_SEC = 8.0
REQUEST_FLOOD_WORKERS = 200
REQUEST_FLOOD_COUNT = 20_000
_SOON = 15.0
"""Seconds within which the League Manager must tell (a watchdog look is 1 s)."""


def health(league: CrashLeague) -> tuple[int, dict[str, Any]]:
    response = league.client.get(f"{league.lm_url}/health")
    return response.status_code, response.json()


def degraded_for(league: CrashLeague, words: str) -> dict[str, Any] | None:
    """/health's body once it is 503 with a reason holding ``words``."""
    code, body = health(league)
    found = (
        code == 503
        and body["status"] == "degraded"
        and any(words in reason for reason in body["reasons"])
    )
    return body if found else None


def alarm(league: CrashLeague, listed: str, key: str) -> dict[str, Any]:
    """The alarm ``key`` once ``/status`` lists it as ``listed`` (raised or cleared)."""
    return wait_for(
        lambda: next((a for a in league.status()["alarms"][listed] if a["key"] == key), None),
        _SOON,
        f"/status to list the {key} alarm as {listed}",
    )


def journal_lines(league: CrashLeague) -> list[str]:
    return (league.league_dir / "journal.jsonl").read_text(encoding="utf-8").splitlines()


def refused_matches(shared: SharedDir) -> set[str]:
    """Matches whose referee's report the League Manager refused with E022."""
    folder = shared.data_dir / "matches" / LEAGUE
    return {
        match["match_id"]
        for path in folder.glob("*.json")
        if "E022" in ((match := json.loads(path.read_text())).get("report_detail") or "")
    }


@contextmanager
def first_round_waiting(
    root: Path, store_url: str | None = None
) -> Iterator[tuple[CrashLeague, int]]:
    """A started league of 4 gated players (``GATE_ENV`` names the gate) whose first
    round's matches all run, waiting for their moves; and its number of matches."""
    with running_league(
        root,
        players=4,
        match_timeout_sec=20,
        strategies=GATED,
        league={"stall_after_sec": STALL_AFTER_SEC},
        store_url=store_url,
    ) as league:
        total = league.start()
        first_round = total // 3  # 4 players: 3 rounds of 2 matches
        wait_for(
            lambda: sum(r["running_matches"] for r in league.status()["referees"]) == first_round,
            _SOON,
            "the first round's matches to run",
        )
        yield league, total


def refused_and_told(
    league: CrashLeague, gate: Path, words: str
) -> tuple[set[str], dict[str, Any]]:
    """Open the gate; the matches whose reports were refused with E022, and /health's body
    once it is degraded for a reason holding ``words``."""
    gate.touch()
    refused = wait_for(
        lambda: refused_matches(league.shared) or None, _SOON, "a report refused with E022"
    )
    body = wait_for(lambda: degraded_for(league, words), _SOON, f"/health to say {words!r}")
    return refused, body


def test_a_full_disk_is_told_refused_and_recovered_from_with_nothing_lost(
    tmp_path: Path, tiny_disk: TinyDisk, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills while the first round's matches wait for their moves (gated players),
    so the journal is empty: its first line needs a page that the disk does not have (tmpfs
    gives whole pages, so a line that fits in a journal's last page would still be written
    on a full disk; an empty journal has none)."""
    gate = tmp_path / "gate"
    monkeypatch.setenv(GATE_ENV, str(gate))
    shared = SharedDir(tmp_path / "SHARED")
    shared.league_dir(LEAGUE).parent.mkdir(parents=True)
    shared.league_dir(LEAGUE).symlink_to(tiny_disk.root)  # the League Manager's files only
    with first_round_waiting(tmp_path) as (league, total):
        tiny_disk.fill()
        refused, body = refused_and_told(league, gate, "No space left on device")
        stalled = wait_for(
            lambda: next(
                (a for a in league.status()["alarms"]["raised"] if a["key"] == "stall"), None
            ),
            STALL_AFTER_SEC + _SOON,
            "/status to name the stalled round",
        )
        assert journal_lines(league) == [], "the journal took a line while the disk was full"
        tiny_disk.free()
        wait_for(lambda: health(league)[0] == 200 or None, _SOON, "/health to be ok again")
        final = league.wait_completed(60)
        check = check_league(league.shared, final)
        journal = [json.loads(line)["match_id"] for line in journal_lines(league)]
        events = [
            json.loads(line)["event"]
            for line in league.shared.league_log_path(LEAGUE).read_text().splitlines()
        ]
    assert any("journal.jsonl" in reason for reason in body["reasons"]), body
    assert "referee REF0" in stalled["reason"] and "waiting for R1M" in stalled["reason"], stalled
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == total
    assert refused <= set(journal), "a refused result was lost"
    assert "alarm_raised" in events and "alarm_cleared" in events


def test_a_database_lost_mid_league_is_told_refused_and_recovered_from_with_nothing_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, postgres: PostgresServer, database_url: str
) -> None:
    """The PostgreSQL store stops while the first round's matches wait for their moves:
    their reports are refused (E022, not acknowledged), /health says why (the results not
    kept, or the database that cannot be asked who leads, whichever the League Manager met
    first: one that lost the lead writes no result), and once the
    server is back the League Manager commits again by itself (no restart) and the league
    completes, each match counted once in the database."""
    gate = tmp_path / "gate"
    monkeypatch.setenv(GATE_ENV, str(gate))
    with first_round_waiting(tmp_path, database_url) as (league, total):
        postgres.stop()
        try:
            refused, body = refused_and_told(league, gate, "cannot reach PostgreSQL")
            raised = [a["key"] for a in league.status()["alarms"]["raised"]]
        finally:
            postgres.resume()
        wait_for(lambda: health(league)[0] == 200 or None, _SOON, "/health to be ok again")
        final = league.wait_completed(60)
        check = check_league(league.shared, final, database_url)
    assert postgres.password not in json.dumps(body), body
    assert "reach:PostgreSQL" in raised or "write:results (PostgreSQL)" in raised, raised
    assert "journal.jsonl" not in str(body), body
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == total
    assert refused <= {row["match_id"] for row in accepted_rows(database_url, LEAGUE)}


def registry(league: CrashLeague) -> list[str]:
    """The ids of the agents the registry's files hold (snapshots and journal)."""
    return list(RegistryFiles(league.league_dir).read().agents)


def test_registry_files_deleted_mid_league_are_written_again_and_never_an_empty_league(
    tmp_path: Path,
) -> None:
    with running_league(
        tmp_path, players=8, strategies=DELIBERATE, league={"stall_after_sec": STALL_AFTER_SEC}
    ) as league:
        league.start()
        registered = registry(league)
        wait_for(lambda: league.status()["matches_completed"] >= 1, 30, "a result")
        for name in ("agents.json", "secrets.json"):
            (league.league_dir / name).unlink()
            (league.league_dir / f"{name}.bak").unlink(missing_ok=True)
        both = {"registry:agents.json", "registry:secrets.json"}

        def registry_cleared() -> list[dict[str, Any]] | None:
            # each file's alarm clears in the watchdog pass that finds it gone, and the two
            # passes may differ (one may run between the two deletions)
            cleared = [
                a for a in league.status()["alarms"]["cleared"] if a["key"].startswith("registry:")
            ]
            return cleared if both <= {a["key"] for a in cleared} else None

        told = wait_for(
            registry_cleared, _SOON, "/status to tell that the registry was written again"
        )
        assert registry(league) == registered
        assert (league.league_dir / "secrets.json").is_file()

        # One that cannot be written again (a directory where the file should be) stays
        # degraded, with the reason, until it can.
        (league.league_dir / "agents.json").unlink()
        (league.league_dir / "agents.json").mkdir()
        body = wait_for(
            lambda: degraded_for(league, "agents.json"), _SOON, "/health to say agents.json is gone"
        )
        stalled = wait_for(
            lambda: next(
                (a for a in league.status()["alarms"]["raised"] if a["key"] == "stall"), None
            ),
            STALL_AFTER_SEC + 2 * _SOON,
            "/status to name the stalled round",
        )
        (league.league_dir / "agents.json").rmdir()
        wait_for(lambda: health(league)[0] == 200 or None, _SOON, "/health to be ok again")
        final = league.wait_completed(60)
        check = check_league(league.shared, final)

        # A League Manager started on the league's data without its registry refuses to.
        league.stop_manager()
        for name in ("agents.json", "secrets.json"):
            (league.league_dir / name).unlink()
            (league.league_dir / f"{name}.bak").unlink(missing_ok=True)
        output = league.lm.output
        before = output.stat().st_size
        refused = league.start_manager(healthy=False)
        code = refused.popen.wait(30)
        said = output.read_bytes()[before:].decode(errors="replace").strip()
    assert both <= {a["key"] for a in told}
    assert any("agents.json" in reason for reason in body["reasons"]), body
    assert "waiting for R" in stalled["reason"] and "agents.json" in stalled["reason"], stalled
    assert check.double_counts == [] and check.mismatches == []
    assert code == 2, code
    assert len(said.splitlines()) == 1 and "agents.json" in said and "journal.jsonl" in said, said
    assert "Traceback" not in said


def test_the_results_journal_deleted_mid_league_is_written_again_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """journal.jsonl deleted while the League Manager appends to it: the watchdog writes it
    again from memory, the league completes, and a League Manager killed after reads every
    result back from it (before, the appends went on to the deleted file: lost at the next
    start)."""
    with running_league(tmp_path, players=6) as league:
        total = league.start()
        wait_for(lambda: league.status()["matches_completed"] >= 1, 30, "a result")
        (league.league_dir / "journal.jsonl").unlink()
        told = wait_for(
            lambda: next(
                (
                    a
                    for a in league.status()["alarms"]["cleared"]
                    if a["key"] == "lost:journal.jsonl"
                ),
                None,
            ),
            _SOON,
            "/status to tell that journal.jsonl was written again",
        )
        final = league.wait_completed(60)
        check = check_league(league.shared, final)
        league.restart_manager()
        again = league.status()
    assert "journal.jsonl was deleted" in told["reason"], told
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == total
    assert (again["state"], again["matches_completed"]) == ("COMPLETED", total)


def late_player(league: CrashLeague, name: str) -> tuple[str, str]:
    """Register a player by hand (its endpoint never called); its id and the token the
    League Manager acknowledged it with."""
    request = LeagueRegisterRequest(
        sender="player:unregistered",
        conversation_id=f"register-{name}",
        player_meta=PlayerMeta(
            display_name=name,
            version="1.0.0",
            game_types=["even_odd"],
            contact_endpoint=f"http://127.0.0.1:{free_port()}/mcp",
        ),
    ).to_wire()
    rpc = {"jsonrpc": "2.0", "method": "register_player", "params": request, "id": 1}
    answer = league.client.post(league.lm.mcp_url, json=rpc).json()["result"]
    assert answer["status"] == "ACCEPTED", answer
    return answer["player_id"], answer["auth_token"]


def authenticates(league: CrashLeague, agent_id: str, token: str) -> bool:
    """Whether the League Manager takes ``token`` as ``agent_id``'s (a league_query)."""
    kind = "player" if agent_id.startswith("P") else "referee"
    query = LeagueQuery(
        sender=f"{kind}:{agent_id}",
        conversation_id=f"query-{agent_id}",
        auth_token=token,
        league_id=LEAGUE,
        query_type="GET_STANDINGS",
    ).to_wire()
    rpc = {"jsonrpc": "2.0", "method": "league_query", "params": query, "id": 1}
    return "result" in league.client.post(league.lm.mcp_url, json=rpc).json()


def test_the_registry_journal_deleted_mid_league_is_written_again_and_no_agent_is_lost(
    tmp_path: Path,
) -> None:
    """registry.jsonl deleted while players register: the watchdog writes the registry
    again from memory with a fresh journal, and a League Manager killed right after a later
    registration still knows every agent and token (before, registrations went on to the
    deleted file, and the snapshots could not roll it over: lost at the next start)."""
    with running_league(tmp_path, players=2) as league:
        tokens = RegistryFiles(league.league_dir).read().tokens
        (league.league_dir / "registry.jsonl").unlink()
        during = late_player(league, "During")  # most likely before the watchdog looks
        told = wait_for(
            lambda: next(
                (
                    a
                    for a in league.status()["alarms"]["cleared"]
                    if a["key"] == "lost:registry.jsonl"
                ),
                None,
            ),
            _SOON,
            "/status to tell that registry.jsonl was written again",
        )
        after = late_player(league, "After")  # in the fresh journal, in no snapshot yet
        league.restart_manager()
        known = dict([during, after], **tokens)
        refused = [
            agent_id
            for agent_id, token in known.items()
            if not authenticates(league, agent_id, token)
        ]
    assert "registry.jsonl was deleted" in told["reason"], told
    assert len(known) == 2 + 2 + 2 and refused == [], refused


def test_a_flood_of_connections_is_told_and_the_league_completes_after_it(tmp_path: Path) -> None:
    cap = 64
    with running_league(
        tmp_path,
        players=8,
        strategies=DELIBERATE,
        system={"http": {"max_server_connections": cap, "request_timeout_sec": 3}},
    ) as league:
        total = league.start()
        with ConnectionFlood(league.lm.port, count=FLOOD_CONNECTIONS, seconds=FLOOD_SEC) as flood:
            body = wait_for(
                lambda: degraded_for(league, "flooded"),
                _SOON,
                "/health to say the League Manager is flooded",
            )
            raised = alarm(league, "raised", FLOOD)
            answered = league.client.get(f"{league.lm_url}/standings").status_code
            files = len(os.listdir(f"/proc/{league.lm.popen.pid}/fd"))
        final = league.wait_completed(60)
        wait_for(lambda: health(league)[0] == 200 or None, _SOON, "/health to be ok again")
        cleared = alarm(league, "cleared", FLOOD)
        still = [a["key"] for a in league.status()["alarms"]["raised"]]
        check = check_league(league.shared, final)
    assert flood.opened > cap * 4, flood.opened
    assert any(str(cap) in reason for reason in body["reasons"]), body
    assert "flooded with connections" in raised["reason"], raised
    assert cleared["cleared_at"], cleared
    assert FLOOD not in still, still
    assert answered == 200
    assert files < cap + 200, f"{files} files open in the League Manager under the flood"
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == total


def test_a_flood_of_requests_is_refused_told_and_the_league_completes_after_it(
    tmp_path: Path,
) -> None:
    """Many clients ask for the standings (GET /standings, and league_query with a player's
    token) as fast as they are answered while the league plays; past the bound of requests
    in progress the rest are answered 503 at once, never queued."""
    bound = 16
    with running_league(
        tmp_path,
        players=8,
        strategies=DELIBERATE,
        system={"http": {"max_requests_in_progress": bound}},
    ) as league:
        total = league.start()
        port = league.lm.port
        tokens = RegistryFiles(league.league_dir).read().tokens
        player_id = next(agent_id for agent_id in tokens if agent_id.startswith("P"))
        query = LeagueQuery(
            sender=f"player:{player_id}",
            conversation_id="flood",
            auth_token=tokens[player_id],
            league_id=LEAGUE,
            query_type="GET_STANDINGS",
        ).to_wire()
        rpc = {"jsonrpc": "2.0", "method": "league_query", "params": query, "id": 1}
        requests = [
            http_request(port, "GET", "/standings"),
            http_request(port, "POST", "/mcp", json.dumps(rpc).encode()),
        ]
        with RequestFlood(
            port,
            requests,
            workers=REQUEST_FLOOD_WORKERS,
            count=REQUEST_FLOOD_COUNT,
            seconds=FLOOD_SEC,
        ) as flood:
            body = wait_for(
                lambda: degraded_for(league, "flooded with requests"),
                _SOON,
                "/health to say the League Manager is flooded with requests",
            )
            raised = alarm(league, "raised", FLOOD)
        final = league.wait_completed(60)
        wait_for(lambda: health(league)[0] == 200 or None, _SOON, "/health to be ok again")
        cleared = alarm(league, "cleared", FLOOD)
        check = check_league(league.shared, final)
    assert flood.statuses[503] > 0 and flood.statuses[200] > 0, flood.statuses
    assert set(flood.statuses) <= {200, 503}, flood.statuses
    assert any(f"under {bound} in progress" in reason for reason in body["reasons"]), body
    assert "flooded with requests" in raised["reason"] and cleared["cleared_at"], (raised, cleared)
    assert check.double_counts == [] and check.mismatches == []
    assert check.counted == check.scheduled == total

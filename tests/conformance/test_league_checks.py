"""``league check-league`` against our own League Manager (a whole league watched through the
test agents) and against deliberately broken stdlib League Managers."""

from __future__ import annotations

from pathlib import Path

import pytest

from league_cli.conformance import LEAGUE_CHECKS, check_league
from sdk.config import SharedDir
from tests.conformance.conftest import (
    Launch,
    broken_league,
    failures,
    run_check,
    statuses,
    unexplained,
)
from tests.conftest import free_port, make_shared_dir

pytestmark = pytest.mark.e2e  # the agents and the checks run as real processes

WATCH_SEC = "30"
"""An upper bound: the watch ends as soon as every test player has LEAGUE_COMPLETED."""

WATCHED = [
    "referee.start_match",
    "referee.report_result",
    "notify.round_announcement",
    "notify.standings_update",
    "notify.round_completed",
    "notify.league_completed",
    "notify.auth_token",
    "notify.sequence",
    "notify.method_names",
]


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


def test_our_league_manager_passes_and_runs_a_league(launch: Launch, shared: SharedDir) -> None:
    manager = launch(
        "-m", "league_cli", "manager", "--shared-dir", str(shared.root), "--auto-start-players", "3"
    )
    code, report = run_check(
        "league",
        manager.url,
        "--shared-dir",
        str(shared.root),
        "--players",
        "3",
        "--watch",
        WATCH_SEC,
    )
    assert code == 0, failures(report)
    found = statuses(report)
    assert set(found) == set(LEAGUE_CHECKS)
    for check in WATCHED:
        assert found[check] == "PASS", f"{check}: {report['results']}"
    assert found["query.no_token"] == found["query.wrong_token"] == "PASS"
    assert report["duration_ms"] < float(WATCH_SEC) * 1000, "the watch did not end early"


@pytest.mark.parametrize("sender", ["league_manager", "league_manager:LM01"])
async def test_our_league_manager_passes_in_strict_mode(
    launch: Launch, tmp_path: Path, sender: str
) -> None:
    """In-process this time: the test agents are served inside the test's event loop. The
    kit reads league_manager_sender (it demanded exactly league_manager)."""
    shared = make_shared_dir(tmp_path / "STRICT", league_manager_sender=sender)
    manager = launch(
        "-m", "league_cli", "manager", "--shared-dir", str(shared.root), "--auto-start-players", "2"
    )
    secret = shared.referee_secret_path(shared.system().default_league_id).read_text().strip()
    report = await check_league(
        manager.url,
        system=shared.system(),
        strict=True,
        players=2,
        watch=float(WATCH_SEC),
        referee_secret=secret,
    )
    assert report.exit_code == 0, [r for r in report.results if r.status == "FAIL"]
    assert report.result("envelope.sender").status == "PASS"
    assert report.result("notify.league_completed").status == "PASS"


def test_the_other_sender_form_is_named_with_the_option_it_breaks(
    launch: Launch, tmp_path: Path
) -> None:
    shared = make_shared_dir(tmp_path / "LM01", league_manager_sender="league_manager:LM01")
    manager = launch("-m", "league_cli", "manager", "--shared-dir", str(shared.root))
    code, report = run_check(
        "league",
        manager.url,
        "--shared-dir",
        str(shared.root),
        "--league-manager-sender",
        "league_manager",
    )
    assert code == 0, failures(report)
    sender = next(r for r in report["results"] if r["name"] == "envelope.sender")
    assert sender["status"] == "WARN", sender
    assert (sender["field"], sender["expected"], sender["got"]) == (
        "sender",
        "league_manager",
        '"league_manager:LM01"',
    )
    assert "league_manager:LM01" in sender["rests_on"]


def test_the_league_is_started_with_the_admin_token(launch: Launch, tmp_path: Path) -> None:
    shared = make_shared_dir(
        tmp_path / "ADMIN",
        security={
            "admin_token": "conformance-admin-token",
            "admin_token_env": "NO_SUCH_VARIABLE_SET",
            "token_bytes": 32,
        },
    )
    manager = launch("-m", "league_cli", "manager", "--shared-dir", str(shared.root))
    code, report = run_check(
        "league",
        manager.url,
        "--shared-dir",
        str(shared.root),
        "--watch",
        WATCH_SEC,
        "--admin-token",
        "conformance-admin-token",
    )
    assert code == 0, failures(report)
    assert statuses(report)["league.start"] == "PASS"
    assert statuses(report)["notify.league_completed"] == "PASS"


# fault → the checks it must fail
FAULTS = {
    "missing_auth_token": ["register_referee.fields", "register_player.fields"],
    "query_without_token": ["query.no_token"],
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_league_fault_is_reported_by_its_check(
    launch: Launch, shared: SharedDir, fault: str
) -> None:
    manager = broken_league(launch, fault)
    code, report = run_check("league", manager.url, "--shared-dir", str(shared.root))
    assert code == 1 == report["exit_code"]
    found = statuses(report)
    assert sorted(name for name, status in found.items() if status == "FAIL") == sorted(
        FAULTS[fault]
    ), failures(report)
    assert unexplained(report) == []


def test_a_correct_stdlib_league_manager_passes(launch: Launch, shared: SharedDir) -> None:
    manager = broken_league(launch, "none")
    code, report = run_check("league", manager.url, "--shared-dir", str(shared.root), "--strict")
    assert code == 0, failures(report)
    found = statuses(report)
    assert found["query.wrong_token"] == found["query.no_token"] == "PASS"
    assert found["notify.round_announcement"] == "SKIP"  # --watch 0


def test_an_unreachable_league_manager_exits_2(shared: SharedDir) -> None:
    code, report = run_check(
        "league", f"http://127.0.0.1:{free_port()}/mcp", "--shared-dir", str(shared.root)
    )
    assert code == 2
    assert statuses(report)["transport.reachable"] == "FAIL"


async def test_the_library_call_serves_the_test_agents_in_process(
    launch: Launch, shared: SharedDir
) -> None:
    manager = broken_league(launch, "query_without_token")
    report = await check_league(manager.url, system=shared.system(), players=1, watch=0)
    assert report.result("query.no_token").status == "FAIL"
    assert report.result("register_player.fields").status == "PASS"
    assert report.exit_code == 1

"""``league check-player`` against deliberately broken stdlib players and against our own
player host, every agent a real process on a free loopback port."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from league_cli.conformance import PLAYER_CHECKS, check_player
from sdk.config import SharedDir
from tests.conformance.conftest import (
    Launch,
    broken_player,
    failures,
    league_command,
    run_check,
    statuses,
    unexplained,
)
from tests.conftest import free_port, make_shared_dir

pytestmark = pytest.mark.e2e  # the agents and the checks run as real processes

TOLERATED = {"missing_envelope", "message_type_methods", "basic_timestamps"}
"""Faults a lenient league takes (WARN) and a strict one refuses (FAIL)."""
FAIR = {"require_token", "own_acks"}
"""Ways of a correct player that the kit must pass in both modes (issue 17: it sent no
token in its referee messages, and judged acknowledgements league.v2 does not define)."""

FAST_MOVE_SEC = 0.2
"""choose_parity's timeout for the slow player's test: it answers after 0.5 s."""


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def fast_move_shared(tmp_path: Path) -> SharedDir:
    system = SharedDir(make_shared_dir(tmp_path / "FAST").root).system()
    timeouts = {**system.timeouts_sec, "choose_parity": FAST_MOVE_SEC}
    return make_shared_dir(tmp_path / "SHARED_FAST", timeouts_sec=timeouts)


# fault → (the checks it must trip, with their status in lenient and in strict mode)
FAULTS: dict[str, dict[str, tuple[str, str]]] = {
    "wrong_field_names": {
        "move.fields": ("FAIL", "FAIL"),
        "move.parity_value": ("FAIL", "FAIL"),
        "match.sequence": ("FAIL", "FAIL"),
    },
    "uppercase_parity": {"move.parity_value": ("FAIL", "FAIL"), "move.fields": ("PASS", "PASS")},
    "slow_move": {"move.deadline": ("FAIL", "FAIL"), "move.answer": ("PASS", "PASS")},
    "crash_on_game_over": {
        "game_over.ack": ("FAIL", "FAIL"),
        "game_over.survives": ("FAIL", "FAIL"),
        "invitation.answer": ("PASS", "PASS"),
    },
    "message_type_methods": {
        "jsonrpc.method_names": ("WARN", "FAIL"),
        "invitation.answer": ("PASS", "PASS"),
        "move.parity_value": ("PASS", "PASS"),
        "game_over.ack": ("PASS", "PASS"),
    },
    "missing_envelope": {
        "envelope.fields": ("WARN", "FAIL"),
        "move.parity_value": ("PASS", "PASS"),
        "invitation.fields": ("PASS", "PASS"),
    },
    "wrong_id": {"jsonrpc.framing": ("FAIL", "FAIL")},
    "basic_timestamps": {
        "envelope.timestamp": ("WARN", "FAIL"),
        "invitation.fields": ("PASS", "PASS"),
    },
    "require_token": {check: ("PASS", "PASS") for check in PLAYER_CHECKS},
    "own_acks": {check: ("PASS", "PASS") for check in PLAYER_CHECKS},
}


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize("fault", sorted(FAULTS))
async def test_each_fault_is_reported_by_its_check(
    launch: Launch, shared: SharedDir, fast_move_shared: SharedDir, fault: str, strict: bool
) -> None:
    player = broken_player(launch, fault)
    settings = fast_move_shared if fault == "slow_move" else shared
    report = await check_player(player.url, system=settings.system(), strict=strict)
    found = {result.name: result.status.value for result in report.results}
    for check, expected in FAULTS[fault].items():
        want = expected[1] if strict else expected[0]
        assert found[check] == want, (
            f"{fault}: {check} is {found[check]}, expected {want}: {report.results}"
        )
    has_fail = "FAIL" in found.values()
    assert has_fail == (fault not in TOLERATED | FAIR or (strict and fault in TOLERATED)), (
        report.results
    )
    assert unexplained(report.model_dump(mode="json")) == []
    assert report.exit_code == (1 if has_fail else 0)
    if fault == "crash_on_game_over":
        assert player.popen.wait(5) == 3, "the broken player should have exited on GAME_OVER"


@pytest.mark.parametrize(
    ("fault", "strict", "status"),
    [
        ("none", False, 0),
        ("uppercase_parity", False, 1),
        ("missing_envelope", False, 0),
        ("missing_envelope", True, 1),
    ],
)
def test_the_command_exits_with_the_verdict(
    launch: Launch, shared: SharedDir, fault: str, strict: bool, status: int
) -> None:
    player = broken_player(launch, fault)
    code, report = run_check(
        "player",
        player.url,
        "--shared-dir",
        str(shared.root),
        "--matches",
        "1",
        *(["--strict"] if strict else []),
    )
    assert code == status == report["exit_code"], failures(report)
    if fault == "missing_envelope":
        assert statuses(report)["envelope.fields"] == ("FAIL" if strict else "WARN")


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
async def test_a_correct_stdlib_player_passes_everything(
    launch: Launch, shared: SharedDir, strict: bool
) -> None:
    player = broken_player(launch, "none")
    report = await check_player(player.url, system=shared.system(), strict=strict, matches=2)
    assert {result.status.value for result in report.results} == {"PASS"}, report.results
    assert [result.name for result in report.results] == list(PLAYER_CHECKS)


LEAGUE_MANAGER_ACKS = (
    "round_announcement.ack",
    "standings_update.ack",
    "round_completed.ack",
    "league_completed.ack",
)


@pytest.mark.parametrize("sender", [None, "league_manager:LM01"], ids=["default", "LM01"])
def test_the_league_managers_messages_are_signed_as_the_option_says(
    launch: Launch, shared: SharedDir, sender: str | None
) -> None:
    """The kit's League Manager signs ``league_manager`` (system.json's default) unless
    ``--league-manager-sender`` says otherwise: a player whose League Manager signs
    ``league_manager:LM01`` refuses the default's notifications, naming the sender that
    came, and passes everything once the kit is told."""
    player = broken_player(launch, "lm01_sender")
    option = ["--league-manager-sender", sender] if sender else []
    code, report = run_check(
        "player", player.url, "--shared-dir", str(shared.root), "--matches", "1", *option
    )
    found = statuses(report)
    if sender is not None:
        assert code == 0 and set(found.values()) == {"PASS"}, report["results"]
        return
    assert code == 1 and unexplained(report) == []
    by_name = {result["name"]: result for result in report["results"]}
    for check in LEAGUE_MANAGER_ACKS:
        assert found[check] == "FAIL", by_name[check]
        assert "E002: sender 'league_manager':" in by_name[check]["reason"], by_name[check]
    assert found["invitation.answer"] == found["game_over.ack"] == "PASS", failures(report)


def test_our_player_host_gets_no_fail(launch: Launch, shared: SharedDir) -> None:
    """Both modes on one player process: the command in lenient mode, the library in strict."""
    player = launch(
        "-m",
        "league_cli",
        "player",
        "--standalone",
        "--player-id",
        "P01",
        "--shared-dir",
        str(shared.root),
    )
    code, report = run_check("player", player.url, "--shared-dir", str(shared.root))
    assert code == 0, failures(report)
    assert report["reachable"] and report["strict"] is False
    strict = asyncio.run(check_player(player.url, system=shared.system(), strict=True))
    assert strict.exit_code == 0, [r for r in strict.results if r.status == "FAIL"]


def test_an_unreachable_url_exits_2(shared: SharedDir) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    code, report = run_check("player", url, "--shared-dir", str(shared.root))
    assert code == 2 == report["exit_code"]
    assert statuses(report)["transport.reachable"] == "FAIL"
    assert {r["status"] for r in report["results"] if r["name"] != "transport.reachable"} == {
        "SKIP"
    }


def test_a_url_that_is_not_an_mcp_endpoint_is_refused() -> None:
    done = league_command("check-player", f"http://127.0.0.1:{free_port()}/")
    assert done.returncode == 2
    assert "/mcp" in done.stderr


def test_the_table_shows_each_failure_with_its_json_and_no_token(
    launch: Launch, shared: SharedDir
) -> None:
    player = broken_player(launch, "uppercase_parity")
    secret = "s3cret-token-of-the-player-0123456789"
    done = league_command(
        "check-player",
        player.url,
        "--shared-dir",
        str(shared.root),
        "--token",
        secret,
        "--matches",
        "1",
    )
    assert done.returncode == 1
    assert "move.parity_value" in done.stdout and "FAIL" in done.stdout
    assert '"parity_choice": "EVEN"' in done.stdout or '"parity_choice": "ODD"' in done.stdout
    assert "(exit 1)" in done.stdout
    json_done = league_command(
        "check-player",
        player.url,
        "--shared-dir",
        str(shared.root),
        "--token",
        secret,
        "--json",
        "--matches",
        "1",
    )
    assert secret not in done.stdout + json_done.stdout, "a token appears in full"


async def test_each_fail_names_the_field_what_was_expected_what_came_and_the_rule(
    launch: Launch, shared: SharedDir
) -> None:
    player = broken_player(launch, "uppercase_parity")
    report = await check_player(player.url, system=shared.system(), matches=1)
    parity = report.result("move.parity_value")
    assert parity.status == "FAIL"
    assert (parity.field, parity.expected) == ("parity_choice", '"even" or "odd"')
    assert parity.got in ('"EVEN"', '"ODD"')
    assert parity.rests_on is not None and "E004" in parity.rests_on
    for result in report.results:
        assert (result.rests_on is not None) == (result.status in ("WARN", "FAIL")), result


async def test_the_library_call_reports_the_same(launch: Launch, shared: SharedDir) -> None:
    player = broken_player(launch, "wrong_field_names")
    report = await check_player(player.url, system=shared.system(), matches=1, seed=7)
    assert report.result("move.fields").status == "FAIL"
    assert "parity_choice" in report.result("move.fields").reason
    evidence = report.result("move.fields").evidence
    assert evidence is not None and evidence["answer"]["result"]["parity"] in ("even", "odd")
    assert report.exit_code == 1

"""Faulty players against a real referee: each fault of ``faulty_player.py`` is a process on
loopback, and one standalone match per fault (``POST /run_match``) against a sound player of
ours must end in a technical loss for the faulty side, a win for the sound one, the right
error code, GAME_ERROR notices where the protocol retries, and within a bounded time.

Every process starts once for the module and every match runs at once (the referee's
capacity allows it), so the module costs about one retried timeout, not one per fault.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
import pytest

from league_cli.launcher import AgentProcess, Launcher
from league_cli.up import wait_for
from players.history import PlayerHistory
from sdk.config import SharedDir, SystemConfig
from tests.conftest import free_port, make_shared_dir

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).resolve().parent / "faulty_player.py"
ADMIN_TOKEN = "faults-admin-token-0123456789abcdef"
SOUND = "SOUND"
PARITY, INVITATION = "choose_parity", "handle_game_invitation"
GAME_ERROR, GAME_OVER = "notify_game_error", "notify_match_result"

MOVE_TIMEOUT_SEC = 1.5
"""choose_parity's timeout here (30 s in the committed system.json), so that a player that
never answers costs 4 x 1.5 s, not 4 x 30 s."""
TIMEOUTS_SEC = {INVITATION: 2.0, PARITY: MOVE_TIMEOUT_SEC, GAME_ERROR: 0.5, GAME_OVER: 1.0}
"""Only faulty players get GAME_ERROR (a lost notice is never retried), so its timeout may
be the shortest; GAME_OVER, retried for the sound player, keeps a margin."""
SLACK_SEC = 5.0
"""What a match may take beyond its timeouts and backoffs, all matches running at once
(about 1 s measured); below the 6 s of four move timeouts, so a fault that is not a
timeout cannot have waited for one."""


@dataclass(frozen=True)
class Expected:
    """What the referee must do with one fault."""

    code: str | None
    """The error code of the technical loss, as GAME_ERROR carries it (None: no GAME_ERROR,
    a refused invitation is not an error)."""
    method: str
    """The call the fault spoils."""
    retried: bool = False
    """E001/E009: three retries, each announced with GAME_ERROR (retryable), then the loss."""
    deaf: bool = False
    """The player answers no GAME_ERROR and no GAME_OVER either: each waits its timeout."""

    def attempts(self, system: SystemConfig) -> int:
        return system.retry_policy.max_retries + 1 if self.retried else 1

    def time_bound(self, system: SystemConfig) -> float:
        """Seconds the match may take: every attempt's timeout for E001, the backoffs
        between retries, and the slack."""
        attempts = self.attempts(system)
        waited = attempts * system.timeout_for(self.method) if self.code == "E001" else 0
        if self.deaf:
            waited += attempts * system.timeout_for(GAME_ERROR) + system.timeout_for(GAME_OVER)
        backoffs = sum(system.retry_policy.delay(n) for n in range(1, attempts))
        return waited + backoffs + SLACK_SEC


EXPECTED: dict[str, Expected] = {
    "never_answers": Expected("E001", PARITY, retried=True),
    "hangs_after_invitation": Expected("E001", PARITY, retried=True, deaf=True),
    "answers_late": Expected("E001", PARITY, retried=True),
    "trickle": Expected("E001", PARITY, retried=True),
    "closes_connection": Expected("E009", PARITY, retried=True),
    "dies_after_invitation": Expected("E009", PARITY, retried=True),
    "wrong_id": Expected("E009", PARITY, retried=True),
    "http_500": Expected("E020", PARITY),
    "jsonrpc_error": Expected("E020", PARITY),
    "not_json": Expected("E002", PARITY),
    "wrong_types": Expected("E002", PARITY),
    "choice_upper": Expected("E004", PARITY),
    "choice_empty": Expected("E004", PARITY),
    "choice_null": Expected("E004", PARITY),
    "choice_number": Expected("E004", PARITY),
    "other_match_id": Expected("E002", PARITY),
    "other_player_id": Expected("E002", PARITY),
    "deep_json": Expected("E002", PARITY),
    "deep_json_900": Expected("E002", PARITY),
    "huge_body": Expected("E002", PARITY),
    "huge_body_unsized": Expected("E002", PARITY),
    "refuses_invitation": Expected(None, INVITATION),
}
CONTROL = "none"
"""The script without a fault: it must play a normal match, so every loss above is its
fault's and nothing else's."""


def faulty_id(fault: str) -> str:
    return f"F_{fault}"


@dataclass
class FaultyPlayer:
    fault: str
    port: int
    popen: subprocess.Popen[bytes]
    output: Path

    @property
    def player_id(self) -> str:
        return faulty_id(self.fault)

    @property
    def mcp_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


@dataclass
class Setup:
    shared: SharedDir
    referee: AgentProcess
    sound: AgentProcess
    faulty: dict[str, FaultyPlayer]


@dataclass
class Run:
    """One match as the admin saw it (status and answer of /run_match), and its file."""

    elapsed: float
    status: int
    answer: dict[str, Any]
    match_path: Path

    @cached_property
    def match_file(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads(self.match_path.read_text())
        return document


def spawn_faulty(root: Path, fault: str) -> FaultyPlayer:
    port = free_port()
    output = root / f"faulty-{fault}.out"
    command = [
        sys.executable,
        "-I",
        str(SCRIPT),
        "--port",
        str(port),
        "--player-id",
        faulty_id(fault),
        "--fault",
        fault,
    ]
    with open(output, "wb") as sink:
        popen = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    return FaultyPlayer(fault, port, popen, output)


def wait_faulty_healthy(player: FaultyPlayer, timeout: float = 15) -> None:
    def healthy() -> bool:
        if player.popen.poll() is not None:
            raise AssertionError(
                f"{player.fault} exited with {player.popen.returncode}: "
                f"{player.output.read_text()[-2000:]}"
            )
        try:
            return httpx.get(f"http://127.0.0.1:{player.port}/health", timeout=1).is_success
        except httpx.HTTPError:
            return False

    wait_for(healthy, timeout, f"the {player.fault} player to listen", interval=0.05)


def stop_faulty(players: list[FaultyPlayer]) -> None:
    """SIGTERM each by its pid, SIGKILL one that lingers."""
    for player in players:
        if player.popen.poll() is None:
            player.popen.send_signal(signal.SIGTERM)
    for player in players:
        try:
            player.popen.wait(5)
        except subprocess.TimeoutExpired:
            player.popen.kill()
            player.popen.wait(5)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    root = tmp_path_factory.mktemp("faults")
    shared = make_shared_dir(
        root / "SHARED",
        timeouts_sec=TIMEOUTS_SEC,
        security={
            "admin_token": ADMIN_TOKEN,
            "admin_token_env": "LEAGUE_FAULTS_ADMIN_TOKEN",
            "token_bytes": 32,
        },
    )
    launcher = Launcher(shared.root)
    faulty: dict[str, FaultyPlayer] = {}
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"  # standalone agents never call it
    try:
        referee = launcher.referee(
            "Faults", free_port(), unused_lm, max_concurrent=len(EXPECTED) + 1, standalone=True
        )
        sound = launcher.player("Sound", free_port(), unused_lm, player_id=SOUND, standalone=True)
        for fault in [*EXPECTED, CONTROL]:
            faulty[fault] = spawn_faulty(root, fault)
        launcher.wait_healthy(referee)
        launcher.wait_healthy(sound)
        for player in faulty.values():
            wait_faulty_healthy(player)
        yield Setup(shared, referee, sound, faulty)
    finally:
        try:
            stop_faulty(list(faulty.values()))
        finally:
            launcher.stop_all()


def run_match(admin: httpx.Client, setup: Setup, fault: str, index: int) -> Run:
    """One standalone match, sound player against ``fault``; the faulty one takes seat A
    in every other match, so no result depends on the seat."""
    faulty = setup.faulty[fault]
    seats = [
        {"player_id": SOUND, "endpoint": setup.sound.mcp_url},
        {"player_id": faulty.player_id, "endpoint": faulty.mcp_url},
    ]
    if index % 2:
        seats.reverse()
    match_id = f"fault-{fault}"
    started = time.monotonic()
    response = admin.post("/run_match", json={"players": seats, "match_id": match_id})
    elapsed = time.monotonic() - started
    return Run(
        elapsed,
        response.status_code,
        response.json(),
        setup.shared.match_path("standalone", match_id),
    )


@pytest.fixture(scope="module")
def runs(setup: Setup) -> dict[str, Run]:
    """The control match first (it warms every process up, so no fault pays for a cold
    start), then every fault's match at once, each timed from its request to its answer."""
    faults = list(EXPECTED)
    system = setup.shared.system()
    patience = max(expected.time_bound(system) for expected in EXPECTED.values()) + 30
    with httpx.Client(
        base_url=setup.referee.base_url,
        timeout=patience,
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
    ) as admin:
        control = run_match(admin, setup, CONTROL, 0)
        with ThreadPoolExecutor(max_workers=len(faults)) as pool:
            done = pool.map(
                lambda item: run_match(admin, setup, item[1], item[0]), enumerate(faults)
            )
            return {CONTROL: control, **dict(zip(faults, done, strict=True))}


def game_errors(run: Run, peer: str) -> list[dict[str, Any]]:
    """Every GAME_ERROR the referee sent ``peer``, delivered or not."""
    return [
        entry["message"]
        for entry in run.match_file["transcript"]
        if entry["direction"] == "sent" and entry["method"] == GAME_ERROR and entry["peer"] == peer
    ]


def failures(run: Run, peer: str, method: str) -> list[str]:
    """The error code of every attempt of ``method`` that got no answer."""
    return [
        entry["error"]["code"]
        for entry in run.match_file["transcript"]
        if entry["direction"] == "failed" and entry["method"] == method and entry["peer"] == peer
    ]


def sent(run: Run, peer: str, method: str) -> int:
    return sum(
        1
        for entry in run.match_file["transcript"]
        if entry["direction"] == "sent" and entry["method"] == method and entry["peer"] == peer
    )


@pytest.mark.parametrize("fault", list(EXPECTED))
def test_a_faulty_player_loses_technically_in_bounded_time(
    setup: Setup, runs: dict[str, Run], fault: str
) -> None:
    expected, run, system = EXPECTED[fault], runs[fault], setup.shared.system()
    bound, attempts = expected.time_bound(system), expected.attempts(system)
    loser = setup.faulty[fault].player_id
    assert run.status == 200, f"{fault}: /run_match answered {run.status}: {run.answer}"
    assert run.answer["match_file"] == str(run.match_path)
    game_result, report = run.answer["game_result"], run.answer["result"]
    assert run.answer["state"] == "FINISHED", run.answer
    assert game_result["status"] == "TECHNICAL_LOSS", game_result
    assert game_result["winner_player_id"] == SOUND, game_result["reason"]
    assert report["winner"] == SOUND
    assert report["details"]["technical_losers"] == [loser]
    assert report["score"] == {SOUND: 3, loser: 0}
    assert run.match_file["result"]["report"] == report, "the file holds the same result"
    assert [step["state"] for step in run.match_file["lifecycle"]][-1] == "FINISHED"

    assert sent(run, loser, expected.method) == attempts
    if expected.retried:
        assert failures(run, loser, expected.method) == [expected.code] * attempts
    else:
        assert failures(run, loser, expected.method) == [], "an answer is never retried"
    notices = [(e["error_code"], e["retryable"], e["retry_count"]) for e in game_errors(run, loser)]
    if expected.code is None:
        assert notices == [], "a refused invitation is no error"
    elif expected.retried:
        assert notices == [(expected.code, True, n) for n in range(1, attempts)] + [
            (expected.code, False, attempts - 1)
        ], "each retry announced, then the loss"
    else:
        assert notices == [(expected.code, False, 0)]
    assert game_errors(run, SOUND) == [], "the sound player is never blamed"
    assert sent(run, SOUND, GAME_OVER) == 1

    assert run.elapsed <= bound, f"{fault} took {run.elapsed:.2f} s, bound {bound:.2f} s"
    if expected.code == "E001":
        assert run.elapsed >= attempts * system.timeout_for(expected.method), (
            "every attempt waited its whole timeout"
        )
    if fault == "dies_after_invitation":
        assert setup.faulty[fault].popen.poll() == 0, "the player really died"


def test_the_control_player_plays_a_normal_match(runs: dict[str, Run]) -> None:
    run = runs[CONTROL]
    assert run.status == 200, run.answer
    assert run.answer["game_result"]["status"] in ("WIN", "DRAW"), run.answer["game_result"]
    assert run.answer["result"]["details"]["technical_losers"] == []
    assert game_errors(run, faulty_id(CONTROL)) == [] and game_errors(run, SOUND) == []


def test_the_sound_player_records_every_win(setup: Setup, runs: dict[str, Run]) -> None:
    path = setup.shared.player_history_path(SOUND)  # and its journal, read back
    history = PlayerHistory.load(path, player_id=SOUND, display_name="", strategy="").document()
    outcomes = {match["match_id"]: match["outcome"] for match in history["matches"]}
    assert {f"fault-{fault}": outcomes.get(f"fault-{fault}") for fault in EXPECTED} == {
        f"fault-{fault}": "WIN" for fault in EXPECTED
    }


@pytest.mark.parametrize(
    ("fault", "limit"),
    [
        ("huge_body", "http.max_response_bytes"),
        ("huge_body_unsized", "http.max_response_bytes"),
        ("deep_json", "http.max_json_depth"),
        ("deep_json_900", "http.max_json_depth"),
    ],
)
def test_an_answer_beyond_a_limit_is_refused_unkept(
    runs: dict[str, Run], fault: str, limit: str
) -> None:
    """The player is told which limit it broke, and its answer never reaches the file."""
    run = runs[fault]
    (notice,) = game_errors(run, faulty_id(fault))
    assert limit in notice["error_description"]
    assert run.match_path.stat().st_size < 100_000


def test_the_referee_outlives_every_fault(setup: Setup, runs: dict[str, Run]) -> None:
    status = httpx.get(f"{setup.referee.base_url}/status", timeout=5).json()
    assert status["running_matches"] == []
    assert status["finished_matches"] == len(runs)
    assert setup.referee.popen.poll() is None
    (log,) = (setup.shared.logs_dir / "agents").glob("referee-*.log.jsonl")
    assert log.stat().st_size < 5_000_000, "no 10 MB answer went into the log"

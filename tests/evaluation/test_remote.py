"""A suite whose agent under test is a real player process, called over HTTP by the
match engine's remote seat; one whose remote agent is not there; and where their
transcripts go, what they keep and how large they grow."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from league_cli.evaluation.report import evaluate as run_evaluation
from league_cli.evaluation.suite_file import load_suite
from league_cli.evaluation.transcript import Transcript
from league_cli.launcher import AgentProcess, Launcher
from sdk.config import SHARED_DIR_ENV, SharedDir
from sdk.service import listening_socket
from tests.conftest import REPO_ROOT, free_port, make_shared_dir
from tests.evaluation.conftest import base_suite, evaluate

pytestmark = pytest.mark.e2e

PLAYER_ID = "candidate"
ROUNDS = 10
"""base_suite's episodes: 10 rounds of the prisoner's dilemma."""


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def player(shared: SharedDir) -> Iterator[AgentProcess]:
    """A standalone tit-for-tat player (no League Manager), stopped by its pid."""
    launcher = Launcher(shared.root)
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"  # a standalone player never calls it
    try:
        process = launcher.player(
            "Candidate",
            listening_socket(),
            unused_lm,
            strategy="tit_for_tat",
            game_type="prisoners_dilemma",
            player_id=PLAYER_ID,
            standalone=True,
        )
        launcher.wait_healthy(process)
        yield process
    finally:
        launcher.stop_all()


@pytest.fixture
def checkout(tmp_path: Path, shared: SharedDir, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for the user's checkout, the current folder, with its ``SHARED`` (config
    only) found by default; no $LEAGUE_SHARED_DIR."""
    folder = tmp_path / "checkout"
    shutil.copytree(shared.config_dir, folder / "SHARED" / "config")
    monkeypatch.chdir(folder)
    monkeypatch.delenv(SHARED_DIR_ENV, raising=False)
    return folder


def _remote_suite(endpoint: str, episodes: int = 3) -> dict[str, object]:
    return base_suite(
        agents=[
            {"id": PLAYER_ID, "endpoint": endpoint},
            {"id": "defector", "strategy": "always_defect"},
        ],
        under_test=PLAYER_ID,
        episodes=episodes,
        parallel=3,
        metrics=[{"name": "average_payoff"}, {"name": "cooperation_rate"}],
        thresholds=[{"metric": "cooperation_rate", "max": 0.5}],
    )


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _files(folder: Path) -> dict[str, int]:
    return {
        str(path.relative_to(folder)): path.stat().st_mtime_ns
        for path in folder.rglob("*")
        if path.is_file()
    }


def test_a_remote_player_is_evaluated_over_http(
    player: AgentProcess, shared: SharedDir, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    run = evaluate(
        str(write_suite(_remote_suite(player.mcp_url))),
        "--shared-dir",
        str(shared.root),
        "--json",
        str(out),
    )
    assert run.exit_code == 0, run.output
    report = json.loads(out.read_text())
    assert report["failures"] == [] and report["finished_episodes"] == 3
    metrics = {m["id"]: m["mean"] for m in report["metrics"]}
    # tit for tat against always defect over 10 rounds: C then D nine times, 0 + 9 × 1
    assert metrics == pytest.approx({"average_payoff": 0.9, "cooperation_rate": 0.1})
    served = (shared.logs_dir / "agents" / f"{PLAYER_ID}.log.jsonl").read_text()
    assert served.count('"GAME_MOVE_CALL"') >= 3 * ROUNDS, "no GAME_MOVE_CALL went over the wire"

    # The summary, under the SHARED folder given: one record per episode, no message.
    transcript = shared.logs_dir / "evaluations" / "tiny.transcript.jsonl"
    assert report["transcript"] == {
        "path": str(transcript),
        "mode": "summary",
        "bytes": transcript.stat().st_size,
        "max_bytes": 64 * 2**20,
        "withheld": 0,
    }
    assert f"transcript (summary, {transcript.stat().st_size / 1024:,.0f} KiB)" in run.output
    records = _records(transcript)
    assert [r["event"] for r in records] == ["evaluation_started"] + ["episode"] * 3 + [
        "evaluation_finished"
    ]
    started, *episodes, finished = records
    assert started["remote"] == {PLAYER_ID: player.mcp_url}
    assert started["transcript"] == "summary" and started["episodes"] == 3
    assert sorted(e["episode"] for e in episodes) == [0, 1, 2]
    for episode in episodes:
        assert episode["match_id"] == f"tiny-{episode['episode']:05d}"
        assert episode["status"] == "WIN" and episode["winner"] == "defector"
        assert episode["stages"] == ROUNDS
        assert episode["payoffs"] == {PLAYER_ID: 9.0, "defector": 14.0}
        # invitation, a move call a stage and GAME_OVER to the remote seat, each answered
        assert episode["messages"] == {"sent": ROUNDS + 2, "received": ROUNDS + 2, "failed": 0}
        assert episode["faults"] == [] and episode["deviations"] == []
    assert finished["episodes"] == 3 and finished["outcomes"] == {"WIN": 3}
    assert transcript.stat().st_size < 4096, "the summary grows with episodes, not messages"


def test_the_transcript_goes_where_the_user_put_it_and_never_into_the_checkout(
    player: AgentProcess, checkout: Path, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    suite = str(write_suite(_remote_suite(player.mcp_url)))
    before = _files(checkout)

    output = tmp_path / "runs"
    run = evaluate(suite, "--output", str(output))
    assert run.exit_code == 0, run.output
    assert [p.name for p in output.iterdir()] == ["tiny.transcript.jsonl"]
    assert _files(checkout) == before, "the evaluation wrote into the checkout"

    run = evaluate(suite)  # neither --output nor --shared-dir: the checkout's SHARED is read
    assert run.exit_code == 0, run.output
    assert "no transcript written: --output DIR (or --shared-dir) keeps one" in run.output
    assert _files(checkout) == before, "the evaluation wrote into the checkout"
    assert not (checkout / "SHARED" / "logs").exists()


def test_the_full_transcript_has_every_message(
    player: AgentProcess, checkout: Path, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    suite = str(write_suite(_remote_suite(player.mcp_url)))
    run = evaluate(suite, "--output", str(tmp_path / "runs"), "--full-transcript")
    assert run.exit_code == 0, run.output
    records = _records(tmp_path / "runs" / "tiny.transcript.jsonl")
    sent = [r["message_type"] for r in records if r["event"] == "message_sent"]
    assert sent.count("GAME_MOVE_CALL") == 3 * ROUNDS
    assert sent.count("GAME_INVITATION") == sent.count("GAME_OVER") == 3
    assert sum(r["event"] == "message_received" for r in records) == len(sent)
    assert sum(r["event"] == "episode" for r in records) == 3
    assert records[0]["transcript"] == "full"


def test_even_the_full_transcript_stops_at_its_bound(
    player: AgentProcess, shared: SharedDir, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    suite = load_suite(write_suite(_remote_suite(player.mcp_url, episodes=4)))
    transcript = Transcript(tmp_path / "runs", suite.name, full=True, max_bytes=16_384)
    evaluation = run_evaluation(
        suite, "suite.yaml", parallel=2, shared=shared, transcript=transcript
    )
    assert len(evaluation.finished) == 4, "the bound cuts the record, never the run"
    path = tmp_path / "runs" / "tiny.transcript.jsonl"
    assert path.stat().st_size == transcript.size <= 16_384
    records = _records(path)
    assert records[-1]["event"] == "log_limit_reached"
    assert transcript.withheld > 0 and evaluation.transcript is transcript
    assert transcript.to_json()["withheld"] == transcript.withheld


def test_an_unreachable_remote_agent_fails_every_episode_and_exits_1(
    shared: SharedDir, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    out = tmp_path / "out.json"
    endpoint = f"http://127.0.0.1:{free_port()}/mcp"
    run = evaluate(
        str(write_suite(_remote_suite(endpoint))),
        "--shared-dir",
        str(shared.root),
        "--json",
        str(out),
    )
    assert run.exit_code == 1, run.output
    report = json.loads(out.read_text())
    assert report["finished_episodes"] == 0 and report["verdict"] == "fail"
    assert len(report["failures"]) == 3
    assert "technical loss" in report["failures"][0]["reason"], report["failures"][0]

    # The summary keeps every error in full: each retry, each episode's fault.
    records = _records(shared.logs_dir / "evaluations" / "tiny.transcript.jsonl")
    retries = [r for r in records if r["event"] == "call_retry"]
    assert len(retries) == 3 * 3 and all(r["level"] == "warning" for r in retries)
    assert all(r["endpoint"] == endpoint and r["error_code"] == "E009" for r in retries)
    episodes = [r for r in records if r["event"] == "episode"]
    assert len(episodes) == 3
    for episode in episodes:
        (fault,) = episode["faults"]
        assert fault["player_id"] == PLAYER_ID and fault["code"] == "E009"
        assert fault["description"] == (
            f"no answer to handle_game_invitation after 3 retries (could not reach {endpoint} "
            "for handle_game_invitation: connection refused (ClientConnectorError))"
        )
    assert REPO_ROOT.joinpath("SHARED", "logs", "evaluations").exists() is False or not any(
        REPO_ROOT.joinpath("SHARED", "logs", "evaluations").iterdir()
    )


def test_a_remote_player_under_test_is_told_its_opponent_by_each_label(
    player: AgentProcess, shared: SharedDir, write_suite: Callable[..., Path], tmp_path: Path
) -> None:
    """FAIRGAME's bias across labels over the wire: the GAME_INVITATION's opponent_id is the
    episode's label; the report still names the opponent by its own id."""
    suite = _remote_suite(player.mcp_url, episodes=4) | {
        "bias": {"labels": ["Alice", "Bob"]},
        "metrics": [{"name": "cooperation_rate"}, {"name": "label_bias"}],
    }
    out = tmp_path / "out.json"
    run = evaluate(
        str(write_suite(suite)),
        "--output",
        str(tmp_path / "runs"),
        "--full-transcript",
        "--json",
        str(out),
    )
    assert run.exit_code == 0, run.output
    records = _records(tmp_path / "runs" / "tiny.transcript.jsonl")
    invitations = [
        r
        for r in records
        if r["event"] == "message_sent" and r["message_type"] == "GAME_INVITATION"
    ]
    told = {r["data"]["match_id"]: r["data"]["opponent_id"] for r in invitations}
    assert [told[match] for match in sorted(told)] == ["Alice", "Bob", "Alice", "Bob"]
    report = json.loads(out.read_text())
    # tit for tat plays the same against always defect under either label
    assert report["bias"]["counts"] == {
        "Alice": {"C": 2, "D": 18},
        "Bob": {"C": 2, "D": 18},
    }
    assert report["bias"]["biased"] is False and report["payoff_matrix"]["agents"] == [
        PLAYER_ID,
        "defector",
    ]

"""``league play`` driven as a person would: the real command in a subprocess, with a
scripted stdin (one bad answer included), against a built-in strategy and a real player."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from league_cli.launcher import AgentProcess, Launcher
from playroom.transcript import Transcript
from sdk.config import SharedDir
from tests.conftest import REPO_ROOT, free_port, make_shared_dir
from tests.strategies.llm_server import start_in_thread

pytestmark = pytest.mark.e2e


def _play(
    tmp_path: Path, script: str, *args: str
) -> tuple[subprocess.CompletedProcess[str], Transcript]:
    path = tmp_path / "out" / "game.json"
    run = subprocess.run(
        [sys.executable, "-m", "league_cli", "play", *args, "--transcript", str(path)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        env={**os.environ, "COLUMNS": "120"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert path.with_suffix(".csv").exists()
    return run, Transcript.load(path)


def test_even_odd_against_a_builtin_strategy(tmp_path: Path) -> None:
    run, transcript = _play(
        tmp_path, "seven\nODD\n", "--game", "even_odd", "--opponent", "builtin:fixed", "--seed", "3"
    )
    assert "Legal moves: one of: even, odd" in run.stdout
    assert "'seven' is not a legal move; type one of: even, odd" in run.stdout
    assert "Winner: you" in run.stdout or "Winner: opponent" in run.stdout
    humans = [m.text for m in transcript.messages if m.role == "human"]
    assert humans == ["seven", "odd"]
    opponent = [m for m in transcript.messages if m.role == "player"]
    assert [m.text for m in opponent] == ["even"] and opponent[0].visibility == "internal"
    assert transcript.configs["opponent"] == {"kind": "builtin", "strategy": "fixed"}
    assert transcript.ended_at is not None and transcript.tokens.calls == 0


def test_repeated_prisoners_dilemma_against_tit_for_tat(tmp_path: Path) -> None:
    run, transcript = _play(
        tmp_path,
        "C\nmaybe\nD\nC\n",
        "--game",
        "prisoners_dilemma",
        "--opponent",
        "tit_for_tat",
        "--params",
        "rounds=3",
        "--seed",
        "1",
    )
    assert run.stdout.count("Legal moves: one of: C, D") == 3
    assert "'maybe' is not a legal move; type one of: C, D" in run.stdout
    # C/C 3, D/C 5, C/D 0 for the person; tit for tat mirrors the move before
    assert "Score: you 3, opponent 3" in run.stdout and "Score: you 8, opponent 3" in run.stdout
    assert "Final score: you 8, opponent 8" in run.stdout
    assert [m.text for m in transcript.messages if m.role == "player"] == ["C", "C", "D"]
    assert transcript.result["payoffs"] == {"human": 8.0, "opponent": 8.0}
    assert transcript.configs["params"]["rounds"] == 3


def test_against_an_llm_opponent_the_transcript_counts_its_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    server, _ = start_in_thread(port)
    monkeypatch.setenv("LEAGUE_LLM_BASE_URL", f"http://127.0.0.1:{port}/valid/play/v1")
    monkeypatch.setenv("LEAGUE_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("LEAGUE_LLM_DEFAULT_MOVE", "C")
    try:
        run, transcript = _play(
            tmp_path,
            "C\nD\n",
            "--game",
            "prisoners_dilemma",
            "--opponent",
            "llm",
            "--params",
            "rounds=2",
            "--seed",
            "1",
        )
    finally:
        server.shutdown()
        server.server_close()
    assert "Final score: you" in run.stdout
    assert len(server.requests) == transcript.tokens.calls == 2, "one call per move"
    assert transcript.tokens.prompt_tokens > 0 and transcript.tokens.completion_tokens > 0


@pytest.mark.parametrize("opponent", ["no_such_strategy", "[bold]x[/bold]"])
def test_a_bad_opponent_is_one_line_and_exit_1(tmp_path: Path, opponent: str) -> None:
    """Said as written: an error is text, never terminal markup (brackets included)."""
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "league_cli",
            "play",
            "--game",
            "prisoners_dilemma",
            "--opponent",
            opponent,
        ],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert run.returncode == 1
    assert f"unknown strategy '{opponent}'" in run.stdout


@pytest.fixture
def shared(tmp_path: Path) -> SharedDir:
    return make_shared_dir(tmp_path / "SHARED")


@pytest.fixture
def remote_player(shared: SharedDir, request: pytest.FixtureRequest) -> Iterator[AgentProcess]:
    """A standalone player host (tit for tat, or the strategy and game the test names by
    indirect parametrisation), stopped by its pid."""
    strategy, game = getattr(request, "param", ("tit_for_tat", "prisoners_dilemma"))
    launcher = Launcher(shared.root)
    unused_lm = f"http://127.0.0.1:{free_port()}/mcp"  # a standalone player never calls it
    try:
        process = launcher.player(
            "Remote",
            free_port(),
            unused_lm,
            strategy=strategy,
            game_type=game,
            player_id="remote",
            standalone=True,
        )
        launcher.wait_healthy(process)
        yield process
    finally:
        launcher.stop_all()


def test_against_a_real_player_over_the_protocol(
    tmp_path: Path, shared: SharedDir, remote_player: AgentProcess
) -> None:
    run, transcript = _play(
        tmp_path,
        "D\n2\nC\n",
        "--game",
        "prisoners_dilemma",
        "--opponent",
        remote_player.mcp_url,
        "--params",
        "rounds=2",
        "--opponent-id",
        "remote",
        "--seed",
        "5",
        "--shared-dir",
        str(shared.root),
    )
    assert "'2' is not a legal move; type one of: C, D" in run.stdout, run.stdout
    # tit for tat over HTTP: C then the person's D; the person: D then C
    assert "Final score: you 5, remote 5" in run.stdout, run.stdout
    assert transcript.configs["opponent"] == {
        "kind": "remote",
        "url": remote_player.mcp_url,
        "player_id": "remote",
    }
    assert [m.text for m in transcript.messages if m.role == "human"] == ["D", "2", "C"]
    assert any(m.text.startswith("GAME_OVER") for m in transcript.messages), "recorded"
    assert not any(m.text.startswith("GAME_OVER") for m in transcript.visible()), (
        "the whole result is internal: the person sees the end in words"
    )
    log = (shared.root / "logs" / "agents").glob("*.log.jsonl")
    texts = "".join(path.read_text() for path in log)
    assert "GAME_INVITATION" in texts and "GAME_MOVE_CALL" in texts and "GAME_OVER" in texts


@pytest.mark.parametrize("remote_player", [("fixed", "even_odd")], indirect=True)
def test_even_odd_against_a_real_player_over_the_protocol(
    tmp_path: Path, shared: SharedDir, remote_player: AgentProcess
) -> None:
    run, transcript = _play(
        tmp_path,
        "odd\n",
        "--game",
        "even_odd",
        "--opponent",
        remote_player.mcp_url,
        "--opponent-id",
        "remote",
        "--seed",
        "5",
        "--shared-dir",
        str(shared.root),
    )
    assert "Legal moves: one of: even, odd" in run.stdout, run.stdout
    over = [m.text for m in transcript.visible() if m.text.startswith("Game over: what you see")]
    assert len(over) == 1 and "opponent's choice even" in over[0], (
        "the fixed player's parity, over CHOOSE_PARITY_CALL, shown once the game is over"
    )
    assert "Winner:" in run.stdout or "draw" in run.stdout.lower()
    log = (shared.root / "logs" / "agents").glob("*.log.jsonl")
    assert "CHOOSE_PARITY_CALL" in "".join(path.read_text() for path in log)

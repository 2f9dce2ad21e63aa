"""Where a remote evaluation's transcript goes, and what its summary keeps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from league_cli.evaluation.transcript import Transcript, transcript_folder
from sdk.config import SHARED_DIR_ENV
from tests.conftest import make_shared_dir
from tests.evaluation.conftest import base_suite, evaluate


def test_the_folder_is_the_one_the_user_gave(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(SHARED_DIR_ENV, raising=False)
    assert transcript_folder(tmp_path / "out", tmp_path / "S") == tmp_path / "out"
    assert transcript_folder(None, tmp_path / "S") == tmp_path / "S" / "logs" / "evaluations"
    assert transcript_folder(None, None) is None, "./SHARED, found by default, is not given"
    monkeypatch.setenv(SHARED_DIR_ENV, str(tmp_path / "E"))
    assert transcript_folder(None, None) == tmp_path / "E" / "logs" / "evaluations"
    assert transcript_folder(tmp_path / "out", None) == tmp_path / "out"


def test_the_summary_keeps_episodes_and_errors_not_messages(tmp_path: Path) -> None:
    (tmp_path / "tiny.transcript.jsonl").write_text("an earlier run's\n")
    transcript = Transcript(tmp_path, "tiny")
    log = transcript.open()
    log.log.info("evaluation_started", suite="tiny")
    log.message("message_sent", {"message_type": "GAME_MOVE_CALL"})
    log.message("message_received", {"message_type": "GAME_MOVE_RESPONSE"})
    log.message("message_sent", {"message_type": "GAME_ERROR"})
    log.message("message_received", {"message_type": "LEAGUE_ERROR"})
    log.log.info("match_finished")
    log.log.warning("call_retry")
    log.log.error("result_unreported")
    log.log.info("episode", episode=0)
    log.log.info("evaluation_finished")
    transcript.close()
    lines = (tmp_path / "tiny.transcript.jsonl").read_text().splitlines()
    assert [line.split('"event":"')[1].split('"')[0] for line in lines] == [
        "evaluation_started",
        "message_sent",
        "message_received",
        "call_retry",
        "result_unreported",
        "episode",
        "evaluation_finished",
    ], "an earlier run's is replaced"
    assert "GAME_ERROR" in lines[1] and "LEAGUE_ERROR" in lines[2]
    assert transcript.size == (tmp_path / "tiny.transcript.jsonl").stat().st_size
    assert transcript.to_json()["mode"] == "summary"


def test_without_a_folder_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    transcript = Transcript(None, "tiny")
    log = transcript.open()
    log.log.warning("call_retry")
    log.log.info("episode", episode=0)
    transcript.close()
    assert list(tmp_path.iterdir()) == []
    assert transcript.to_json() == {
        "path": None,
        "mode": "summary",
        "bytes": 0,
        "max_bytes": 64 * 2**20,
        "withheld": 0,
    }


def test_a_folder_that_cannot_hold_it_is_refused_in_one_line(
    tmp_path: Path, write_suite: Callable[..., Path]
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be\n")
    suite = base_suite(
        agents=[
            {"id": "me", "endpoint": "http://127.0.0.1:9/mcp"},
            {"id": "you", "strategy": "always_cooperate"},
        ]
    )
    run = evaluate(
        str(write_suite(suite)),
        "--shared-dir",
        str(make_shared_dir(tmp_path / "SHARED").root),
        "--output",
        str(blocker),
    )
    assert run.exit_code == 2, run.output
    assert run.output.strip().startswith("error: cannot write ") and str(blocker) in run.output
    assert "Traceback" not in run.output and len(run.output.strip().splitlines()) == 1

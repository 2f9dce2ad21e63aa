"""Structured agent logs: one JSON object per line with the fields DESIGN.md names."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from sdk.agent_log import LIMIT_NOTE_ROOM, LOG_LIST_MAX, AgentLog
from sdk.auth import redact
from sdk.errors import FileSystemError
from sdk.timeutil import parse_utc, utc_now
from tests.conftest import TinyDisk


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_message_record_has_every_field(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "agents" / "P01.log.jsonl"
    log = AgentLog(path, "P01")
    payload = {"message_type": "GAME_INVITATION", "conversation_id": "conv-1", "name": "Zoë"}
    log.message("message_received", payload, method="handle_game_invitation")
    log.close()
    (record,) = records(path)
    assert record == {
        "event": "message_received",
        "level": "info",
        "agent_id": "P01",
        "message_type": "GAME_INVITATION",
        "conversation_id": "conv-1",
        "data": payload,
        "method": "handle_game_invitation",
        "timestamp": record["timestamp"],
    }
    assert record["timestamp"].endswith("Z")
    assert abs(parse_utc(record["timestamp"]) - utc_now()) < timedelta(seconds=5)


def test_a_payload_that_is_not_an_object_is_still_logged(tmp_path: Path) -> None:
    log = AgentLog(tmp_path / "a.log.jsonl", "P01")
    log.message("message_received", [1, 2])
    log.close()
    (record,) = records(log.path)
    assert record["message_type"] is None and record["conversation_id"] is None
    assert record["data"] == [1, 2]


def test_long_lists_in_a_message_are_logged_abridged(tmp_path: Path) -> None:
    log = AgentLog(tmp_path / "a.log.jsonl", "LM")
    rows = [{"rank": n, "auth_token": "secret-token"} for n in range(1, LOG_LIST_MAX + 11)]
    log.message(
        "message_sent",
        {"message_type": "LEAGUE_STANDINGS_UPDATE", "standings": rows, "short": [1, 2]},
    )
    log.close()
    (record,) = records(log.path)
    logged = record["data"]["standings"]
    assert [row["rank"] for row in logged[:-1]] == list(range(1, LOG_LIST_MAX + 1))
    assert logged[-1] == "… 10 more (not logged)"
    assert all(row["auth_token"] == redact("secret-token") for row in logged[:-1]), "still redacted"
    assert record["data"]["short"] == [1, 2]


def test_records_are_appended_and_flushed_at_once(tmp_path: Path) -> None:
    path = tmp_path / "a.log.jsonl"
    path.write_text('{"event": "earlier run"}\n')
    log = AgentLog(path, "LM")
    log.log.warning("call_retry", retry=1)
    assert [r["event"] for r in records(path)] == ["earlier run", "call_retry"]
    assert records(path)[1]["level"] == "warning"
    log.close()


def test_exceptions_are_rendered_in_the_record(tmp_path: Path) -> None:
    log = AgentLog(tmp_path / "a.log.jsonl", "REF01")
    try:
        raise KeyError("match R9M9")
    except KeyError:
        log.log.exception("handler_failed", method="start_match")
    log.close()
    (record,) = records(log.path)
    assert record["level"] == "error"
    assert "KeyError" in record["exception"] and "R9M9" in record["exception"]


def test_rename_moves_later_records_to_the_new_file(tmp_path: Path) -> None:
    first = tmp_path / "agents" / "player-unregistered.log.jsonl"
    log = AgentLog(first, "player-unregistered")
    log.log.info("starting")
    second = tmp_path / "agents" / "P03.log.jsonl"
    log.rename(second, "P03")
    log.log.info("registered")
    log.rename(second, "P03")  # the same file again: nothing changes
    log.log.info("still here")
    log.close()
    log.close()
    assert [(r["event"], r["agent_id"]) for r in records(first)] == [
        ("starting", "player-unregistered")
    ]
    assert [(r["event"], r["agent_id"]) for r in records(second)] == [
        ("registered", "P03"),
        ("still here", "P03"),
    ]
    assert log.path == second and log.agent_id == "P03"


def test_a_full_disk_drops_whole_records_and_never_raises(tiny_disk: TinyDisk) -> None:
    log = AgentLog(tiny_disk.root / "P01.log.jsonl", "P01")
    log.log.info("before")
    tiny_disk.fill()
    for _ in range(3):
        log.log.info("while_full", data={f"pad{i}": "x" * 1000 for i in range(8)})  # > a page
    assert log.dropped == 3
    tiny_disk.free()
    log.log.info("after")
    assert log.size == log.path.stat().st_size, "the size counts what was written, only"
    log.close()
    assert [r["event"] for r in records(log.path)] == ["before", "after"]


def test_a_log_the_file_system_refuses_raises_naming_it(tmp_path: Path) -> None:
    (tmp_path / "agents").write_text("a file where the folder should be")
    path = tmp_path / "agents" / "P01.log.jsonl"
    with pytest.raises(
        FileSystemError,
        match=re.escape(
            f"cannot write {path}: {tmp_path}/agents is a file where a folder should be"
        ),
    ):
        AgentLog(path, "P01")


def test_keep_chooses_the_records_written(tmp_path: Path) -> None:
    path = tmp_path / "filtered.log.jsonl"
    seen: list[tuple[str, str]] = []

    def keep(level: str, record: Any) -> bool:
        seen.append((level, record["event"]))
        return level != "info" or record.get("message_type") == "GAME_ERROR"

    log = AgentLog(path, "evaluation", keep=keep)
    log.message("message_sent", {"message_type": "GAME_MOVE_CALL"})
    log.message("message_sent", {"message_type": "GAME_ERROR"})
    log.log.warning("call_retry", retry=1)
    log.log.info("match_state")
    log.close()
    assert [(r["event"], r.get("message_type")) for r in records(path)] == [
        ("message_sent", "GAME_ERROR"),
        ("call_retry", None),
    ]
    assert seen == [
        ("info", "message_sent"),
        ("info", "message_sent"),
        ("warning", "call_retry"),
        ("info", "match_state"),
    ]


def test_a_log_with_max_bytes_stops_there_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "bounded.log.jsonl"
    log = AgentLog(path, "evaluation", max_bytes=4096)
    for number in range(100):
        log.log.info("episode", episode=number, padding="x" * 1000)
    assert log.withheld > 0
    written = records(path)
    note = written[-1]
    assert note["event"] == "log_limit_reached" and note["level"] == "warning"
    assert note["agent_id"] == "evaluation" and note["max_bytes"] == 4096
    assert "records after this one are not written" in note["detail"]
    assert note["timestamp"].endswith("Z")
    kept = [r["episode"] for r in written[:-1]]
    assert kept == list(range(len(kept))), "the records kept are the first ones, in order"
    assert len(kept) + log.withheld == 100, "the note replaces a record: it is counted"
    assert path.stat().st_size == log.size <= 4096
    before_note = log.size - len(path.read_bytes().splitlines(keepends=True)[-1])
    assert 4096 - LIMIT_NOTE_ROOM - before_note > 200, "a small record would still fit"
    log.log.warning("later")
    assert records(path)[-1] == note, "nothing is written after the note, small or not"
    assert log.withheld == 100 - len(kept) + 1
    log.close()


def test_max_bytes_leaves_room_for_the_note(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="max_bytes must be at least 1024"):
        AgentLog(tmp_path / "tiny.log.jsonl", "evaluation", max_bytes=100)

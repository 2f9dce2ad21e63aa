"""A referee's decisions journal (``match_engine.decisions``): what a referee killed between
a match's decision and its match file leaves is written by another referee of the league
on this machine, once the dead one's lock is free; a live referee's journal is left alone,
and nothing already on disk is written over."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from match_engine import decisions as decisions_module
from match_engine.decisions import DECIDED_FOLDER, DecisionLog, recover_orphans
from match_engine.match_file import MatchFile
from sdk.agent_log import AgentLog
from sdk.store import Journal

_HOLDER = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
sys.stdin.read()
"""


def decided(
    match_id: str, *, referee_id: str = "REF01", assignment: int | None = 1
) -> dict[str, Any]:
    """A match record as the engine journals it when the match is decided."""
    return {
        "match_id": match_id,
        "league_id": "L1",
        "round_id": 1,
        "game_type": "even_odd",
        "referee_id": referee_id,
        "assignment": assignment,
        "conversation_id": f"L1:{match_id}",
        "players": [],
        "lifecycle": [{"state": "FINISHED", "at": "2026-11-30T00:00:00Z"}],
        "transcript": [],
        "result": {"report": {"winner": "P01"}},
        "deviations": [],
        "stages": [],
        "report_status": "pending",
        "report_detail": None,
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    made = tmp_path / "matches" / "L1"
    (made / DECIDED_FOLDER).mkdir(parents=True)
    return made


@pytest.fixture
def log(tmp_path: Path) -> Iterator[AgentLog]:
    made = AgentLog(tmp_path / "referee.log", "REF09")
    yield made
    made.close()


def left_by_a_dead_referee(folder: Path, *records: dict[str, Any], extra: str = "") -> Path:
    journal = folder / DECIDED_FOLDER / "REF01.4242.jsonl"
    lines = "".join(json.dumps(record) + "\n" for record in records)
    journal.write_text(lines + extra)
    return journal


def read(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def test_a_dead_referees_decided_records_are_written_as_its_first_write_left_them(
    folder: Path,
) -> None:
    journal = left_by_a_dead_referee(folder, decided("R1M1"), decided("R1M2"))
    (recovered,) = recover_orphans(folder, own=folder / DECIDED_FOLDER / "REF09.1.jsonl")
    assert sorted(recovered.written) == [folder / "R1M1.json", folder / "R1M2.json"]
    assert recovered.problems == []
    for match_id in ("R1M1", "R1M2"):
        document = read(folder / f"{match_id}.json")
        assert document["report_status"] == "pending"
        assert document["lifecycle"][-1]["state"] == "FINISHED"
        assert document["result"]["report"]["winner"] == "P01"
    assert not journal.exists()
    assert recover_orphans(folder, own=folder / DECIDED_FOLDER / "REF09.1.jsonl") == []


def test_a_record_already_in_its_file_is_not_written_over(folder: Path) -> None:
    final = decided("R1M1") | {"report_status": "reported"}
    (folder / "R1M1.json").write_text(json.dumps(final))
    left_by_a_dead_referee(folder, decided("R1M1"))
    (recovered,) = recover_orphans(folder, own=folder / "none")
    assert recovered.written == []
    assert read(folder / "R1M1.json")["report_status"] == "reported"


def test_a_record_of_a_run_whose_match_another_run_holds_goes_to_superseded(
    folder: Path,
) -> None:
    counted = decided("R1M1", referee_id="REF02", assignment=2) | {"report_status": "reported"}
    (folder / "R1M1.json").write_text(json.dumps(counted))
    left_by_a_dead_referee(folder, decided("R1M1"))
    (recovered,) = recover_orphans(folder, own=folder / "none")
    superseded = folder / "superseded" / "R1M1.1.REF01.json"
    assert recovered.written == [superseded]
    assert read(superseded)["referee_id"] == "REF01"
    assert read(folder / "R1M1.json")["referee_id"] == "REF02"


def test_a_torn_last_line_is_dropped_and_a_damaged_one_keeps_the_journal(folder: Path) -> None:
    left_by_a_dead_referee(folder, decided("R1M1"), extra='{"match_id": "R1M2", "lea')
    (recovered,) = recover_orphans(folder, own=folder / "none")
    assert recovered.written == [folder / "R1M1.json"] and recovered.problems == []

    journal = left_by_a_dead_referee(folder, decided("R1M3"), extra="not json\n")
    (recovered,) = recover_orphans(folder, own=folder / "none")
    assert recovered.written == [folder / "R1M3.json"]
    assert recovered.problems == ["line 2 is not valid JSON: Expecting value"]
    assert not journal.exists() and journal.with_suffix(".damaged").exists()


def test_a_record_whose_ids_cannot_name_a_file_is_not_written(folder: Path) -> None:
    journal = left_by_a_dead_referee(folder, decided("../../escape"), decided("R1M1"))
    (recovered,) = recover_orphans(folder, own=folder / "none")
    assert recovered.written == [folder / "R1M1.json"]
    assert recovered.problems == [
        "line 1 is not a match record (ValueError(\"match_id '../../escape' cannot name a file\"))"
    ]
    assert not (folder.parent.parent / "escape.json").exists()
    assert journal.with_suffix(".damaged").exists()


def test_a_live_referees_journal_is_left_alone_until_it_dies(folder: Path) -> None:
    journal = left_by_a_dead_referee(folder, decided("R1M1"))
    with subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(journal)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
            assert recover_orphans(folder, own=folder / "none") == []
            assert journal.exists() and not (folder / "R1M1.json").exists()
        finally:
            holder.kill()
            holder.wait(timeout=10)
    (recovered,) = recover_orphans(folder, own=folder / "none")
    assert recovered.written == [folder / "R1M1.json"]


def record(folder: Path, decisions: DecisionLog, match_id: str) -> MatchFile:
    made = MatchFile(
        folder / f"{match_id}.json",
        match_id=match_id,
        league_id="L1",
        round_id=1,
        game_type="even_odd",
        referee_id="REF09",
        conversation_id=f"L1:{match_id}",
        seats=[],
        report_status="pending",
        assignment=1,
        decisions=decisions,
    )
    made.enter("FINISHED")
    return made


async def test_the_journal_holds_decided_records_until_their_files_do_then_empties(
    folder: Path, log: AgentLog
) -> None:
    decisions = DecisionLog(folder, "REF09", log)
    first, second = record(folder, decisions, "R1M1"), record(folder, decisions, "R1M2")
    await first.decided()
    await second.decided()
    assert [line["match_id"] for line in Journal.read(decisions.path)] == ["R1M1", "R1M2"]
    assert not first.path.exists() and not second.path.exists()
    await first.save()
    assert first.path.exists()
    assert len(Journal.read(decisions.path)) == 2, "R1M2 still waits for its file"
    await second.save()
    assert decisions.path.stat().st_size == 0
    await decisions.close()
    assert not decisions.path.exists(), "a referee that stops with nothing waiting leaves none"


async def test_a_referee_stopping_with_a_record_not_in_its_file_leaves_it_to_another(
    folder: Path, log: AgentLog
) -> None:
    decisions = DecisionLog(folder, "REF09", log)
    await record(folder, decisions, "R1M1").decided()
    await decisions.close()
    assert decisions.path.exists()
    other = DecisionLog(folder, "REF10", log)
    other.sweep()
    await other.close()
    assert read(folder / "R1M1.json")["referee_id"] == "REF09"
    assert not decisions.path.exists()


async def test_a_journal_that_always_has_a_record_waiting_is_written_again_with_those_only(
    folder: Path, log: AgentLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player that holds every GAME_OVER keeps one of its matches waiting at all times: the
    journal is then never empty, and is compacted instead of growing with the league."""
    monkeypatch.setattr(decisions_module, "COMPACT_AFTER", 3)
    decisions = DecisionLog(folder, "REF09", log)
    first = decisions.path
    held = record(folder, decisions, "R1M1")
    await held.decided()
    for match_id in ("R1M2", "R1M3"):
        played = record(folder, decisions, match_id)
        await played.decided()
        await played.save()
    assert decisions.path != first and not first.exists(), "the next generation took over"
    assert [line["match_id"] for line in Journal.read(decisions.path)] == ["R1M1"]
    assert [p.name for p in (folder / DECIDED_FOLDER).iterdir()] == [decisions.path.name]
    await held.save()
    assert decisions.path.stat().st_size == 0
    await decisions.close()
    assert list((folder / DECIDED_FOLDER).iterdir()) == []

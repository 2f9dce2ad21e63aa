"""The JSON-file store: atomic writes, stamped documents, and the crash-safe journal."""

from __future__ import annotations

import errno
import json
import os
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from sdk.errors import FileSystemError
from sdk.store import (
    SCHEMA_VERSION,
    BadLine,
    Journal,
    StoreError,
    atomic_write_json,
    backup_path,
    load_with_backup,
    quarantine,
    read_json,
    remove_temp_files,
    stage_document,
    sync_folder,
    write_document,
)
from sdk.timeutil import parse_utc, utc_now
from tests.conftest import TinyDisk


def leftovers(folder: Path) -> list[str]:
    """Temp files a write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- atomic_write_json ----------------------------------------------------------------------


def test_atomic_write_creates_folders_and_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "data" / "leagues" / "L1" / "standings.json"
    payload = {"standings": [{"player_id": "P01", "points": 3}], "name": "Zoë"}
    atomic_write_json(path, payload)
    assert read_json(path) == payload
    assert path.read_text(encoding="utf-8").endswith("}\n")
    assert "Zoë" in path.read_text(encoding="utf-8"), "non-ASCII is written as is"
    assert leftovers(path.parent) == []


def test_a_written_file_is_private_whatever_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    previous = os.umask(0o022)
    try:
        atomic_write_json(path, {"token": "kept"})
        staged = stage_document(tmp_path / "next.json", {"token": "kept"})
    finally:
        os.umask(previous)
    assert oct(path.stat().st_mode & 0o777) == oct(0o600)
    assert oct(staged.stat().st_mode & 0o777) == oct(0o600), "not even the temp file is open"


def test_a_temp_file_left_under_the_next_name_is_skipped_not_overwritten(tmp_path: Path) -> None:
    first = stage_document(tmp_path / "history.json", {"n": 1})
    prefix, number = re.fullmatch(r"(\.history\.json\.[0-9a-f]{8})(\d+)\.tmp", first.name).groups()
    left = tmp_path / f"{prefix}{int(number) + 1}.tmp"
    left.write_text("left by a killed process")
    atomic_write_json(tmp_path / "history.json", {"n": 2})
    assert read_json(tmp_path / "history.json") == {"n": 2}
    assert left.read_text() == "left by a killed process"


def test_a_file_is_strict_json_indented_or_compact(tmp_path: Path) -> None:
    """Readable by any JSON parser: a float that is not a number is written null, keys that
    are not strings as strings; indented by 2, or on one line when compact."""
    payload = {"points": float("nan"), "by_round": {1: "R1"}, "rows": [{"a": 1}]}
    expected = {"points": None, "by_round": {"1": "R1"}, "rows": [{"a": 1}]}
    indented, compact = tmp_path / "indented.json", tmp_path / "compact.json"
    atomic_write_json(indented, payload)
    atomic_write_json(compact, payload, compact=True)
    for path in (indented, compact):
        assert json.loads(path.read_text(), parse_constant=pytest.fail) == expected
    assert indented.read_text().startswith('{\n  "points": null,')
    assert compact.read_text().count("\n") == 1


def test_atomic_write_replaces_the_old_content(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"version": 1, "long": "x" * 1000})
    atomic_write_json(path, {"version": 2})
    assert read_json(path) == {"version": 2}


def test_a_failure_while_serialising_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"version": 1})
    before = path.read_bytes()
    with pytest.raises(TypeError):
        atomic_write_json(path, {"version": 2, "half": "written", "bad": object()})
    assert path.read_bytes() == before
    assert leftovers(tmp_path) == []


def test_a_failure_while_renaming_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "state.json"
    atomic_write_json(path, {"version": 1})

    def no_rename(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(OSError):
        atomic_write_json(path, {"version": 2})
    monkeypatch.undo()
    assert read_json(path) == {"version": 1}
    assert leftovers(tmp_path) == []


def test_write_document_stamps_schema_version_and_last_updated(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    document = write_document(path, {"player_id": "P01", "matches": []})
    assert read_json(path) == document
    assert document["schema_version"] == SCHEMA_VERSION
    assert document["player_id"] == "P01" and document["matches"] == []
    stamp = document["last_updated"]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", stamp), stamp
    assert abs(parse_utc(stamp) - utc_now()) < timedelta(seconds=5)


def test_a_staged_document_is_whole_on_disk_beside_its_file_until_moved_into_place(
    tmp_path: Path,
) -> None:
    """The match file's write: staged (and fsynced) outside the folder's lock, renamed into
    place under it, the folder synced after."""
    path = tmp_path / "matches" / "R1M1.json"
    staged = stage_document(path, {"match_id": "R1M1"})
    assert staged.parent == path.parent and staged.name.startswith(".R1M1.json.")
    assert not path.exists()
    document = read_json(staged)
    assert (document["schema_version"], document["match_id"]) == (SCHEMA_VERSION, "R1M1")
    os.replace(staged, path)
    sync_folder(path.parent)
    assert read_json(path) == document and leftovers(path.parent) == []


def test_staging_over_a_file_where_the_folder_should_be_names_it(tmp_path: Path) -> None:
    (tmp_path / "matches").write_text("a file")
    with pytest.raises(FileSystemError, match="is a file where a folder should be"):
        stage_document(tmp_path / "matches" / "R1M1.json", {"match_id": "R1M1"})


# --- read_json ------------------------------------------------------------------------------


def test_read_json_of_a_corrupt_file_names_the_file_and_the_place(tmp_path: Path) -> None:
    path = tmp_path / "standings.json"
    path.write_text('{\n  "version": 3,\n  "standings": [\n')
    with pytest.raises(StoreError) as caught:
        read_json(path)
    assert str(path) in str(caught.value)
    assert "line 4" in str(caught.value)


def test_read_json_of_a_file_that_is_not_utf8_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "standings.json"
    path.write_bytes(b'{"name": "Zo\xeb"}')
    with pytest.raises(StoreError, match=re.escape(str(path))):
        read_json(path)


def test_read_json_of_a_folder_is_the_file_system_s_refusal_not_damage(tmp_path: Path) -> None:
    with pytest.raises(FileSystemError) as caught:
        read_json(tmp_path)
    assert str(caught.value) == (
        f"cannot read {tmp_path}: it is a directory where a file should be; move the directory away"
    )
    assert caught.value.errno == errno.EISDIR and not isinstance(caught.value, StoreError)


def test_a_directory_where_a_file_should_be_is_never_recovered_from_its_backup(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rounds.json"
    write_document(path, {"version": 1}, keep_backup=True)
    write_document(path, {"version": 2}, keep_backup=True)
    path.unlink()
    path.mkdir()
    with pytest.raises(FileSystemError, match=re.escape(f"cannot read {path}: it is a dir")):
        load_with_backup(path, _version)
    assert read_json(backup_path(path))["version"] == 1, "the backup is left as it was"


def test_a_write_over_a_directory_names_it_and_leaves_no_temp_file(tmp_path: Path) -> None:
    path = tmp_path / "agents.json"
    path.mkdir()
    with pytest.raises(FileSystemError, match=re.escape(f"cannot write {path}: it is a dir")):
        atomic_write_json(path, {"agents": []})
    assert leftovers(tmp_path) == []


def test_a_file_where_a_folder_should_be_is_named(tmp_path: Path) -> None:
    (tmp_path / "data").write_text("a file")
    path = tmp_path / "data" / "leagues" / "L1" / "agents.json"
    with pytest.raises(FileSystemError) as caught:
        atomic_write_json(path, {"agents": []})
    assert str(caught.value) == (
        f"cannot write {path}: {tmp_path / 'data'} is a file where a folder should be; move it away"
    )


def test_read_json_of_a_missing_file_is_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "nowhere.json")


# --- Journal --------------------------------------------------------------------------------

RECORDS = [
    {"match_id": "R1M1", "winner": "P01", "score": {"P01": 3, "P02": 0}},
    {"match_id": "R1M2", "winner": None, "score": {"P03": 1, "P04": 1}, "name": "Zoë"},
]


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    return tmp_path / "leagues" / "L1" / "results.journal.jsonl"


def write_records(path: Path, records: list[dict[str, Any]]) -> None:
    journal = Journal(path)
    for record in records:
        journal.append(record)
    journal.close()


def test_journal_appends_and_reads_back(journal_path: Path) -> None:
    assert Journal.read(journal_path) == []
    write_records(journal_path, RECORDS[:1])
    write_records(journal_path, RECORDS[1:])
    assert Journal.read(journal_path) == RECORDS
    assert journal_path.read_bytes().count(b"\n") == 2


async def test_a_truncated_journal_is_the_same_file_emptied_and_appended_to_from_its_start(
    journal_path: Path,
) -> None:
    journal = Journal(journal_path)
    journal.append(RECORDS[0], sync=False)
    await journal.durable()
    inode = journal_path.stat().st_ino
    journal.truncate()
    assert journal_path.stat().st_size == 0 and journal_path.stat().st_ino == inode
    journal.append(RECORDS[1], sync=False)
    await journal.durable()
    journal.close()
    assert journal_path.read_bytes().count(b"\n") == 1, "no hole where the old line was"
    assert Journal.read(journal_path) == RECORDS[1:]


def test_an_append_refused_by_a_full_disk_leaves_nothing_and_never_comes_back(
    tiny_disk: TinyDisk,
) -> None:
    path = tiny_disk.root / "journal.jsonl"
    journal = Journal(path)
    journal.append(RECORDS[0])
    refused = {"match_id": "REFUSED", "pad": "x" * 9000}  # spans a page: a part may fit
    tiny_disk.fill()
    for _ in range(3):
        with pytest.raises(StoreError, match="No space left on device"):
            journal.append(refused)
        assert Journal.read(path) == RECORDS[:1], "a refused line left bytes behind"
    tiny_disk.free()
    journal.append(RECORDS[1])
    journal.close()
    assert Journal.read(path) == RECORDS, "the refused line was written with the next one"


async def test_a_group_commit_after_a_refused_append_covers_the_good_lines(
    tiny_disk: TinyDisk,
) -> None:
    path = tiny_disk.root / "journal.jsonl"
    journal = Journal(path)
    journal.append(RECORDS[0], sync=False)
    tiny_disk.fill()
    with pytest.raises(StoreError):
        journal.append({"match_id": "REFUSED", "pad": "x" * 9000}, sync=False)
    await journal.durable()
    tiny_disk.free()
    journal.append(RECORDS[1], sync=False)
    await journal.durable()
    journal.close()
    assert Journal.read(path) == RECORDS


def test_a_torn_last_line_is_dropped_on_read_and_cut_on_reopen(journal_path: Path) -> None:
    write_records(journal_path, RECORDS[:1])
    whole = json.dumps(RECORDS[1])
    with open(journal_path, "a", encoding="utf-8") as handle:
        handle.write(whole[: len(whole) // 2])  # the crash
    assert Journal.read(journal_path) == RECORDS[:1]

    journal = Journal(journal_path)
    assert Journal.read(journal_path) == RECORDS[:1]
    journal.append(RECORDS[1])
    journal.close()
    assert Journal.read(journal_path) == RECORDS
    assert journal_path.read_text(encoding="utf-8").splitlines()[1] == json.dumps(
        RECORDS[1], ensure_ascii=False, separators=(",", ":")
    )


@pytest.mark.parametrize(
    "torn",
    [
        b'{"match_id":"R1M3","score":{"P01":3}',  # cut right after a closing brace
        '{"match_id":"R1M3","name":"Zo\u00eb"}'.encode()[:-3],  # cut inside a UTF-8 character
        b'{"match_id":"R1M3"}',  # whole JSON, but its newline never reached the disk
    ],
    ids=["after-brace", "mid-character", "no-newline"],
)
def test_any_line_without_its_newline_is_torn(journal_path: Path, torn: bytes) -> None:
    write_records(journal_path, RECORDS)
    with open(journal_path, "ab") as handle:
        handle.write(torn)
    assert Journal.read(journal_path) == RECORDS
    Journal(journal_path).close()
    assert Journal.read(journal_path) == RECORDS
    assert journal_path.read_bytes().endswith(b"}\n")


@pytest.mark.parametrize(
    "bad_line",
    [b'{"match_id": "R1M1", "win', b"not json at all", b"\xff\xfe garbage"],
    ids=["half-record", "text", "not-utf8"],
)
def test_a_corrupt_complete_line_raises_store_error(journal_path: Path, bad_line: bytes) -> None:
    write_records(journal_path, RECORDS[:1])
    with open(journal_path, "ab") as handle:
        handle.write(bad_line + b"\n")
    write_records(journal_path, RECORDS[1:])
    with pytest.raises(StoreError) as caught:
        Journal.read(journal_path)
    assert str(journal_path) in str(caught.value)
    assert "line 2" in str(caught.value)


def test_the_stamps_of_a_document_cannot_be_overridden(tmp_path: Path) -> None:
    written = write_document(
        tmp_path / "doc.json", {"schema_version": "0.0.1", "last_updated": "never", "x": 1}
    )
    assert written["schema_version"] == SCHEMA_VERSION and written["last_updated"] != "never"
    assert written["x"] == 1


# --- backups and recovery -------------------------------------------------------------------


def _version(document: Any) -> int:
    """A parser for load_with_backup: the document's version, or KeyError/TypeError."""
    return int(document["version"])


def test_keep_backup_keeps_the_version_replaced(tmp_path: Path) -> None:
    path = tmp_path / "rounds.json"
    write_document(path, {"version": 1}, keep_backup=True)
    assert not backup_path(path).exists(), "a first write has nothing to keep"
    write_document(path, {"version": 2}, keep_backup=True)
    write_document(path, {"version": 3}, keep_backup=True)
    assert read_json(path)["version"] == 3
    assert read_json(backup_path(path))["version"] == 2
    assert backup_path(path).name == "rounds.json.bak"
    assert leftovers(tmp_path) == []


def test_without_keep_backup_no_backup_is_written(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    atomic_write_json(path, {"version": 1})
    atomic_write_json(path, {"version": 2})
    assert not backup_path(path).exists()


def test_the_backup_is_copied_where_files_cannot_be_linked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "secrets.json"
    atomic_write_json(path, {"version": 1}, keep_backup=True)
    os.chmod(path, 0o600)

    def no_links(src: Any, dst: Any) -> None:
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    atomic_write_json(path, {"version": 2}, keep_backup=True)
    assert read_json(backup_path(path)) == {"version": 1}
    assert backup_path(path).stat().st_mode & 0o777 == 0o600, "the copy keeps the mode"
    assert leftovers(tmp_path) == []


def test_a_failed_write_leaves_the_file_as_it_was_and_its_backup_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rounds.json"
    atomic_write_json(path, {"version": 1}, keep_backup=True)
    atomic_write_json(path, {"version": 2}, keep_backup=True)
    real_replace = os.replace

    def fail_on_the_file_itself(src: Any, dst: Any) -> None:
        if Path(dst) == path:
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", fail_on_the_file_itself)
    with pytest.raises(OSError):
        atomic_write_json(path, {"version": 3}, keep_backup=True)
    monkeypatch.undo()
    assert read_json(path) == {"version": 2}
    assert read_json(backup_path(path)) == {"version": 2}, "the backup is a whole file"
    assert leftovers(tmp_path) == []


def test_load_with_backup_reads_the_file_itself_when_it_is_sound(tmp_path: Path) -> None:
    path = tmp_path / "rounds.json"
    assert load_with_backup(path, _version) is None, "nothing written yet"
    write_document(path, {"version": 1}, keep_backup=True)
    write_document(path, {"version": 2}, keep_backup=True)
    loaded = load_with_backup(path, _version)
    assert loaded is not None
    assert (loaded.value, loaded.source, loaded.problem) == (2, path, None)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_text('{"version": 2, "rou'),  # truncated
        lambda path: path.write_bytes(b"\xff\xfe\x00"),  # garbage
        lambda path: path.write_text('{"rounds": []}'),  # valid JSON, not what it should hold
        lambda path: path.write_text("[1, 2]"),  # another shape
        lambda path: path.unlink(),  # gone, beside its backup
    ],
    ids=["truncated", "garbage", "missing-field", "wrong-shape", "missing"],
)
def test_a_damaged_file_is_read_from_its_backup_and_the_problem_named(
    tmp_path: Path, damage: Any
) -> None:
    path = tmp_path / "rounds.json"
    write_document(path, {"version": 1}, keep_backup=True)
    write_document(path, {"version": 2}, keep_backup=True)
    damage(path)
    loaded = load_with_backup(path, _version)
    assert loaded is not None
    assert (loaded.value, loaded.source) == (1, backup_path(path))
    assert loaded.problem is not None and str(path) in loaded.problem


def test_a_damaged_file_without_a_usable_backup_is_a_store_error_naming_both(
    tmp_path: Path,
) -> None:
    path = tmp_path / "rounds.json"
    path.write_text("{")
    with pytest.raises(StoreError) as caught:
        load_with_backup(path, _version)
    assert str(path) in str(caught.value) and "rounds.json.bak is missing" in str(caught.value)
    backup_path(path).write_text('{"no": "version"}')
    with pytest.raises(StoreError, match="rounds.json.bak does not hold what it should"):
        load_with_backup(path, _version)


def test_quarantine_keeps_a_copy_beside_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "standings.json"
    path.write_text("{broken")
    first, second = quarantine(path), quarantine(path)
    assert path.read_text() == first.read_text() == second.read_text() == "{broken"
    assert first != second and first.name.startswith("standings.json.corrupt-")
    assert re.fullmatch(r"standings\.json\.corrupt-\d{8}T\d{6}Z", first.name), first.name


def test_journal_scan_names_every_damaged_line_and_keeps_the_rest(journal_path: Path) -> None:
    write_records(journal_path, RECORDS[:1])
    with open(journal_path, "ab") as handle:
        handle.write(b'{"match_id": "R1M9", "wi\n[1, 2]\n\xff\n')
    write_records(journal_path, RECORDS[1:])
    with open(journal_path, "ab") as handle:
        handle.write(b'{"match_id": "R2')  # a torn tail is a crash, not damage
    records, bad = Journal.scan(journal_path)
    assert records == [(1, RECORDS[0]), (5, RECORDS[1])]
    assert [line.number for line in bad] == [2, 3, 4]
    assert "not valid JSON" in bad[0].problem and "list" in bad[1].problem
    assert "UTF-8" in bad[2].problem
    assert isinstance(bad[0], BadLine)


def test_journal_rewrite_keeps_the_damaged_file_and_writes_the_good_records(
    journal_path: Path,
) -> None:
    write_records(journal_path, RECORDS[:1])
    with open(journal_path, "ab") as handle:
        handle.write(b"garbage\n")
    write_records(journal_path, RECORDS[1:])
    damaged = journal_path.read_bytes()
    kept = Journal.rewrite(journal_path, RECORDS)
    assert kept.read_bytes() == damaged
    assert Journal.read(journal_path) == RECORDS
    journal = Journal(journal_path)
    journal.append({"match_id": "R2M1"})
    journal.close()
    assert [r["match_id"] for r in Journal.read(journal_path)] == ["R1M1", "R1M2", "R2M1"]
    assert leftovers(journal_path.parent) == []


async def test_a_journal_deleted_or_replaced_under_its_writer_is_lost_and_restored_whole(
    journal_path: Path,
) -> None:
    journal = Journal(journal_path)
    journal.append(RECORDS[0])
    assert not journal.lost()
    journal_path.unlink()
    assert journal.lost(), "deleted: appends would go to a file nobody reads"
    journal.append(RECORDS[1], sync=False)  # to the deleted file: its writer keeps it
    journal.restore(RECORDS)
    await journal.durable()  # settled by the restore: the records are in the new file
    assert not journal.lost() and Journal.read(journal_path) == RECORDS
    journal.append({"match_id": "R2M1"})
    assert [r["match_id"] for r in Journal.read(journal_path)] == ["R1M1", "R1M2", "R2M1"]

    journal_path.rename(journal_path.with_suffix(".moved"))
    journal_path.write_text("")
    assert journal.lost(), "replaced by another file at its path"
    journal.close()
    assert leftovers(journal_path.parent) == []


def test_temp_files_a_kill_left_are_removed_and_nothing_else(tmp_path: Path) -> None:
    write_document(tmp_path / "rounds.json", {"version": 1}, keep_backup=True)
    write_document(tmp_path / "rounds.json", {"version": 2}, keep_backup=True)
    (tmp_path / ".rounds.json.abc123.tmp").write_text('{"vers')
    (tmp_path / ".rounds.json.ff00.bak.tmp").write_text("{}")
    assert [p.name for p in remove_temp_files(tmp_path)] == [
        ".rounds.json.abc123.tmp",
        ".rounds.json.ff00.bak.tmp",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rounds.json", "rounds.json.bak"]
    assert remove_temp_files(tmp_path / "nowhere") == []

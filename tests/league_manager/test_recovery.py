"""Start-up on damaged data files: the League Manager's book (rounds.json, standings.json,
journal.jsonl) and its registry (agents.json, secrets.json, registry.jsonl) recover from a
journal, the previous version of a file or the registered players, say which file and how,
and refuse to start, naming the file, when nothing can be recovered; never a silent reset."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from league_manager.agents import AgentRegistry
from league_manager.book import LeagueBook
from league_manager.records import LeagueStatus, ResultRecord, ScheduleRecipe
from league_manager.referee_watch import view_of
from sdk.config import ScoringConfig
from sdk.store import StoreError, backup_path, read_json
from tests.conftest import TinyDisk
from tests.league_manager.conftest import meta, record_result, schedule_league

LEAGUE = "league_test"
SCORING = ScoringConfig()
PLAYERS = [("P01", "Alice"), ("P02", "Bob"), ("P03", "Carol"), ("P04", "Dan")]
RECIPE = ScheduleRecipe(PLAYERS)


def result_of(book: LeagueBook, match_id: str) -> ResultRecord:
    """PLAYER_A wins."""
    match = book.schedule.match(match_id)
    assert match is not None
    winner, loser = match.player_ids
    return ResultRecord.of(
        match_id=match_id,
        round_id=match.round_id,
        referee_id="REF01",
        outcomes={winner: "WIN", loser: "LOSS"},
        points={winner: SCORING.win, loser: SCORING.loss},
        winner=winner,
        details={},
        recorded_at="2026-01-01T00:00:00Z",
    )


def open_book(league_dir: Path, recipe: ScheduleRecipe | None = RECIPE) -> LeagueBook:
    return LeagueBook.open(league_dir, LEAGUE, SCORING, recipe)


@pytest.fixture
def league_dir(tmp_path: Path) -> Path:
    """A league of four stopped in round 2: round 1's two results and one of round 2's
    journaled, the round snapshots written as the round flow writes them."""
    folder = tmp_path / "leagues" / LEAGUE
    book = open_book(folder)
    schedule_league(book, PLAYERS)
    book.schedule.mark_league(LeagueStatus.RUNNING)
    first, second = book.schedule.rounds[0], book.schedule.rounds[1]
    book.schedule.mark_round(first, "RUNNING")
    for match in book.schedule.open_round(first):
        record_result(book, result_of(book, match.match_id))
    book.schedule.mark_round(first, "COMPLETED")
    book.standings.write()
    book.schedule.mark_round(second, "RUNNING")
    record_result(book, result_of(book, book.schedule.open_round(second)[0].match_id))
    book.close()
    return folder


@pytest.fixture
def expected(league_dir: Path) -> Iterator[dict[str, Any]]:
    """What a sound restart of ``league_dir`` gives: status, results and standings."""
    book = open_book(league_dir)
    yield {
        "status": book.schedule.status,
        "results": sorted(book.results),
        "standings": book.standings.document()["standings"],
        "schedule": [(m.match_id, m.player_ids) for m in book.schedule.iter_matches()],
    }
    book.close()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def check_recovered(book: LeagueBook, expected: dict[str, Any]) -> None:
    assert book.schedule.status == expected["status"]
    assert sorted(book.results) == expected["results"]
    assert book.standings.document()["standings"] == expected["standings"]
    assert [(m.match_id, m.player_ids) for m in book.schedule.iter_matches()] == expected[
        "schedule"
    ]


# --- a plain restart --------------------------------------------------------------------------


def test_a_restart_mid_round_asks_only_about_the_round_in_flight(league_dir: Path) -> None:
    book = open_book(league_dir)
    try:
        assert book.recovery_notes == []
        assert book.schedule.status == LeagueStatus.RUNNING and len(book.results) == 3
        round_two = {m.match_id for m in book.schedule.round_matches(book.schedule.rounds[1])}
        assert book.unsettled == round_two - set(book.results)
        on_disk = read_json(league_dir / "standings.json")
        assert on_disk["version"] == 3, "the snapshot lagging the journal is written again"
        assert on_disk["standings"] == book.standings.document()["standings"]
    finally:
        book.close()


# --- rounds.json --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[:100]),
        lambda path: path.write_text('{"status": "RUNNING"}'),
        lambda path: path.unlink(),
    ],
    ids=["truncated", "fields-missing", "missing"],
)
def test_damaged_rounds_json_comes_back_from_its_backup(
    league_dir: Path, expected: dict[str, Any], damage: Any
) -> None:
    path = league_dir / "rounds.json"
    backup = backup_path(path).read_bytes()
    damage(path)
    book = open_book(league_dir)
    try:
        check_recovered(book, expected)
        notes = " ".join(book.recovery_notes)
        assert "rounds.json" in notes and "rounds.json.bak" in notes, notes
        assert book.unsettled >= {
            m.match_id for m in book.schedule.round_matches(book.schedule.rounds[1])
        } - set(book.results)
    finally:
        book.close()
    assert read_json(path)["status"] == "RUNNING", "rounds.json is whole again"
    assert backup_path(path).read_bytes() == backup, "the damage never reaches the backup"


def test_rounds_json_and_its_backup_lost_are_made_again_from_the_players(
    league_dir: Path, expected: dict[str, Any]
) -> None:
    (league_dir / "rounds.json").write_text("not json")
    backup_path(league_dir / "rounds.json").write_text("{}")
    book = open_book(league_dir)
    try:
        check_recovered(book, expected)
        assert "made the schedule again from the 4 registered players" in " ".join(
            book.recovery_notes
        )
        assert book.unsettled == {
            m.match_id for m in book.schedule.round_matches(book.schedule.rounds[1])
        } - set(book.results), (
            "without the file's statuses, the round the journal leaves open is in flight"
        )
    finally:
        book.close()
    assert len(list(league_dir.glob("rounds.json.corrupt-*"))) == 1
    assert len(list(league_dir.glob("rounds.json.bak.corrupt-*"))) == 1


def test_without_a_schedule_or_players_to_remake_it_start_up_refuses_and_changes_nothing(
    league_dir: Path,
) -> None:
    (league_dir / "rounds.json").write_text("not json")
    backup_path(league_dir / "rounds.json").unlink()
    before = snapshot(league_dir)
    with pytest.raises(StoreError) as caught:
        open_book(league_dir, recipe=None)
    message = str(caught.value)
    assert message.startswith("cannot start: ") and "rounds.json" in message
    assert "restore" in message and "\n" not in message
    assert snapshot(league_dir) == before


def test_results_without_any_schedule_are_never_a_new_league(league_dir: Path) -> None:
    (league_dir / "rounds.json").unlink()
    backup_path(league_dir / "rounds.json").unlink()
    with pytest.raises(StoreError, match="rounds.json is missing but .*journal.jsonl holds"):
        open_book(league_dir, recipe=None)


def test_a_schedule_made_from_other_players_than_the_journal_is_refused(league_dir: Path) -> None:
    (league_dir / "rounds.json").write_text("{}")
    backup_path(league_dir / "rounds.json").unlink()
    others = ScheduleRecipe([("P01", "Alice"), ("P02", "Bob"), ("P03", "Carol"), ("P05", "Eve")])
    with pytest.raises(StoreError, match="do not belong together"):
        open_book(league_dir, others)


# --- standings.json -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2]),
        lambda path: path.write_text('{"standings": 7}'),
        lambda path: path.unlink(),
    ],
    ids=["truncated", "not-standings", "missing"],
)
def test_damaged_standings_json_is_written_again_from_the_journal(
    league_dir: Path, expected: dict[str, Any], damage: Any
) -> None:
    path = league_dir / "standings.json"
    damage(path)
    book = open_book(league_dir)
    try:
        check_recovered(book, expected)
        assert any("standings.json" in note for note in book.recovery_notes)
    finally:
        book.close()
    on_disk = read_json(path)
    assert on_disk["standings"] == expected["standings"] and on_disk["version"] == 3


def test_standings_json_edited_to_disagree_with_the_journal_is_replaced_and_said(
    league_dir: Path, expected: dict[str, Any]
) -> None:
    open_book(league_dir).close()  # the snapshot catches up with the journal
    path = league_dir / "standings.json"
    document = read_json(path)
    document["standings"][0]["points"] += 100
    path.write_text(json.dumps(document))
    book = open_book(league_dir)
    book.close()
    assert any("disagrees with the journal" in note for note in book.recovery_notes)
    assert read_json(path)["standings"] == expected["standings"]


# --- journal.jsonl ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad_line",
    [
        '{"match_id": "R1M2", "round_id": 1, "refer',
        "\x00\x00\x00\x00",
        '{"match_id": "R1M2", "round_id": "one"}',
        '{"match_id": "R1M2", "round_id": 1, "referee_id": "REF01", "outcomes": {"P1": "WIN", '
        '"P2": "LOSS"}, "points": {"P1": 3, "P9": 0}, "winner": "P1", "details": {}, '
        '"recorded_at": "2026-01-01T00:00:00Z"}',
    ],
    ids=["torn", "zeros", "not-a-result", "points-of-others"],
)
def test_a_damaged_line_in_the_middle_of_the_journal_loses_only_its_match(
    league_dir: Path, bad_line: str
) -> None:
    path = league_dir / "journal.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lost = json.loads(lines[1])["match_id"]
    lines[1] = bad_line + "\n"
    path.write_text("".join(lines))
    book = open_book(league_dir)
    try:
        assert set(book.results) == {
            json.loads(lines[0])["match_id"],
            json.loads(lines[2])["match_id"],
        }
        assert lost in book.unsettled, "the referee is asked for the lost result first"
        assert book.schedule.rounds[0].status == "RUNNING", "its round is played again"
        assert book.schedule.current_round() is book.schedule.rounds[0]
        notes = " ".join(book.recovery_notes)
        assert "journal.jsonl: line 2" in notes and "round(s) 1" in notes, notes
    finally:
        book.close()
    kept = list(league_dir.glob("journal.jsonl.corrupt-*"))
    assert len(kept) == 1 and bad_line.encode() in kept[0].read_bytes()
    book = open_book(league_dir)
    book.close()
    assert book.recovery_notes == [], "the journal was rewritten whole"


def test_a_completed_league_that_lost_a_result_runs_again(league_dir: Path) -> None:
    book = open_book(league_dir)
    for round_record in book.schedule.rounds:
        for match in book.schedule.round_matches(round_record):
            if match.match_id not in book.results:
                record_result(book, result_of(book, match.match_id))
        book.schedule.mark_round(round_record, "COMPLETED")
    book.schedule.mark_league(LeagueStatus.COMPLETED)
    book.close()
    path = league_dir / "journal.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[-1] = lines[-1][:30] + "\n"
    path.write_text("".join(lines))
    book = open_book(league_dir)
    book.close()
    assert book.schedule.status == LeagueStatus.RUNNING and len(book.results) == 5
    assert len(book.unsettled) == 1


def test_a_journal_with_no_result_left_is_refused(league_dir: Path) -> None:
    path = league_dir / "journal.jsonl"
    path.write_text("garbage\n" * 3)
    before = snapshot(league_dir)
    with pytest.raises(StoreError, match=r"cannot start: no line of .*journal.jsonl is a result"):
        open_book(league_dir)
    assert snapshot(league_dir) == before


# --- agents.json and secrets.json ---------------------------------------------------------------


@pytest.fixture
def registry_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "leagues" / LEAGUE
    registry = AgentRegistry(folder, "league_test")
    registry.add("referee", meta(0, "referee"), "key-ref")
    for n in range(1, 4):
        registry.add("player", meta(n), f"key-{n}")
    registry.save()  # snapshots of every agent; the empty ones they replace are the backups
    registry.close()
    return folder


def test_a_new_league_writes_both_registry_files_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    AgentRegistry(folder, "league_test")
    assert read_json(folder / "agents.json")["agents"] == []
    assert read_json(folder / "secrets.json")["tokens"] == {}
    assert (folder / "secrets.json").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("name", ["agents.json", "secrets.json"])
def test_a_damaged_registry_file_comes_back_from_its_backup(registry_dir: Path, name: str) -> None:
    sound = AgentRegistry(registry_dir, "league_test")
    tokens = {
        agent.agent_id: sound.token_of(agent.agent_id)
        for kind in ("referee", "player")
        for agent in sound.of_kind(kind)
    }
    sound.journal_states(sound.set_states(["P01"], "ACTIVE"), "ACTIVE")
    sound.save()  # the backups now hold every agent; the journal's backup, P01's change
    sound.close()
    path = registry_dir / name
    path.write_bytes(path.read_bytes()[:20])
    registry = AgentRegistry(registry_dir, "league_test")
    assert [a.agent_id for a in registry.of_kind("player")] == ["P01", "P02", "P03"]
    assert registry.get("P01").state == "ACTIVE", "the change after the backup, replayed"
    assert {agent_id: registry.token_of(agent_id) for agent_id in tokens} == tokens
    assert registry.authenticate("player:P02", tokens["P02"]).agent_id == "P02"
    notes = " ".join(registry.recovery_notes)
    assert name in notes and f"{name}.bak" in notes, notes
    assert read_json(path), "the file is whole again"
    assert (registry_dir / "secrets.json").stat().st_mode & 0o777 == 0o600


def test_registry_files_lost_with_their_backups_refuse_to_start(registry_dir: Path) -> None:
    (registry_dir / "secrets.json").write_text('{"tokens": ')
    backup_path(registry_dir / "secrets.json").unlink()
    before = snapshot(registry_dir)
    with pytest.raises(StoreError) as caught:
        AgentRegistry(registry_dir, "league_test")
    assert str(caught.value).startswith("cannot start: ") and "secrets.json" in str(caught.value)
    assert snapshot(registry_dir) == before


def test_a_missing_agents_json_beside_tokens_is_not_an_empty_league(registry_dir: Path) -> None:
    (registry_dir / "agents.json").unlink()
    backup_path(registry_dir / "agents.json").unlink()
    with pytest.raises(StoreError, match="agents.json is missing"):
        AgentRegistry(registry_dir, "league_test")


@pytest.mark.parametrize("data", ["journal.jsonl", "rounds.json"])
def test_a_registry_lost_beside_the_league_s_data_refuses_to_start(
    registry_dir: Path, data: str
) -> None:
    """Both registry files and their backups gone: without the league's data beside them
    that is a new league; with a journal or a schedule it would forget everyone."""
    (registry_dir / data).write_text('{"match_id": "R1M1"}\n')
    for name in ("agents.json", "secrets.json"):
        (registry_dir / name).unlink()
        backup_path(registry_dir / name).unlink()
    before = snapshot(registry_dir)
    with pytest.raises(StoreError) as caught:
        AgentRegistry(
            registry_dir,
            "league_test",
            league_files=(registry_dir / "journal.jsonl", registry_dir / "rounds.json"),
        )
    said = str(caught.value)
    assert said.startswith("cannot start: ") and "agents.json" in said and data in said, said
    assert "\n" not in said
    assert snapshot(registry_dir) == before, "nothing written: no empty registry"


def test_an_empty_journal_beside_no_registry_is_still_a_new_league(tmp_path: Path) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "journal.jsonl").touch()  # what a first start that stopped at once leaves
    registry = AgentRegistry(folder, "league_test", league_files=(folder / "journal.jsonl",))
    assert registry.count("player") == 0 and (folder / "agents.json").is_file()


def test_a_registration_that_cannot_be_journaled_is_not_kept(
    tmp_path: Path, tiny_disk: TinyDisk
) -> None:
    folder = tiny_disk.root / LEAGUE
    registry = AgentRegistry(folder, "league_test")
    registry.add("player", meta(1), "key-1")
    registry.save()  # the journal rolls over: empty, its next line needs a page of its own
    tiny_disk.fill()
    with pytest.raises(StoreError, match="registry.jsonl"):
        registry.add("player", meta(7), "key-7")
    assert registry.find_by_endpoint(meta(7).contact_endpoint) is None
    assert registry.count("player") == 1
    tiny_disk.free()
    agent, _ = registry.add("player", meta(7), "key-7")
    assert agent.agent_id == "P02"
    registry.close()
    assert [a.agent_id for a in AgentRegistry(folder, "league_test").of_kind("player")] == [
        "P01",
        "P02",
    ]


def test_an_agent_whose_token_is_lost_refuses_to_start(registry_dir: Path) -> None:
    secrets = read_json(registry_dir / "secrets.json")
    del secrets["tokens"]["P03"]
    (registry_dir / "secrets.json").write_text(json.dumps(secrets))
    with pytest.raises(StoreError, match="has no token for P03"):
        AgentRegistry(registry_dir, "league_test")


def test_a_token_without_its_agent_is_a_registration_never_answered(registry_dir: Path) -> None:
    """Files of a version before the registry's journal, cut short between the two writes
    of a registration: secrets.json was written first and agents.json was the commit point,
    so the half-done registration is forgotten."""
    for name in ("agents.json", "secrets.json"):
        document = read_json(registry_dir / name)
        del document["seq"]
        if name == "agents.json":
            document["agents"] = document["agents"][:-1]
        (registry_dir / name).write_text(json.dumps(document))
    for journal in registry_dir.glob("registry.jsonl*"):
        journal.unlink()
    registry = AgentRegistry(registry_dir, "league_test")
    assert [a.agent_id for a in registry.of_kind("player")] == ["P01", "P02"]
    assert registry.recovery_notes == []
    agent, _ = registry.add("player", meta(9), "key-9")
    assert agent.agent_id == "P03", "the id is given again to the next registration"


def test_a_snapshot_cut_short_loses_no_registration(registry_dir: Path) -> None:
    """secrets.json written, agents.json not (a directory in its way, then gone): the
    backup and the journal bring every registration back."""
    registry = AgentRegistry(registry_dir, "league_test")
    agent, token = registry.add("player", meta(4), "key-4")
    (registry_dir / "agents.json").unlink()
    (registry_dir / "agents.json").mkdir()
    with pytest.raises(OSError):
        registry.save()
    registry.close()
    (registry_dir / "agents.json").rmdir()
    restarted = AgentRegistry(registry_dir, "league_test")
    assert [a.agent_id for a in restarted.of_kind("player")] == ["P01", "P02", "P03", "P04"]
    assert restarted.authenticate("player:P04", token).agent_id == agent.agent_id
    assert "agents.json.bak" in " ".join(restarted.recovery_notes)


def test_secrets_are_written_before_agents(
    registry_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = AgentRegistry(registry_dir, "league_test")
    registry.add("player", meta(7), "key-7")
    written: list[str] = []
    real_replace = os.replace

    def record(src: Any, dst: Any) -> None:
        written.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", record)
    registry.save()
    names = [name for name in written if not name.endswith(".bak")]
    assert names == ["secrets.json", "agents.json"]


# --- what a referee says about a match given before a restart -------------------------------

REPORT = {"winner": "P01", "score": {"P01": 3, "P02": 0}, "details": {}}


def match_state(
    state: str, report_status: str = "pending", result: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "message_type": "MATCH_STATE",
        "match_id": "R1M1",
        "state": state,
        "match": {
            "match_id": "R1M1",
            "lifecycle": [{"state": "WAITING_FOR_PLAYERS"}, {"state": state}],
            "report_status": report_status,
            "result": result,
        },
    }


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        (match_state("COLLECTING_CHOICES"), "running"),
        (match_state("FINISHED", "pending", {"report": REPORT}), "reporting"),
        (match_state("FINISHED", "unreported", {"report": REPORT}), "decided"),
        (match_state("FINISHED", "rejected", {"report": REPORT}), "decided"),
        (match_state("FINISHED", "reported", {"report": REPORT}), "decided"),
        (match_state("ABORTED", "aborted"), "dropped"),
        (match_state("FINISHED", "unreported", None), "dropped"),
        ({"message_type": "ACK", "status": "ok"}, "alive"),
    ],
)
def test_a_referees_answer_about_a_match_is_read_as_one_verdict(
    answer: dict[str, Any], verdict: str
) -> None:
    view = view_of(answer)
    assert view.verdict == verdict
    assert (view.result == REPORT) == (verdict == "decided"), "only a decided match gives a result"

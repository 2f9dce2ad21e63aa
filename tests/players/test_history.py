"""The history's files: a line per match in the journal, the whole document written when folded,
reload from both, and loud failures naming the file and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from players.errors import HistoryError
from players.history import PlayerHistory, Totals, journal_path
from sdk.timeutil import utc_now
from strategies.view import PastMatch


def record(match_id: str, outcome: str = "WIN", league_id: str = "L1") -> PastMatch:
    status = {"DRAW": "DRAW", "TECHNICAL_LOSS": "TECHNICAL_LOSS"}.get(outcome, "WIN")
    return PastMatch(
        match_id=match_id,
        league_id=league_id,
        opponent_id="P02",
        my_choice="odd",
        opponent_choice="even",
        drawn_number=3,
        status=status,
        outcome=outcome,
        at=utc_now(),
    )


def load(path: Path, player_id: str = "P01") -> PlayerHistory:
    return PlayerHistory.load(path, player_id=player_id, display_name="Alice", strategy="random")


def journal_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in journal_path(path).read_text().splitlines()]


async def test_each_match_is_one_journal_line_and_a_fold_writes_the_stamped_document(
    tmp_path: Path,
) -> None:
    path = tmp_path / "P01" / "history.json"
    history = load(path)

    history.add(record("R1M1"))
    await history.durable()
    assert [m["match_id"] for m in journal_lines(path)] == ["R1M1"]
    history.add(record("R2M1", "DRAW"))
    await history.durable()
    assert [m["match_id"] for m in journal_lines(path)] == ["R1M1", "R2M1"]
    assert not path.exists(), "a match costs one appended line, not a rewrite"
    assert load(path).matches == history.matches, "a restart reads the journal back"

    history.fold()

    document = json.loads(path.read_text())
    assert document["schema_version"] == "1.0.0" and document["last_updated"].endswith("Z")
    assert [m["match_id"] for m in document["matches"]] == ["R1M1", "R2M1"]
    assert document["totals"] == {
        "played": 2,
        "wins": 1,
        "draws": 1,
        "losses": 0,
        "technical_losses": 0,
    }
    assert history.document() == document
    assert not journal_path(path).exists(), "the file holds the journal's matches now"
    assert load(path).matches == history.matches
    history.add(record("R3M1"))
    await history.durable()
    assert [m["match_id"] for m in journal_lines(path)] == ["R3M1"]
    assert [m.match_id for m in load(path).matches] == ["R1M1", "R2M1", "R3M1"]


async def test_a_match_in_both_the_file_and_the_journal_counts_once(tmp_path: Path) -> None:
    """A crash after a fold wrote the file, before it emptied the journal."""
    path = tmp_path / "history.json"
    history = load(path)
    history.add(record("R1M1"))
    await history.durable()
    kept = journal_path(path).read_text()
    history.fold()
    journal_path(path).write_text(kept + json.dumps(record("R2M1").model_dump(mode="json")) + "\n")

    reloaded = load(path)

    assert [m.match_id for m in reloaded.matches] == ["R1M1", "R2M1"]
    assert reloaded.totals.played == 2


async def test_a_line_torn_by_a_crash_is_dropped_and_cut_before_the_next(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    history = load(path)
    history.add(record("R1M1"))
    await history.durable()
    with journal_path(path).open("a") as journal:
        journal.write('{"match_id": "R2M1", "lea')  # never acknowledged

    reloaded = load(path)
    assert [m.match_id for m in reloaded.matches] == ["R1M1"]
    reloaded.add(record("R2M1"))
    await reloaded.durable()

    assert [m["match_id"] for m in journal_lines(path)] == ["R1M1", "R2M1"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 2 is not valid JSON"),
        ('{"match_id": "R2M1"}', "line 2 is not a match: status: Field required"),
    ],
)
async def test_a_damaged_journal_line_raises_naming_the_file_and_line(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "history.json"
    history = load(path)
    history.add(record("R1M1"))
    await history.durable()
    with journal_path(path).open("a") as journal:
        journal.write(line + "\n")

    with pytest.raises(HistoryError, match=message) as caught:
        load(path)

    assert str(journal_path(path)) in str(caught.value)


def test_a_missing_file_is_an_empty_history_bound_to_its_path(tmp_path: Path) -> None:
    history = load(tmp_path / "history.json")

    assert (history.matches, history.path, history.document()["last_updated"]) == (
        (),
        tmp_path / "history.json",
        None,
    )
    assert not (tmp_path / "history.json").exists(), "nothing is written before a match"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"matches": [', "is not valid JSON"),
        ("[1, 2]", "is not a player history"),
        (
            json.dumps({"schema_version": "1.0.0", "player_id": "P01", "matches": [{"x": 1}]}),
            "is not a player history: matches.0.match_id",
        ),
        (
            json.dumps({"schema_version": "1.0.0", "player_id": "P04", "matches": []}),
            "holds the history of 'P04', not of 'P01'",
        ),
    ],
)
def test_an_unusable_file_raises_naming_it(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "history.json"
    path.write_text(content)

    with pytest.raises(HistoryError, match=message) as caught:
        load(path)

    assert str(path) in str(caught.value)


def test_a_match_is_known_by_league_and_id(tmp_path: Path) -> None:
    history = load(tmp_path / "history.json")
    history.add(record("R1M1", league_id="L1"))

    assert history.knows("L1", "R1M1")
    assert not history.knows("L2", "R1M1"), "match ids repeat from one league to the next"


async def test_absorb_adds_only_unknown_matches_and_writes_them(tmp_path: Path) -> None:
    path = tmp_path / "history.json"
    history = load(path)
    history.add(record("R1M1"))
    await history.durable()

    history.absorb([record("R1M1"), record("R2M1")])

    assert [m.match_id for m in load(path).matches] == ["R1M1", "R2M1"]


async def test_an_unbound_history_writes_nothing(tmp_path: Path) -> None:
    history = PlayerHistory(display_name="Alice", strategy="random")
    history.add(record("R1M1"))
    await history.durable()
    assert history.totals.played == 1 and list(tmp_path.iterdir()) == []


def test_totals_count_each_outcome() -> None:
    outcomes = ["WIN", "WIN", "DRAW", "LOSS", "TECHNICAL_LOSS"]
    totals = Totals.of(record(f"R{i}M1", outcome) for i, outcome in enumerate(outcomes))
    assert totals == Totals(played=5, wins=2, draws=1, losses=1, technical_losses=1)

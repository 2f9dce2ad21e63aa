"""From GAME_OVER to a history record, from the player's side."""

from __future__ import annotations

import pytest

from players.matches import MatchInfo, OpenMatches, outcome_for, record_of
from sdk.messages import GameInvitation, GameOver, GameResult
from sdk.timeutil import utc_now
from sdk.tolerance import receive
from tests.players.conftest import game_over, invitation


@pytest.mark.parametrize(
    ("status", "winner", "expected"),
    [
        ("WIN", "P01", "WIN"),
        ("WIN", "P02", "LOSS"),
        ("DRAW", None, "DRAW"),
        ("TECHNICAL_LOSS", "P01", "WIN"),
        ("TECHNICAL_LOSS", "P02", "TECHNICAL_LOSS"),
        ("TECHNICAL_LOSS", None, "TECHNICAL_LOSS"),
    ],
)
def test_outcome_from_the_players_side(status: str, winner: str | None, expected: str) -> None:
    result = GameResult(status=status, winner_player_id=winner)  # type: ignore[arg-type]
    assert outcome_for("P01", result) == expected


def test_the_invitation_fills_what_game_over_leaves_out() -> None:
    known = MatchInfo.from_invitation(
        GameInvitation.model_validate(invitation(role_in_match="PLAYER_B"))
    )
    known.my_choice = "even"
    message = GameOver.model_validate(game_over(choices={}, status="TECHNICAL_LOSS", winner="P02"))

    record = record_of(message, "P01", known)

    assert (record.opponent_id, record.role, record.my_choice, record.opponent_choice) == (
        "P02",
        "PLAYER_B",
        "even",
        None,
    )
    assert record.outcome == "TECHNICAL_LOSS"


def test_without_an_invitation_the_choices_name_the_opponent() -> None:
    message = GameOver.model_validate(
        game_over(choices={"P02": "odd", "P01": "even"}, winner="P02")
    )

    record = record_of(message, "P01", None)

    assert (record.opponent_id, record.my_choice, record.opponent_choice, record.role) == (
        "P02",
        "even",
        "odd",
        None,
    )
    assert (record.league_id, record.round_id, record.drawn_number, record.outcome) == (
        "league_2025_even_odd",
        1,
        7,
        "LOSS",
    )


@pytest.mark.parametrize(
    ("told", "outcome", "winner"), [("WIN", "WIN", "P01"), ("LOSS", "LOSS", "P02")]
)
def test_a_game_over_told_from_the_recipient_s_side_records_its_outcome(
    told: str, outcome: str, winner: str
) -> None:
    """A published referee's per-recipient status without a winner (read by
    ``sdk.variants``): the record names the winner all the same."""
    known = MatchInfo.from_invitation(GameInvitation.model_validate(invitation()))
    wire = game_over(choices={}, status=told, winner=None)
    message, _ = receive(GameOver, wire, "lenient", {})

    record = record_of(message, "P01", known)

    assert (record.outcome, record.winner_player_id, record.opponent_id) == (outcome, winner, "P02")


def test_the_match_book_forgets_the_oldest_past_its_capacity() -> None:
    book = OpenMatches(capacity=2)
    for match_id in ("R1M1", "R2M1", "R3M1"):
        book.add(MatchInfo(match_id=match_id, invited_at=utc_now()))

    assert [m.match_id for m in book.all()] == ["R2M1", "R3M1"]
    assert book.pop("R2M1") is not None and book.get("R2M1") is None

"""A message encoded once for many recipients: each copy is the message itself with its
recipient's proof, as JSON any parser reads."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from sdk.messages import LeagueStandingsUpdate, StandingsRow
from sdk.rpc_wire import encoded_request
from sdk.shared_message import SharedMessage


def standings_update(rows: int) -> LeagueStandingsUpdate:
    return LeagueStandingsUpdate(
        sender="league_manager",
        conversation_id="league_2025_even_odd:round-3",
        league_id="league_2025_even_odd",
        round_id=3,
        standings=[
            StandingsRow(
                rank=i + 1, player_id=f"P{i:02d}", display_name=f"Agent «{i}»", points=9 - i
            )
            for i in range(rows)
        ],
    )


@given(proof=st.text(), rows=st.integers(min_value=0, max_value=5))
def test_each_copy_is_the_message_with_its_own_proof(proof: str, rows: int) -> None:
    message = standings_update(rows)
    shared = SharedMessage(message)
    copy = json.loads(b"".join(shared.signed(proof).parts()))
    assert copy == {**message.to_wire(), "auth_token": proof}
    assert LeagueStandingsUpdate.from_wire(copy).auth_token == proof


@given(proof=st.none() | st.text(), rows=st.integers(min_value=0, max_value=5))
def test_a_copys_size_bounds_its_request(proof: str | None, rows: int) -> None:
    """What a batch of copies is bounded by: no request of one is larger than its size."""
    copy = SharedMessage(standings_update(rows)).signed(proof)
    request = encoded_request("m" * 80, copy, 10**15)
    assert len(request) <= copy.size


def test_the_shared_form_never_holds_a_token() -> None:
    message = standings_update(2).model_copy(update={"auth_token": "secret-of-one-agent"})
    shared = SharedMessage(message)
    assert "auth_token" not in shared.wire
    assert b"secret-of-one-agent" not in b"".join(shared.signed(None).parts())
    assert json.loads(b"".join(shared.signed("theirs").parts()))["auth_token"] == "theirs"

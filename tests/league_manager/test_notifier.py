"""How the League Manager's notifier cuts an agent's outbox into batches."""

from __future__ import annotations

from collections import deque

from league_manager.notifier import _Copy, take_batch
from sdk.messages import LeagueStandingsUpdate, StandingsRow
from sdk.shared_message import SharedMessage


def standings(rows: int) -> LeagueStandingsUpdate:
    return LeagueStandingsUpdate(
        sender="league_manager",
        conversation_id="league_2025_even_odd:round-1",
        league_id="league_2025_even_odd",
        round_id=1,
        standings=[StandingsRow(rank=k + 1, player_id=f"P{k:04d}") for k in range(rows)],
    )


async def test_a_batch_takes_what_fits_in_order_and_always_one() -> None:
    small, large = SharedMessage(standings(2)), SharedMessage(standings(400))
    waiting = deque(
        _Copy(method, shared.signed("proof"))
        for method, shared in [("a", small), ("b", small), ("c", large), ("d", small)]
    )
    two = 2 * waiting[0].message.size + 1
    assert [c.method for c in take_batch(waiting, two)] == ["a", "b"]
    assert [c.method for c in take_batch(waiting, two)] == ["c"], "too large alone: sent alone"
    assert [c.method for c in take_batch(waiting, 10**6)] == ["d"]
    assert not waiting

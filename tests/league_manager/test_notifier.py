"""How the League Manager's notifier cuts an agent's outbox into batches."""

from __future__ import annotations

from collections import deque

from league_manager.notifier import _Copy, take_batch
from sdk.shared_message import SharedMessage
from tests.sdk.test_shared_message import standings_update


async def test_a_batch_takes_what_fits_in_order_and_always_one() -> None:
    small, large = SharedMessage(standings_update(2)), SharedMessage(standings_update(400))
    waiting = deque(
        _Copy(method, shared.signed("proof"))
        for method, shared in [("a", small), ("b", small), ("c", large), ("d", small)]
    )
    two = 2 * waiting[0].message.size + 1
    assert [c.method for c in take_batch(waiting, two)] == ["a", "b"]
    assert [c.method for c in take_batch(waiting, two)] == ["c"], "too large alone: sent alone"
    assert [c.method for c in take_batch(waiting, 10**6)] == ["d"]
    assert not waiting

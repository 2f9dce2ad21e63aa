"""The League Manager's watchdog (``league_manager.upkeep``) outlives a look that fails."""

from __future__ import annotations

import pytest

from league_manager.upkeep import WATCHDOG
from tests.league_manager.conftest import World, wait_until


async def test_a_look_that_fails_is_an_alarm_and_the_watchdog_looks_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look that raises (a fault of ours) is told on /health and in /status, and the
    looks go on once a second: the first that succeeds clears the alarm."""
    manager = world.manager
    upkeep = manager.upkeep
    looks = {"failed": 0, "done": 0}
    look = upkeep.look

    def failing_twice() -> None:
        if looks["failed"] < 2:
            looks["failed"] += 1
            raise RuntimeError("a fault of ours")
        looks["done"] += 1
        look()

    def raised() -> bool:
        return any(alarm.key == WATCHDOG for alarm in manager.alarms.active())

    monkeypatch.setattr(upkeep, "look", failing_twice)
    await wait_until(raised, timeout=5)
    health = await world.lm.get("/health")
    await wait_until(lambda: looks["done"] >= 2 and not raised(), timeout=5)
    status = (await world.lm.get("/status")).json()

    assert health.status_code == 503
    (reason,) = [r for r in health.json()["reasons"] if "watchdog" in r]
    assert "the watchdog's look failed (RuntimeError: a fault of ours)" in reason
    assert looks["failed"] == 2, "each failed look is followed by the next"
    cleared = [alarm for alarm in status["alarms"]["cleared"] if alarm["key"] == WATCHDOG]
    assert len(cleared) == 1, status["alarms"]

"""The look at the other League Managers' work (``peer_follow.py``): which of the agents and
the results it reads, whole at least once a period, else only what the events the relay
heard changed. The store is stood for by the two reads it is given, which count their calls
(the looks on a real PostgreSQL: tests/league_manager/pg/)."""

from __future__ import annotations

import pytest

from league_manager.agents import Heard
from league_manager.peer_follow import PeerFollow


class Reads:
    """The reads a look made, in order."""

    def __init__(self) -> None:
        self.made: list[str] = []

    async def agents(self) -> Heard:
        self.made.append("agents")
        return Heard()

    async def results(self) -> None:
        self.made.append("results")

    def taken(self) -> list[str]:
        made, self.made = self.made, []
        return made


def follow(reads: Reads, every_sec: float) -> PeerFollow:
    return PeerFollow(
        reads.agents, reads.results, lambda agent: None, lambda *_, **__: None, every_sec=every_sec
    )


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("result_recorded", ["results"]),
        ("player_registered", ["agents"]),
        ("referee_registered", ["agents"]),
        ("agent_state", ["agents"]),
        ("resync", ["agents", "results"]),
    ],
)
async def test_an_event_heard_wakes_a_look_at_what_it_changed_only(
    name: str, read: list[str]
) -> None:
    reads = Reads()
    peers = follow(reads, every_sec=60)
    await peers.look()
    assert reads.taken() == ["agents", "results"], "the first look is whole"
    peers.heard(name)
    assert peers.wake.is_set()
    await peers.look()
    assert reads.taken() == read


async def test_events_that_change_nothing_in_the_store_wake_nothing() -> None:
    reads = Reads()
    peers = follow(reads, every_sec=60)
    await peers.look()
    for name in ("round_started", "match_started", "league_paused", "result_heard"):
        peers.heard(name)
    assert not peers.wake.is_set()
    await peers.look()
    assert reads.taken() == ["agents", "results"], "the first look only"


async def test_a_look_due_whole_reads_both_whatever_was_heard() -> None:
    reads = Reads()
    peers = follow(reads, every_sec=0)  # a whole look always due
    for _ in range(50):
        peers.heard("result_recorded")
    await peers.look()
    await peers.look()
    assert reads.taken() == ["agents", "results"] * 2, "never the results alone when due"


async def test_events_heard_before_a_look_make_one_look_and_then_nothing_until_the_period() -> None:
    reads = Reads()
    peers = follow(reads, every_sec=60)
    await peers.look()
    peers.heard("result_recorded")
    peers.heard("result_recorded")
    await peers.look()
    await peers.look()
    assert reads.taken() == ["agents", "results", "results"], "two events, one look"

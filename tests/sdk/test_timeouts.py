"""``within``: a deadline that never loses its caller's cancellation, whatever the turn of
the event loop in which the awaited work ends (``asyncio.wait_for`` before 3.12 lost it
when the work ended in the same turn)."""

from __future__ import annotations

import asyncio

import pytest

from sdk.timeouts import within


async def test_the_result_within_the_deadline_and_a_timeout_past_it() -> None:
    assert await within(asyncio.sleep(0, result="answer"), 5) == "answer"
    ended = asyncio.Event()

    async def slow() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            ended.set()

    with pytest.raises(asyncio.TimeoutError):
        await within(slow(), 0.01)
    assert ended.is_set(), "the work ended before the timeout was raised"


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
async def test_a_caller_cancelled_as_its_answer_arrives_is_cancelled(turns: int) -> None:
    """The answer arrives, ``turns`` turns of the loop pass, the caller is cancelled: it
    ends with its answer only if it had ended before the cancellation was asked; once asked,
    the cancellation is what it ends with (a stopped task never goes on)."""
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()
    caller = asyncio.ensure_future(within(answer, 5))
    await asyncio.sleep(0)  # the caller waits for its answer
    answer.set_result("answered")
    for _ in range(turns):
        await asyncio.sleep(0)
    finished_first = caller.done()
    asked = caller.cancel()
    assert asked != finished_first
    if asked:
        with pytest.raises(asyncio.CancelledError):
            await caller
    else:
        assert caller.result() == "answered"

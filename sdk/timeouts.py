"""``within``: await with a deadline, and never lose the caller's own cancellation.

``asyncio.wait_for`` before Python 3.12 returns the result when the awaited work ends in the
same turn of the loop as its caller is cancelled: the cancellation is lost, and a task
being stopped goes on (a League Manager's match loop, stopped at shutdown, kept probing its
referee for ever). From 3.11 a task counts the cancellations asked of it, so one that
``wait_for`` swallowed is raised again; on 3.10 the work is awaited with ``asyncio.wait``,
which never swallows one.

On 3.11 the work still runs in a task of its own, where ``wait_for`` runs it: awaited
inline under ``asyncio.timeout`` instead, a referee spent about 0.5 ms more CPU per result
(doc/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["within"]

T = TypeVar("T")

if sys.version_info >= (3, 11):

    async def within(work: Awaitable[T], timeout: float | None) -> T:
        """``work``'s result, or ``asyncio.TimeoutError`` after ``timeout`` s (``work``
        cancelled); a cancellation of the caller always propagates."""
        caller = asyncio.current_task()
        asked = caller.cancelling() if caller is not None else 0
        result = await asyncio.wait_for(work, timeout)
        if caller is not None and caller.cancelling() > asked:
            raise asyncio.CancelledError  # asked as the work ended: wait_for kept the result
        return result

else:

    async def within(work: Awaitable[T], timeout: float | None) -> T:
        """``work``'s result, or ``asyncio.TimeoutError`` after ``timeout`` s (``work``
        cancelled and ended first); a cancellation of the caller always propagates."""
        task = asyncio.ensure_future(work)
        try:
            done, _ = await asyncio.wait({task}, timeout=timeout)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if done:
            return task.result()
        task.cancel()
        await asyncio.wait({task})  # ended before this returns, as ``wait_for`` does
        if not task.cancelled() and task.exception() is None:
            return task.result()  # it ended as it was cancelled
        raise asyncio.TimeoutError

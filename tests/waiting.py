"""Waiting in tests for a condition with a bound, instead of sleeping and hoping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def eventually(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until ``condition()`` holds, checking every 10 ms; fail after ``timeout``."""

    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout=timeout)

"""A per-address limit on registrations, so that a flood from one machine (a runaway
script, someone filling the league with fake players) is turned away while everyone else
still registers: at most ``per_minute`` registrations from one address in any 60 s
(accepted or refused, all count)."""

from __future__ import annotations

import time
from collections import deque

__all__ = ["RegistrationLimit"]

WINDOW_SEC = 60.0


class RegistrationLimit:
    """A sliding window of registration times per address."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self._times: dict[str, deque[float]] = {}

    def refusal(self, address: str | None) -> tuple[str, float] | None:
        """Count one registration from ``address``; when it is one too many, a sentence
        and the seconds until the next one would be counted instead."""
        if address is None:
            return None
        now = time.monotonic()
        for stale in [a for a, t in self._times.items() if t and now - t[-1] > WINDOW_SEC]:
            del self._times[stale]
        times = self._times.setdefault(address, deque())
        while times and now - times[0] > WINDOW_SEC:
            times.popleft()
        if len(times) >= self.per_minute:
            wait = max(0.0, WINDOW_SEC - (now - times[0]))
            return (
                f"too many registrations from {address}: at most {self.per_minute} a "
                f"minute; try again in {wait:.0f} s"
            ), wait
        times.append(now)
        return None

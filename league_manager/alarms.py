"""What keeps the League Manager from doing its work right now, each with why.

An alarm is raised where a problem is found (a file it cannot write, a registry file gone,
a round that makes no progress, a flood of connections or requests) and cleared where it is
found gone, both as league events. ``/health`` is degraded, HTTP 503, while any alarm is raised;
``/status`` lists them, and the last ones cleared, so a stall that has passed is still told.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from sdk.timeutil import utc_now_str

__all__ = ["Alarm", "Alarms"]

_CLEARED_KEPT = 20
"""Cleared alarms kept for ``/status``."""


class Alarm(BaseModel):
    key: str
    """What it is about (``write:journal.jsonl``, ``registry:agents.json``, ``stall``,
    ``flood``): one alarm per key."""
    reason: str
    since: str
    cleared_at: str | None = None


class Alarms:
    """The raised alarms by key; ``event`` logs each change (name, data)."""

    def __init__(self, event: Callable[..., None]):
        self._event = event
        self._raised: dict[str, Alarm] = {}
        self._cleared: deque[Alarm] = deque(maxlen=_CLEARED_KEPT)

    @property
    def ok(self) -> bool:
        return not self._raised

    def active(self) -> list[Alarm]:
        return list(self._raised.values())

    def raise_alarm(self, key: str, reason: str) -> None:
        """Raise ``key``, or give it a new reason (logged when the reason changes)."""
        alarm = self._raised.get(key)
        if alarm is not None and alarm.reason == reason:
            return
        self._raised[key] = Alarm(
            key=key, reason=reason, since=alarm.since if alarm else utc_now_str()
        )
        self._event("alarm_raised", key=key, reason=reason)

    def clear(self, key: str) -> None:
        alarm = self._raised.pop(key, None)
        if alarm is None:
            return
        alarm.cleared_at = utc_now_str()
        self._cleared.append(alarm)
        self._event("alarm_cleared", key=key, reason=alarm.reason, since=alarm.since)

    def health(self) -> dict[str, Any]:
        """``status`` ok or degraded, and the reasons."""
        return {
            "status": "ok" if self.ok else "degraded",
            "reasons": [alarm.reason for alarm in self._raised.values()],
        }

    def status(self) -> dict[str, Any]:
        """The raised alarms and the last ones cleared, for ``/status``."""
        return {
            "raised": [alarm.model_dump() for alarm in self._raised.values()],
            "cleared": [alarm.model_dump() for alarm in reversed(self._cleared)],
        }

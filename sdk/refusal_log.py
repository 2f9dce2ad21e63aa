"""What refused requests may make an agent write to its log. A refusal is what anyone on the
network can cause without a token, and each one logged costs about ten times the request
that caused it; so each caller address has a budget of log bytes for its refusals in every
window of ``http.refusal_log_window_sec``, and all addresses together another. Past either,
a refusal is answered as ever but only counted, and the counts of a window are written in
one ``refusals_unlogged`` record once it is over. Requests that are handled are always
logged: the budget is for refusals only. A batch's log is bounded by its own size
(``BatchShare``)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BatchShare", "RefusalBudget"]

_UNKNOWN = "unknown"
"""The address of a request that came from no network peer (an in-process dispatch)."""
_OTHERS = "other addresses"
"""Where the addresses past ``max_addresses`` in one window are counted together."""


class RefusalBudget:
    """The log bytes each caller address (``per_address``) and all of them together
    (``total``) may spend on refusals in one window of ``window_sec`` seconds."""

    def __init__(
        self,
        *,
        per_address: int,
        total: int,
        window_sec: float,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = 1024,
    ):
        self._per_address = per_address
        self._total = total
        self._window_sec = window_sec
        self._clock = clock
        self._max_addresses = max_addresses
        self._start = clock()
        self._spent: Counter[str] = Counter()
        self._spent_total = 0
        self._withheld: Counter[str] = Counter()
        self._withheld_from: Counter[str] = Counter()

    def _key(self, address: str | None) -> str:
        """The address as counted: one window holds at most ``max_addresses`` of them, so
        a caller with many addresses cannot make the counts themselves grow without end."""
        key = address or _UNKNOWN
        if key in self._spent or len(self._spent) < self._max_addresses:
            return key
        return _OTHERS

    def muted(self, address: str | None) -> bool:
        """Whether a refusal of ``address`` is only counted now: its own budget or the
        total is spent in this window."""
        key = self._key(address)
        return self._spent[key] >= self._per_address or self._spent_total >= self._total

    def spend(self, address: str | None, size: int) -> None:
        """``size`` bytes were logged for a refusal of ``address`` (negative: a reservation
        given back, the request was handled after all)."""
        key = self._key(address)
        before = self._spent[key]
        self._spent[key] = max(0, before + size)
        self._spent_total += self._spent[key] - before

    def withhold(self, address: str | None, refusals: Counter[str]) -> None:
        """Refusals of ``address`` that were answered and not logged, by ``method:code``."""
        self._withheld.update(refusals)
        self._withheld_from[self._key(address)] += refusals.total()

    def ended(self) -> dict[str, Any] | None:
        """Once the window is over, start the next and give the fields of the ended one's
        ``refusals_unlogged`` record (None: the window is not over, or nothing was
        withheld in it)."""
        now = self._clock()
        if now - self._start < self._window_sec:
            return None
        summary = None
        if self._withheld:
            summary = {
                "window_sec": round(now - self._start, 1),
                "requests": self._withheld.total(),
                "refused": dict(self._withheld),
                "callers": dict(self._withheld_from.most_common()),
            }
        self._start = now
        self._spent.clear()
        self._spent_total = 0
        self._withheld.clear()
        self._withheld_from.clear()
        return summary


@dataclass
class BatchShare:
    """What one batch may make its agent log. A refused request (LEAGUE_ERROR) is only
    counted, by method and error code; a handled one is logged while ``budget`` bytes last
    (the batch's body size), then counted: whatever a caller batches, even without any
    token, costs the log about its own size plus one ``batch_summary`` line, where a line or
    two per request could cost ten times its size. A broadcast's copy handled as it came (a
    round's news, several to each player a round) is only named in ``news``, all of them in
    one line once the batch is answered (its list abridged as every record's is)."""

    budget: int
    refused: Counter[str] = field(default_factory=Counter)
    unlogged: int = 0
    news: list[dict[str, Any]] = field(default_factory=list)

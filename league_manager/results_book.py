"""The league's results book: every accepted result, by match and by player, in memory,
each kept first in the league's result log (``result_log.py``: ``journal.jsonl``, or the
PostgreSQL store) and made durable there before it is acknowledged.

The log is the truth of a league: after a restart the schedule's statuses and the
standings are made to agree with it (``book.py``). A result costs O(1): one append and two
players' lists, whatever the league's size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping

from league_manager.records import ResultRecord
from league_manager.result_log import ResultLog

__all__ = ["ResultsBook"]


class ResultsBook(Mapping[str, ResultRecord]):
    """The accepted results by match id, in the order they were accepted (a read-only
    mapping); ``record`` appends a new one to the log, ``durable`` makes it kept."""

    def __init__(self, log: ResultLog, kept: Iterable[ResultRecord]):
        """``kept``: what the caller read from ``log`` (and checked) at start-up."""
        self._log = log
        self._results: dict[str, ResultRecord] = {}
        self._of_player: dict[str, list[str]] = defaultdict(list)
        for result in kept:
            self._index(result)

    def __getitem__(self, match_id: str) -> ResultRecord:
        return self._results[match_id]

    def __contains__(self, match_id: object) -> bool:
        return match_id in self._results  # the round flow asks often: a dict's lookup

    def get(self, match_id: str, default: ResultRecord | None = None) -> ResultRecord | None:  # type: ignore[override]
        return self._results.get(match_id, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def results_of(self, player_id: str) -> list[ResultRecord]:
        """The player's results in the order they were accepted."""
        return [self._results[match_id] for match_id in self._of_player.get(player_id, ())]

    def record(self, result: ResultRecord) -> None:
        """Append a result of a match that has none yet (the results desk asks) to the log
        and keep it; ``await durable()`` before acknowledging it.

        Raises:
            StoreError: the log refused it (it is not in the log).
        """
        self._log.append(result)
        self._index(result)

    async def durable(self) -> None:
        """Return once every result recorded so far is kept by the log (group commit).

        Raises:
            StoreError: the log could not keep them; the next call tries again.
        """
        await self._log.durable()

    def take_kept(self, match_id: str) -> tuple[ResultRecord, ResultRecord] | None:
        """After ``durable``: where the log kept another League Manager's result of the
        match instead of this book's, that one replaces it here, so the book says what the
        store says. Returns (the replaced, the kept), or None where there is nothing to
        replace (this book's was kept, or was replaced already). The kept one replaces an
        equal one too (the same report taken by two League Managers in one second): it is
        still another's row, and the results desk answers DUPLICATE by identity.
        """
        kept = self._log.duplicate(match_id)
        mine = self._results.get(match_id)
        if kept is None or mine is None or mine is kept:
            return None
        self._results[match_id] = kept  # the same match: the same players' lists
        return mine, kept

    async def others(self) -> list[ResultRecord]:
        """The results other League Managers on the store kept since the last call, of
        matches this book holds no result of (``adopt`` those the caller counts).

        Raises:
            StoreError: the store cannot be read now.
        """
        return [r for r in await self._log.others() if r.match_id not in self._results]

    def adopt(self, result: ResultRecord) -> None:
        """Hold a result another League Manager kept in the store (not appended again)."""
        self._index(result)

    def _index(self, result: ResultRecord) -> None:
        if result.match_id in self._results:
            return  # a result counts once, however often it was written
        self._results[result.match_id] = result
        for player_id in result.outcomes:
            self._of_player[player_id].append(result.match_id)

    def close(self) -> None:
        self._log.close()

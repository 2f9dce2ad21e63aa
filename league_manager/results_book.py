"""The league's results book: every accepted result, by match and by player, kept in
``journal.jsonl``, each line appended (and fsynced) before its result is acknowledged.

The journal is the truth of a league: after a restart the schedule's statuses and the
standings are made to agree with it (``book.py``). A result costs O(1): one line and two
players' lists, whatever the league's size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from league_manager.records import ResultRecord, read_journal
from sdk.store import Journal

__all__ = ["ResultsBook"]


class ResultsBook(Mapping[str, ResultRecord]):
    """The accepted results by match id, in the order they were accepted (a read-only
    mapping); ``record`` journals a new one. Reading the journal writes nothing: start-up
    checks it against the schedule, then ``drop_damaged`` and ``open`` to append."""

    def __init__(self, journal_path: Path):
        """Read the journal; a damaged line is left out (``drop_damaged`` sets it aside).

        Raises:
            StoreError: every line is damaged: there is nothing to recover from.
        """
        self.path = journal_path
        self._read, self._damage = read_journal(journal_path)
        self._results: dict[str, ResultRecord] = {}
        self._of_player: dict[str, list[str]] = defaultdict(list)
        for _, result in self._read:
            self._index(result)
        self._journal: Journal | None = None

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

    @property
    def journaled(self) -> bool:
        """Whether the journal held any line when it was read, whole or damaged."""
        return bool(self._read or self._damage)

    def drop_damaged(self, note: Callable[[str], None]) -> None:
        """Write the journal again without its damaged lines (the damaged file kept as
        ``.corrupt-*``), and ``note`` it; nothing to do for a whole journal."""
        if self._damage:
            kept = Journal.rewrite(self.path, [record for record, _ in self._read])
            lines = ", ".join(f"line {bad.number} {bad.problem}" for bad in self._damage)
            note(
                f"{self.path}: {lines}; kept the other {len(self._read)} result(s), the "
                f"damaged file as {kept.name}; a match whose result was lost is asked "
                "of its referee or played again"
            )

    def open(self) -> None:
        """Start appending (start-up has checked the journal against the schedule)."""
        self._read, self._damage = [], []
        self._journal = Journal(self.path)

    def record(self, result: ResultRecord, *, sync: bool = True) -> None:
        """Journal a result of a match that has none yet (the results desk asks) and keep
        it. With ``sync`` the line is fsynced now; else
        ``await durable()`` before acknowledging it.

        Raises:
            StoreError: the line could not be written (it is not in the journal) or synced.
        """
        assert self._journal is not None, "record after open"
        self._journal.append(result.to_line(), sync=sync)
        self._index(result)

    async def durable(self) -> None:
        """Return once every result recorded so far is on disk (group commit)."""
        assert self._journal is not None, "durable after open"
        await self._journal.durable()

    def _index(self, result: ResultRecord) -> None:
        if result.match_id in self._results:
            return  # a result counts once, however often it was written
        self._results[result.match_id] = result
        for player_id in result.outcomes:
            self._of_player[player_id].append(result.match_id)

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()

"""Who may report a match: the fencing of hand-overs, so each result counts exactly once.

Each hand-over of a match takes a new assignment number (``assignments.py``), kept on the
match's record and sent to its referee; only the referee holding the match's current
assignment may report it. A referee it was given to before, reporting under an older
number, is told its assignment was superseded and the result is not counted; one it was
never given to is refused. The record of every referee a match was ever given to lives
here (a referee found holding a match after a restart joins it, so its report counts).

With several League Managers on one PostgreSQL store, the leader commits each hand-over to
the database before its referee is told (``pg.leader_store``), and a League Manager that
does not lead checks a report against the database's holder of the match, so a superseded
assignment is refused whichever of them receives it. A hand-over the database refuses (or
numbers it cannot give) raises the alarm ``write:hand-overs (PostgreSQL)``: no match is
handed out until the watchdog finds the database keeps hand-overs again."""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from league_manager.agents import RegisteredAgent
from league_manager.assignments import ASSIGNMENTS_FILE
from league_manager.pg.errors import PgStoreError
from league_manager.pg.leader_store import Deposed, Holder
from league_manager.records import MatchProgress, RoundRecord
from league_manager.upkeep import Upkeep
from sdk.errors import ErrorCode, ProtocolError
from sdk.store import StoreError

__all__ = ["HANDOVERS", "Fencing", "Numbers", "SharedHolders"]

HANDOVERS = "hand-overs"
"""The watchdog's name for the hand-overs kept in the shared store (``Upkeep.kept_in_store``)."""
_HANDOVERS_SHOWN = "hand-overs (PostgreSQL)"


class Numbers(Protocol):
    """Where assignment numbers come from (``assignments.AssignmentNumbers``, the files';
    ``pg.leader_store.PgNumbers``, the database's)."""

    async def take(self) -> int:
        """The next number, larger than any given before. Raises OSError: none can be."""


class SharedHolders(Protocol):
    """The hand-overs as several League Managers share them (``pg.leader_store``)."""

    def handed(self, match: MatchProgress) -> None: ...

    async def durable(self) -> None: ...

    async def holder(self, match_id: str) -> Holder: ...


class Fencing:
    """Assignment numbers for hand-overs and the check of a reporting referee's hold."""

    def __init__(
        self,
        numbers: Numbers,
        upkeep: Upkeep,
        event: Callable[..., None],
        rounds: list[RoundRecord],
        *,
        shared: SharedHolders | None = None,
        leading: Callable[[], bool] = lambda: True,
    ):
        """``shared``: the hand-overs in the store of several League Managers, and
        ``leading``, whether this one drives the rounds now (else reports are checked
        against the store's holders)."""
        self._numbers = numbers
        self._shared, self._leading = shared, leading
        self._upkeep = upkeep
        self._kept_as = ASSIGNMENTS_FILE if shared is None else HANDOVERS
        """What a failure to hand a match over is called to the watchdog."""
        if shared is not None:
            upkeep.kept_in_store(HANDOVERS, _HANDOVERS_SHOWN, self._kept_again)
        self._event = event
        self._given: dict[str, tuple[str, ...]] = {}
        """Kept for every match of the league, so a tuple (almost always of one referee):
        a set would cost four times its memory."""
        self.learn(rounds)

    def learn(self, rounds: list[RoundRecord]) -> None:
        """The holders of the live rounds' matches, as a schedule just read lists them."""
        for round_record in rounds:
            for match in round_record.matches:
                if match.referee_id:
                    self.gave(match.match_id, match.referee_id)

    def referees_of(self, match_id: str) -> set[str]:
        """Every referee this match was ever given to (only the one holding it now may
        report it)."""
        return set(self._given.get(match_id, ()))

    def gave(self, match_id: str, referee_id: str) -> None:
        """The referee was found holding the match: a report of it is its to make."""
        given = self._given.get(match_id, ())
        if referee_id not in given:
            self._given[match_id] = (*given, referee_id)

    async def assign(self, match: MatchProgress, referee: RegisteredAgent) -> bool:
        """Give the match to ``referee`` under a new assignment number, kept in the shared
        store first if there is one; False if no number could be reserved (a full disk: nothing
        is handed out until it takes writes) or the store did not keep the hand-over (its
        alarm raised, unless another League Manager leads now)."""
        try:
            assignment = await self._numbers.take()
        except OSError as exc:
            self._upkeep.failed(self._kept_as, exc)
            return False
        if self._shared is None:
            self._upkeep.written(ASSIGNMENTS_FILE)
        match.referee_id, match.referee_endpoint = referee.agent_id, referee.contact_endpoint
        match.status = "ASSIGNED"
        match.attempts += 1
        match.assignment = assignment
        self.gave(match.match_id, referee.agent_id)
        if self._shared is None:
            return True
        self._shared.handed(match)
        try:
            await self._shared.durable()
        except StoreError as exc:
            self._event("handover_not_kept", match_id=match.match_id, reason=str(exc))
            if not isinstance(exc, Deposed):  # deposed: the new leader hands it out
                self._upkeep.failed(HANDOVERS, exc)
            return False
        self._upkeep.written(HANDOVERS)
        return True

    async def _kept_again(self) -> None:
        """The watchdog's look, after a refusal, at whether the store takes hand-overs
        again: those queued are committed and a number is taken (and left unused: numbers
        need only grow).

        Raises:
            StoreError: it still refuses them.
        """
        assert self._shared is not None
        try:
            await self._shared.durable()
        except Deposed:
            return  # another League Manager leads: this one hands nothing out
        try:
            await self._numbers.take()
        except OSError as exc:
            raise StoreError(str(exc)) from exc

    async def check_holder(
        self, match: MatchProgress, referee_id: str, assignment: int | None
    ) -> None:
        """Raises ProtocolError E014 unless ``referee_id`` holds the match under
        ``assignment`` (None: a referee that was given no number, judged by its id); E022
        where the store that knows it cannot be read now."""
        holder, current = match.referee_id, match.assignment
        given: Collection[str] = self._given.get(match.match_id, ())
        if self._shared is not None and not self._leading():
            try:
                held = await self._shared.holder(match.match_id)
            except (StoreError, PgStoreError) as exc:
                raise ProtocolError(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    f"who holds match {match.match_id} cannot be read now ({exc}); "
                    "the result is not acknowledged: report it again",
                ) from None
            holder, current, given = held.referee_id, held.assignment, held.given
        if referee_id == holder and assignment in (None, current):
            return
        held_by = f"it is held by {holder}" if holder else "it is not given out"
        if current is not None:
            held_by += f" under assignment {current}"
        if assignment is not None and referee_id in given:
            self._event(
                "report_superseded",
                match_id=match.match_id,
                referee_id=referee_id,
                assignment=assignment,
                holder=holder,
                current=current,
            )
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"match {match.match_id}: assignment {assignment} of "
                f"{referee_id} was superseded ({held_by}); this result is not "
                "counted: stop the match and tell its players nothing",
            )
        raise ProtocolError(
            ErrorCode.NOT_AUTHORIZED,
            f"match {match.match_id} is not {referee_id}'s to report: {held_by}",
        )

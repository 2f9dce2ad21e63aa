"""Who may report a match: the fencing of hand-overs, so each result counts exactly once.

Each hand-over of a match takes a new assignment number (``assignments.py``), kept on the
match's record and sent to its referee; only the referee holding the match's current
assignment may report it. A referee it was given to before, reporting under an older
number, is told its assignment was superseded and the result is not counted; one it was
never given to is refused. The record of every referee a match was ever given to lives
here (a referee found holding a match after a restart joins it, so its report counts)."""

from __future__ import annotations

from collections.abc import Callable

from league_manager.agents import RegisteredAgent
from league_manager.assignments import ASSIGNMENTS_FILE, AssignmentNumbers
from league_manager.records import MatchProgress, RoundRecord
from league_manager.upkeep import Upkeep
from sdk.errors import ErrorCode, ProtocolError

__all__ = ["Fencing"]


class Fencing:
    """Assignment numbers for hand-overs and the check of a reporting referee's hold."""

    def __init__(
        self,
        numbers: AssignmentNumbers,
        upkeep: Upkeep,
        event: Callable[..., None],
        rounds: list[RoundRecord],
    ):
        self._numbers = numbers
        self._upkeep = upkeep
        self._event = event
        self._given: dict[str, tuple[str, ...]] = {}
        """Kept for every match of the league, so a tuple (almost always of one referee):
        a set would cost four times its memory."""
        for round_record in rounds:
            for match in round_record.matches:  # the live rounds' records
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

    def assign(self, match: MatchProgress, referee: RegisteredAgent) -> bool:
        """Give the match to ``referee`` under a new assignment number; False if no number
        could be reserved (a full disk: nothing is handed out until it takes writes)."""
        try:
            assignment = self._numbers.next()
        except OSError as exc:
            self._upkeep.failed(ASSIGNMENTS_FILE, exc)
            return False
        self._upkeep.written(ASSIGNMENTS_FILE)
        match.referee_id, match.referee_endpoint = referee.agent_id, referee.contact_endpoint
        match.status = "ASSIGNED"
        match.attempts += 1
        match.assignment = assignment
        self.gave(match.match_id, referee.agent_id)
        return True

    def check_holder(self, match: MatchProgress, referee_id: str, assignment: int | None) -> None:
        """Raises ProtocolError E014 unless ``referee_id`` holds the match under
        ``assignment`` (None: a referee that was given no number, judged by its id)."""
        current = match.assignment
        if referee_id == match.referee_id and assignment in (None, current):
            return
        held = f"it is held by {match.referee_id}" if match.referee_id else "it is not given out"
        if current is not None:
            held += f" under assignment {current}"
        if assignment is not None and referee_id in self._given.get(match.match_id, ()):
            self._event(
                "report_superseded",
                match_id=match.match_id,
                referee_id=referee_id,
                assignment=assignment,
                holder=match.referee_id,
                current=current,
            )
            raise ProtocolError(
                ErrorCode.NOT_AUTHORIZED,
                f"match {match.match_id}: assignment {assignment} of "
                f"{referee_id} was superseded ({held}); this result is not "
                "counted: stop the match and tell its players nothing",
            )
        raise ProtocolError(
            ErrorCode.NOT_AUTHORIZED,
            f"match {match.match_id} is not {referee_id}'s to report: {held}",
        )

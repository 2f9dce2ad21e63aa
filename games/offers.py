"""What the ultimatum game and alternating-offers bargaining share: a proposer makes a whole
offer out of the pie, then the other player accepts or rejects it. The games differ in who
proposes (always PLAYER_A, or by turns) and in what an answer leads to."""

from __future__ import annotations

from games.spec import NO_MOVE, ActionSpace, Game

__all__ = ["ACCEPT", "MOVE_TYPES", "REJECT", "RESPONSES", "OfferStages"]

MOVE_TYPES = ("offer", "response")
ACCEPT, REJECT = "accept", "reject"
RESPONSES = (ACCEPT, REJECT)
_RESPONSE_SPACE = ActionSpace.of_choices(RESPONSES)


class OfferStages(Game):
    """An offer stage, then a response stage, until the game says it is over. Subclasses
    hold ``_players``, ``_offer`` (None while no offer is on the table), ``_offer_space``,
    and say who proposes now (``_proposer_seat``) and when the game ends."""

    _players: tuple[str, ...]
    _offer: int | None
    _offer_space: ActionSpace

    def _proposer_seat(self) -> int:
        raise NotImplementedError

    def _stage(self) -> str:
        if self.is_terminal():
            return "over"
        return MOVE_TYPES[0] if self._offer is None else MOVE_TYPES[1]

    def acting_players(self) -> tuple[str, ...]:
        if self.is_terminal():
            return ()
        proposer = self._proposer_seat()
        return (self._players[proposer if self._offer is None else 1 - proposer],)

    def action_space(self, player: str) -> ActionSpace:
        self._check_player(player)
        if player not in self.acting_players():
            return NO_MOVE
        return self._offer_space if self._offer is None else _RESPONSE_SPACE

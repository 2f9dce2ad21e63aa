"""The League Manager's answers to questions: league_query (standings, schedule, a
player's next match or record) and get_standings. Reads only: nothing here changes the
league."""

from __future__ import annotations

from typing import Any

from league_manager.agents import AgentRegistry
from league_manager.answers import QueryAnswer
from league_manager.results_book import ResultsBook
from league_manager.schedule_book import ScheduleBook
from league_manager.standings_book import StandingsBook, standings_rows
from league_manager.suspension import PlayerHealth
from sdk.messages import LeagueQuery, LeagueQueryResponse, LeagueStandings, Method, seat_role

__all__ = ["LeagueQueries"]


class LeagueQueries:
    """Answers from the league's books and the registry; a player that asks counts as answering
    (``health``), as every call it makes does."""

    def __init__(
        self,
        *,
        league_id: str,
        sender: str,
        schedule: ScheduleBook,
        results: ResultsBook,
        standings: StandingsBook,
        agents: AgentRegistry,
        health: PlayerHealth,
    ):
        self._league_id = league_id
        self._sender = sender
        self._schedule = schedule
        self._results = results
        self._standings = standings
        self._agents = agents
        self._health = health

    async def standings_message(
        self, conversation_id: str = Method.GET_STANDINGS
    ) -> LeagueStandings:
        document = await self._standings.served()
        return LeagueStandings(
            sender=self._sender,
            conversation_id=conversation_id,
            league_id=self._league_id,
            version=document["version"],
            rounds_completed=document["rounds_completed"],
            standings=standings_rows(document),
        )

    async def query(self, request: LeagueQuery) -> LeagueQueryResponse:
        asker = self._agents.authenticate(request.sender, request.auth_token)
        self._health.answered(asker.agent_id)
        params = request.query_params
        common: QueryAnswer = {
            "sender": self._sender,
            "conversation_id": request.conversation_id,
            "league_id": self._league_id,
            "query_type": request.query_type,
        }
        if request.query_type == "GET_STANDINGS":
            data: Any = await self._standings.served()
        elif request.query_type == "GET_SCHEDULE":
            data = self._schedule_page(params)
        else:
            player_id = str(params.get("player_id") or asker.agent_id)
            if (agent := self._agents.get(player_id)) is None or agent.kind != "player":
                return LeagueQueryResponse(
                    success=False,
                    data=None,
                    error=f"{player_id!r} is not a registered player",
                    **common,
                )
            data = (
                self.next_match(player_id)
                if request.query_type == "GET_NEXT_MATCH"
                else self.player_stats(player_id)
            )
        return LeagueQueryResponse(success=True, data=data, **common)

    def _schedule_page(self, params: dict[str, Any]) -> dict[str, Any]:
        """GET_SCHEDULE: one round (``round_id``) or a page from ``from_round`` on."""
        round_id = params.get("round_id")
        if isinstance(round_id, int) and not isinstance(round_id, bool):
            if not 1 <= round_id <= len(self._schedule.rounds):
                return self._schedule.document(len(self._schedule.rounds) + 1)
            return self._schedule.document(round_id, max_rounds=1)
        start = params.get("from_round")
        return self._schedule.document(
            start if isinstance(start, int) and not isinstance(start, bool) else 1
        )

    def next_match(self, player_id: str) -> dict[str, Any] | None:
        """The player's first match without a result: its opponents, seat and referee."""
        match = self._schedule.next_match_of(player_id)
        if match is None:
            return None
        others = [other for other in match.player_ids if other != player_id]
        found = {
            "match_id": match.match_id,
            "round_id": match.round_id,
            "opponent_id": others[0],
            "role": seat_role(match.player_ids.index(player_id)),
            "referee_endpoint": match.referee_endpoint,
            "status": match.status,
        }
        return found | ({"opponent_ids": others} if len(others) > 1 else {})

    def player_stats(self, player_id: str) -> dict[str, Any]:
        """A player's record, rank and matches (O(its matches), never O(the league))."""
        matches = [
            {
                "match_id": res.match_id,
                "round_id": res.round_id,
                "outcome": res.outcomes[player_id],
                "points": res.points[player_id],
            }
            for res in self._results.results_of(player_id)
        ]
        agent = self._agents.get(player_id)
        rank = self._standings.rank_of(player_id)
        if rank is None:
            return {
                "player_id": player_id,
                "state": agent.state if agent else None,
                "rank": None,
                "record": None,
                "matches": matches,
            }
        return {
            "player_id": player_id,
            "state": agent.state if agent else None,
            "rank": rank,
            "record": self._standings.record(player_id).model_dump(),
            "matches": matches,
        }

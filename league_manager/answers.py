"""The envelope fields the League Manager's answers share with the request they answer."""

from __future__ import annotations

from typing import TypedDict

from sdk.messages import QueryType

__all__ = ["Answer", "MatchAnswer", "QueryAnswer"]


class Answer(TypedDict):
    """The envelope fields an answer of the League Manager shares with its request."""

    sender: str
    conversation_id: str
    league_id: str


class MatchAnswer(Answer):
    match_id: str


class QueryAnswer(Answer):
    query_type: QueryType

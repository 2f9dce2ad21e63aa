"""LLM players: the ``llm`` strategy asks an OpenAI-compatible chat-completions endpoint
for each move, with only what the referee sent this player (see ``doc/llm_players.md``).

Importing this package registers the ``llm`` strategy.
"""

from __future__ import annotations

from players.llm.client import ChatClient, ChatReply
from players.llm.errors import LlmBadResponse, LlmError, LlmHttpError, LlmTimeout
from players.llm.options import ENV_PREFIX, LlmOptions
from players.llm.parse import default_move, parse_move
from players.llm.prompts import PromptBook
from players.llm.strategy import LlmStrategy
from players.llm.usage import CallRecord, LlmReport, UsageBook, UsageTotals

__all__ = [
    "ENV_PREFIX",
    "CallRecord",
    "ChatClient",
    "ChatReply",
    "LlmBadResponse",
    "LlmError",
    "LlmHttpError",
    "LlmOptions",
    "LlmReport",
    "LlmStrategy",
    "LlmTimeout",
    "PromptBook",
    "UsageBook",
    "UsageTotals",
    "default_move",
    "parse_move",
]

"""LLM players: the ``llm`` strategy asks an OpenAI-compatible chat-completions endpoint
for each move, with only what the referee sent this player (see ``doc/llm_players.md``).

Importing this package registers the ``llm`` strategy.
"""

from __future__ import annotations

from strategies.llm.careful import careful_move, default_move
from strategies.llm.client import ChatClient, ChatReply
from strategies.llm.errors import LlmBadResponse, LlmError, LlmHttpError, LlmTimeout
from strategies.llm.options import ENV_PREFIX, LlmOptions
from strategies.llm.parse import parse_move
from strategies.llm.prompts import PromptBook
from strategies.llm.strategy import LlmStrategy
from strategies.llm.usage import CallRecord, LlmReport, UsageBook, UsageTotals

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
    "careful_move",
    "default_move",
    "parse_move",
]

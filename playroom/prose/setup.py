"""What a prose game is made of before it starts: each side's prompt and model options, the
shipped prompts (a generic default pair and the examples, ``playroom/prose/prompts/``), and
the game itself (``new_game``), with its transcript and one model client per side.

Each side's options come from what the caller gave, then this module's defaults (the token
limits: ``DEFAULT_MAX_TOKENS``), then ``LEAGUE_LLM_*`` (``strategies.llm.options``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from playroom.prose.engine import Conversation, ProseGame, RetryPolicy, Side
from playroom.transcript import Transcript
from strategies.llm.client import ChatClient
from strategies.llm.options import LlmOptions

__all__ = [
    "DEFAULT_EXAMPLE",
    "DEFAULT_MAX_TOKENS",
    "PROMPTS",
    "SideSetup",
    "example_names",
    "new_game",
    "shipped_prompt",
]

PROMPTS = Path(__file__).resolve().parent / "prompts"
"""One folder per shipped pair, each with ``manager.md`` and ``player.md``."""
DEFAULT_EXAMPLE = "default"
"""The generic pair, used for a side whose config gives no prompt and names no example."""
DEFAULT_MAX_TOKENS: dict[Side, int] = {"manager": 500, "player": 100}
"""Enough for the game master to show the state and rules; the opponent answers a line."""


def example_names() -> list[str]:
    """The shipped pairs but the default one, by name."""
    return sorted(
        folder.name
        for folder in PROMPTS.iterdir()
        if folder.is_dir() and folder.name != DEFAULT_EXAMPLE and (folder / "manager.md").is_file()
    )


@cache
def shipped_prompt(example: str, side: Side) -> str:
    """The text of a shipped prompt.

    Raises:
        KeyError: no such pair.
    """
    if example != DEFAULT_EXAMPLE and example not in example_names():
        raise KeyError(example)
    return (PROMPTS / example / f"{side}.md").read_text(encoding="utf-8").strip()


@dataclass(frozen=True)
class SideSetup:
    """One side as it will play: its prompt, where the prompt came from, its model options."""

    side: Side
    prompt: str
    source: str
    """``default``, ``example:<name>``, ``custom`` (given in a request) or ``file:<path>``."""
    options: LlmOptions

    @classmethod
    def resolve(cls, side: Side, prompt: str, source: str, given: Mapping[str, Any]) -> SideSetup:
        """The side with ``given`` options (None: unset), else its token limit and
        ``LEAGUE_LLM_*``.

        Raises:
            pydantic.ValidationError: an option is refused.
        """
        options = {**given, "max_tokens": given.get("max_tokens") or DEFAULT_MAX_TOKENS[side]}
        return cls(side, prompt, source, LlmOptions.resolve(options))

    def as_config(self) -> dict[str, Any]:
        """What the transcript keeps of it (never the API key)."""
        return {
            "prompt": self.prompt,
            "source": self.source,
            "model": self.options.model,
            "temperature": self.options.temperature,
            "max_tokens": self.options.max_tokens,
        }


def new_game(
    manager: SideSetup,
    player: SideSetup,
    *,
    game: str,
    max_turns: int,
    retry: RetryPolicy,
) -> ProseGame:
    """A game not started, its transcript's configs holding both sides (the prompts' text
    included) and the limits; ``ProseGame.close`` releases its two clients."""
    transcript = Transcript(
        mode="prose",
        game=game,
        configs={
            "manager": manager.as_config(),
            "player": player.as_config(),
            "max_turns": max_turns,
            "retry": {"call_timeout_sec": retry.call_timeout_sec, "retry_sec": retry.retry_sec},
        },
    )
    return ProseGame(
        Conversation("manager", ChatClient(manager.options), manager.options.model, manager.prompt),
        Conversation("player", ChatClient(player.options), player.options.model, player.prompt),
        transcript,
        max_turns=max_turns,
        retry=retry,
    )

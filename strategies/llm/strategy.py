"""The ``llm`` strategy: each move is asked of a chat model, with only this player's view.

Per match it keeps one conversation (system message, then a user message per move and the
model's answers), so the model remembers the match; nothing else goes in it, so it cannot
learn what the referee did not send this player. An answer that is not a legal move gets
one short clarification; a second bad answer, an HTTP error or no answer before the
deadline (less ``safety_margin_sec``) plays the declared default move, else what a careful
player would (``strategies.llm.careful``: never accepting less than its reservation value),
counted and logged.
"""

from __future__ import annotations

import json
import logging
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import ValidationError

from games.spec import Action
from sdk.timeutil import utc_now
from strategies.base import Classifier, Say, Strategy
from strategies.llm.careful import default_move
from strategies.llm.client import ChatClient, ChatReply, Message
from strategies.llm.errors import LlmError
from strategies.llm.options import LlmOptions
from strategies.llm.parse import parse_move
from strategies.llm.prompts import PromptBook
from strategies.llm.usage import CallRecord, FallbackReason, LlmReport, UsageBook
from strategies.registry import register_strategy
from strategies.view import MoveView, PastMatch

__all__ = ["LlmStrategy"]

_log = logging.getLogger(__name__)
MAX_OPEN_MATCHES = 64
"""Conversations kept at once; the oldest goes first (a match whose GAME_OVER never came)."""


@register_strategy("llm")
class LlmStrategy(Strategy):
    """Asks an OpenAI-compatible chat model (OpenAI, vLLM, Ollama, llama.cpp) for each move;
    options or LEAGUE_LLM_* variables say which (see doc/llm_players.md)."""

    classifier: ClassVar[Classifier] = Classifier(memory_depth=None)
    """Not ``stochastic`` in the host's sense (it takes no ``seed``): any randomness is
    the model's, and ``temperature`` defaults to 0."""

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        default_move: Any = None,
        safety_margin_sec: float | None = None,
        prompt_dir: str | None = None,
    ):
        given = {
            "base_url": base_url,
            "model": model,
            "api_key": api_key,
            "temperature": temperature,
            "max_tokens": max_tokens,
            "default_move": default_move,
            "safety_margin_sec": safety_margin_sec,
            "prompt_dir": Path(prompt_dir) if prompt_dir else None,
        }
        try:
            self.options = LlmOptions.resolve(given)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)
            )
            raise ValueError(problems) from None
        self.prompts = PromptBook(self.options.prompt_dir)
        self.usage = UsageBook()
        self._client: ChatClient | None = None
        self._conversations: OrderedDict[str, list[Message]] = OrderedDict()

    @property
    def client(self) -> ChatClient:
        """Built on first use: the settings check builds a strategy it never plays."""
        if self._client is None:
            self._client = ChatClient(self.options)
        return self._client

    # -- one move -----------------------------------------------------------------------

    def choose(self, view: MoveView) -> Action | Say:
        """The model's legal move, or ``Say(default, fallback=reason)`` when it gave none in
        time (the host counts that move among its fallbacks, once)."""
        stop_at = (
            time.monotonic()
            + (view.deadline - utc_now()).total_seconds()
            - self.options.safety_margin_sec
        )
        space = view.space()
        fallback = default_move(
            space,
            self.options.default_move,
            game_type=view.game_type,
            observation=view.observation,
        )
        conversation = self._conversation(view, fallback)
        conversation.append(
            {"role": "user", "content": self.prompts.turn(view, stop_at - time.monotonic())}
        )
        reason: FallbackReason = "invalid"
        try:
            answer = self._ask(view, conversation, "move", stop_at)
            move = parse_move(answer, space)
            if move is None:
                conversation.append(
                    {"role": "user", "content": self.prompts.clarify(answer, space, fallback)}
                )
                answer = self._ask(view, conversation, "clarification", stop_at)
                move = parse_move(answer, space)
        except LlmError as exc:
            reason, move = exc.reason, None
        if move is not None:
            self.usage.add_move(view.match_id, view.league_id, None)
            return move
        _log.warning("llm_fallback match_id=%s reason=%s move=%r", view.match_id, reason, fallback)
        conversation.append({"role": "assistant", "content": json.dumps({"move": fallback})})
        self.usage.add_move(view.match_id, view.league_id, reason)
        return Say(fallback, fallback=reason)

    def _conversation(self, view: MoveView, example: Action) -> list[Message]:
        """This match's conversation, started with its system message on the first move."""
        conversation = self._conversations.get(view.match_id)
        if conversation is None:
            conversation = [{"role": "system", "content": self.prompts.system(view, example)}]
            self._conversations[view.match_id] = conversation
            while len(self._conversations) > MAX_OPEN_MATCHES:
                self._conversations.popitem(last=False)
        return conversation

    def _ask(
        self,
        view: MoveView,
        conversation: list[Message],
        attempt: Literal["move", "clarification"],
        stop_at: float,
    ) -> str:
        """One call, recorded whatever its outcome; the answer joins the conversation."""
        started = time.perf_counter()
        reply: ChatReply | None = None
        try:
            reply = self.client.complete(conversation, budget_sec=stop_at - time.monotonic())
        except LlmError as exc:
            self.usage.add_call(
                CallRecord(
                    match_id=view.match_id,
                    league_id=view.league_id,
                    attempt=attempt,
                    model=self.options.model,
                    error=f"{exc.reason}: {exc}",
                    latency_ms=round((time.perf_counter() - started) * 1000, 3),
                )
            )
            _log.warning(
                "llm_call_failed match_id=%s attempt=%s error=%s", view.match_id, attempt, exc
            )
            raise
        self.usage.add_call(
            CallRecord(
                match_id=view.match_id,
                league_id=view.league_id,
                attempt=attempt,
                model=reply.model,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                latency_ms=round(reply.latency_ms, 3),
                text=reply.text,
            )
        )
        conversation.append({"role": "assistant", "content": reply.text})
        return reply.text

    # -- hooks --------------------------------------------------------------------------

    def on_match_over(self, result: PastMatch) -> None:
        """The match's conversation is over; its totals stay in the report."""
        self._conversations.pop(result.match_id, None)

    def reset(self) -> None:
        self._conversations.clear()

    def report(self) -> dict[str, Any]:
        return self.llm_report().model_dump(mode="json")

    def llm_report(self) -> LlmReport:
        return self.usage.report(self.options.model, self.options.base_url)

"""The prose-game engine, step by step: ``start`` the game, then one ``move`` per message of
the person. The terminal (``league play --manager-prompt``, ``league_cli/prose_game.py``)
and the play service's ``/api/games/sessions`` (``playroom.prose.api``) drive this one loop;
only where the person's words come from and where the Game's go differ.

1. The game master (the manager) gets ``START_MESSAGE``, then each message of the person
   with any protocol tag removed.
2. When its reply holds ``[PLAYER_TURN]…[/PLAYER_TURN]`` blocks, only their content goes to
   the opponent (its own conversation: the player prompt, the blocks it was sent, its
   answers); each answer returns inside ``[PLAYER_DECISION]…[/PLAYER_DECISION]`` and the
   game master answers again, at most ``MAX_RELAYS`` times in a row.
3. A reply with no block is shown to the person, tags stripped (``tags.for_human``).
4. ``[GAME_OVER]`` in a shown reply ends the game, as do ``max_turns`` messages of the
   person (and, from the caller, the end of the terminal's input).

Every model call is retried with backoff within ``RetryPolicy.retry_sec``; when it still
gives no text, the step is undone (both conversations as they were before it, the person's
message not taken) and ``ModelUnavailable`` says so: the same message may be sent again.
Every message goes in the transcript: what the person saw and wrote as ``visible``; the
game master's raw replies, what the opponent was sent and its answers as ``internal``;
every model call in ``llm_calls``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from playroom.prose.tags import (
    decision_message,
    for_human,
    is_game_over,
    player_turns,
    without_tags,
)
from playroom.transcript import (
    LlmCall,
    MessageRole,
    Transcript,
    TranscriptMessage,
    Visibility,
)
from strategies.llm.client import ChatReply, Message
from strategies.llm.errors import LlmError, LlmHttpError

__all__ = [
    "MAX_RELAYS",
    "START_MESSAGE",
    "ChatModel",
    "Conversation",
    "EndReason",
    "GameStatus",
    "ModelUnavailable",
    "ProseGame",
    "RetryPolicy",
    "Side",
    "StepRefused",
]

START_MESSAGE = (
    "[GAME_START] A human player has joined. Greet them, explain what they may know of the "
    "rules and show the state."
)
MAX_RELAYS = 4
"""Opponent turns the game master may ask for in a row before the person is shown text."""
HUMAN, OPPONENT = "human", "opponent"
END_LINES = {
    "max_turns": "The turn limit was reached.",
    "input_closed": "The input closed.",
}
"""What the person is told when the game ends other than by the game master's ``[GAME_OVER]``."""

Side = Literal["manager", "player"]
GameStatus = Literal["new", "playing", "over"]
EndReason = Literal["game_over", "max_turns", "input_closed"]
_NOT_RETRIED = frozenset(range(400, 500)) - {408, 409, 425, 429}
"""HTTP statuses that the same call would get again (a bad key, an unknown model)."""


class ChatModel(Protocol):
    """What the engine needs of ``strategies.llm.client.ChatClient``."""

    def complete(self, messages: list[Message], *, budget_sec: float) -> ChatReply: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class RetryPolicy:
    """How long one model call may take, its retries included: each attempt waits at most
    ``call_timeout_sec`` (and never past ``retry_sec`` from the first), and the waits between
    attempts double from ``first_backoff_sec`` up to ``max_backoff_sec``."""

    call_timeout_sec: float = 60.0
    retry_sec: float = 90.0
    first_backoff_sec: float = 0.5
    max_backoff_sec: float = 8.0

    def backoff(self, failures: int) -> float:
        """The wait after the ``failures``-th failed attempt."""
        return float(min(self.first_backoff_sec * 2 ** (failures - 1), self.max_backoff_sec))


class StepRefused(Exception):
    """The game cannot take this step now (not started, started already, over)."""


class ModelUnavailable(LlmError):
    """A model call gave no text within the retry budget: the step was undone, and the same
    message may be sent again (``retryable``), unless the model refused the call itself (an
    HTTP 4xx such as a bad key or an unknown model), which trying again will not mend."""

    def __init__(self, side: Side, last: LlmError, attempts: int, elapsed_sec: float):
        self.side, self.last, self.attempts = side, last, attempts
        self.retryable = not (isinstance(last, LlmHttpError) and last.status in _NOT_RETRIED)
        whose = "game master's" if side == "manager" else "opponent's"
        tries = "1 try" if attempts == 1 else f"{attempts} tries"
        super().__init__(
            f"the {whose} model gave no answer ({last}; {tries} in {elapsed_sec:.1f} s)"
        )


@dataclass
class Conversation:
    """One model's own history: its system prompt, what it was told, what it answered."""

    side: Side
    model: ChatModel
    model_name: str
    """The model asked for (what ``llm_calls`` names when no answer named one)."""
    system: str
    messages: list[Message] = field(default_factory=list)

    def sent(self) -> list[Message]:
        return [{"role": "system", "content": self.system}, *self.messages]


class ProseGame:
    """The game master, the opponent and the person, wired by the tags, one step at a time."""

    def __init__(
        self,
        manager: Conversation,
        opponent: Conversation,
        transcript: Transcript,
        *,
        max_turns: int,
        retry: RetryPolicy,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.manager = manager
        self.opponent = opponent
        self.transcript = transcript
        self.max_turns = max_turns
        self.retry = retry
        self._sleep, self._clock = sleep, clock
        self.status: GameStatus = "new"
        self.end: EndReason | None = None
        self.human_turns = 0
        self.last_shown = ""

    # -- the steps --------------------------------------------------------------------------

    def start(self) -> None:
        """The game master's opening (which may involve the opponent), shown to the person.

        Raises:
            StepRefused: the game has started already.
            ModelUnavailable: a model gave no text; nothing changed, start again.
        """
        if self.status != "new":
            raise StepRefused(f"the game has started already (it is {self.status})")
        self._log("referee", START_MESSAGE, "referee")
        self._step(START_MESSAGE, None)
        self.status = "playing"
        self._check_end()

    def move(self, text: str) -> None:
        """The person's message, through the game master (and the opponent) to its answer.

        Raises:
            StepRefused: the game has not started, or is over.
            ValueError: the message is empty.
            ModelUnavailable: a model gave no text; the message was not taken, send it again.
        """
        if self.status != "playing":
            raise StepRefused(
                "the game has not started" if self.status == "new" else "the game is over"
            )
        said = text.strip()
        if not said:
            raise ValueError("the message is empty")
        self._step(without_tags(said), said)
        self.human_turns += 1
        self._check_end()

    def stop(self, reason: EndReason) -> None:
        """End the game from outside (the terminal's input closed), telling the person."""
        if self.status == "over":
            return
        self._finish(reason)

    def shown_since(self, mark: int) -> list[TranscriptMessage]:
        """The visible messages the engine added from ``transcript.messages[mark]`` on, but
        the person's own (what a terminal prints after a step)."""
        return [
            m
            for m in self.transcript.messages[mark:]
            if m.visibility == "visible" and m.role != "human"
        ]

    @property
    def result(self) -> dict[str, Any]:
        return {
            "status": self.end,
            "human_turns": self.human_turns,
            "final_text": self.last_shown,
        }

    def close(self) -> None:
        """Release both models' connections."""
        self.manager.model.close()
        self.opponent.model.close()

    # -- inside a step ----------------------------------------------------------------------

    def _step(self, text: str, said: str | None) -> None:
        """Ask the game master (and, through it, the opponent) and show its answer; the
        person's message ``said`` is recorded where it was said, once the step is taken.

        Raises:
            ModelUnavailable: see ``move``; both conversations are as they were.
        """
        marks = len(self.manager.messages), len(self.opponent.messages)
        at = len(self.transcript.messages)
        try:
            reply = self._relay(self._ask(self.manager, text))
        except ModelUnavailable as exc:
            del self.manager.messages[marks[0] :]
            del self.opponent.messages[marks[1] :]
            what = "the opening" if said is None else f"the person's message {said!r}"
            self._log("referee", f"{what} was not taken: {exc}", "referee")
            raise
        if said is not None:
            self.transcript.messages.insert(
                at, TranscriptMessage(role="human", text=said, speaker=HUMAN)
            )
        self.last_shown = for_human(reply)
        self._log("manager", self.last_shown, "manager", "visible")

    def _relay(self, reply: str) -> str:
        """Pass the reply's blocks to the opponent until the game master writes text for
        the person (or ``MAX_RELAYS`` is spent); returns that last reply."""
        for _ in range(MAX_RELAYS):
            turns = player_turns(reply)
            if not turns:
                break
            decisions = []
            for turn in turns:
                self._log("manager", turn, f"manager->{OPPONENT}")
                answer = self._ask(self.opponent, turn)
                decisions.append(decision_message(answer))
            reply = self._ask(self.manager, "\n".join(decisions))
        return reply

    def _ask(self, conversation: Conversation, text: str) -> str:
        """The model's answer to ``text``, kept in its history and the transcript, the call
        in ``llm_calls``; retried with backoff within ``retry.retry_sec``.

        Raises:
            ModelUnavailable: no text within the budget, or a refusal not worth retrying.
        """
        conversation.messages.append({"role": "user", "content": text})
        began = self._clock()
        deadline = began + self.retry.retry_sec
        attempts = 0
        while True:
            attempts += 1
            budget = min(self.retry.call_timeout_sec, deadline - self._clock())
            try:
                reply = conversation.model.complete(conversation.sent(), budget_sec=budget)
                break
            except LlmError as exc:
                wait = self.retry.backoff(attempts)
                failed = ModelUnavailable(conversation.side, exc, attempts, self._clock() - began)
                if not failed.retryable or self._clock() + wait >= deadline:
                    self._record(conversation, None, attempts, began, str(exc))
                    raise failed from None
                self._sleep(wait)
        conversation.messages.append({"role": "assistant", "content": reply.text})
        self._record(conversation, reply, attempts, began, None)
        if conversation.side == "manager":
            self._log("manager", reply.text, "manager:raw")
        else:
            self._log("player", reply.text, OPPONENT)
        return reply.text

    def _record(
        self,
        conversation: Conversation,
        reply: ChatReply | None,
        attempts: int,
        began: float,
        error: str | None,
    ) -> None:
        elapsed_ms = (self._clock() - began) * 1000
        self.transcript.record_call(
            LlmCall(
                role=conversation.side,
                model=reply.model if reply else conversation.model_name,
                prompt_tokens=reply.prompt_tokens if reply else 0,
                completion_tokens=reply.completion_tokens if reply else 0,
                latency_ms=reply.latency_ms if reply else elapsed_ms,
                elapsed_ms=elapsed_ms,
                attempts=attempts,
                retried=attempts > 1,
                error=error,
            )
        )

    def _check_end(self) -> None:
        if is_game_over(self.manager.messages[-1]["content"]):
            self._finish("game_over")
        elif self.human_turns >= self.max_turns:
            self._finish("max_turns")

    def _finish(self, reason: EndReason) -> None:
        self.status, self.end = "over", reason
        if reason in END_LINES:
            self._log("referee", END_LINES[reason], "referee", "visible")
        self.transcript.finish(self.result)

    def _log(
        self, role: MessageRole, text: str, speaker: str, visibility: Visibility = "internal"
    ) -> None:
        self.transcript.add(role, text, visibility=visibility, speaker=speaker)

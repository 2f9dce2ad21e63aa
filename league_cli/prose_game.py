"""``league play --manager-prompt M.md --player-prompt P.md``: a game written only in prose.

A game-master LLM (the manager prompt: rules, each side's private values, how to show the
state) plays a human at the terminal against an LLM opponent (the player prompt) whose
context is isolated. The loop:

1. the game master gets ``START_MESSAGE``, then each line the human types;
2. when its reply holds a ``[PLAYER_TURN]…[/PLAYER_TURN]`` block, only the block's content
   goes to the opponent (its own conversation: the player prompt, the blocks it was sent,
   its answers), and the answer returns inside ``[PLAYER_DECISION]…[/PLAYER_DECISION]``;
   the game master answers again (at most ``MAX_RELAYS`` times in a row);
3. a reply with no block is shown to the human, tags stripped (``prose_tags.for_human``);
4. ``[GAME_OVER]`` in a shown reply ends the game, as do ``max_turns`` human turns and the
   end of the input.

Every message goes in the transcript: what the human saw and typed as ``visible``; the
game master's raw replies, what the opponent was sent and its answers as ``internal``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, TextIO

from rich.console import Console
from rich.markup import escape

from league_cli.prose_tags import (
    decision_message,
    for_human,
    is_game_over,
    player_turns,
    without_tags,
)
from playroom.transcript import MessageRole, TokenUsage, Transcript, Visibility
from strategies.llm.client import ChatClient, ChatReply, Message
from strategies.llm.errors import LlmError
from strategies.llm.options import LlmOptions

__all__ = [
    "MAX_RELAYS",
    "START_MESSAGE",
    "ChatModel",
    "Conversation",
    "EndReason",
    "ProseGame",
    "ProseResult",
    "prose_transcript",
    "run_prose",
]

START_MESSAGE = (
    "[GAME_START] A human player has joined at the terminal. Greet them, "
    "explain what they may know of the rules and show the state."
)
MAX_RELAYS = 4
"""Opponent turns the game master may ask for in a row before the human is shown text."""
MANAGER, OPPONENT, HUMAN = "manager", "opponent", "human"

EndReason = Literal["game_over", "max_turns", "input_closed"]


class ChatModel(Protocol):
    """What the loop needs of ``strategies.llm.client.ChatClient``."""

    def complete(self, messages: list[Message], *, budget_sec: float) -> ChatReply: ...


@dataclass
class Conversation:
    """One model's own history: its system prompt, what it was told, what it answered."""

    model: ChatModel
    system: str
    budget_sec: float
    tokens: TokenUsage
    messages: list[Message] = field(default_factory=list)

    def ask(self, text: str) -> str:
        """The model's answer to ``text``, kept in this history with its token counts.

        Raises:
            strategies.llm.errors.LlmError: the call gave no text.
        """
        self.messages.append({"role": "user", "content": text})
        reply = self.model.complete(
            [{"role": "system", "content": self.system}, *self.messages], budget_sec=self.budget_sec
        )
        self.messages.append({"role": "assistant", "content": reply.text})
        self.tokens.calls += 1
        self.tokens.prompt_tokens += reply.prompt_tokens
        self.tokens.completion_tokens += reply.completion_tokens
        return reply.text


@dataclass(frozen=True)
class ProseResult:
    reason: EndReason
    human_turns: int
    final_text: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.reason,
            "human_turns": self.human_turns,
            "final_text": self.final_text,
        }


class ProseGame:
    """The game master, the opponent and the human's terminal, wired by the tags."""

    def __init__(
        self,
        manager: Conversation,
        opponent: Conversation,
        transcript: Transcript,
        *,
        stdin: TextIO,
        out: Console,
        max_turns: int,
    ):
        self.manager = manager
        self.opponent = opponent
        self.transcript = transcript
        self._stdin = stdin
        self._out = out
        self._max_turns = max_turns

    def _log(
        self, role: MessageRole, text: str, speaker: str, visibility: Visibility = "internal"
    ) -> None:
        self.transcript.add(role, text, visibility=visibility, speaker=speaker)

    def _relay(self, reply: str) -> str:
        """Pass the reply's blocks to the opponent until the game master writes text for
        the human (or ``MAX_RELAYS`` is spent); returns that last reply."""
        for _ in range(MAX_RELAYS):
            turns = player_turns(reply)
            if not turns:
                break
            decisions = []
            for turn in turns:
                self._log("manager", turn, f"{MANAGER}->{OPPONENT}")
                answer = self.opponent.ask(turn)
                self._log("player", answer, OPPONENT)
                decisions.append(decision_message(answer))
            reply = self._manager_says("\n".join(decisions))
        return reply

    def _manager_says(self, text: str) -> str:
        """The game master's raw reply to ``text`` (logged as internal)."""
        reply = self.manager.ask(text)
        self._log("manager", reply, f"{MANAGER}:raw")
        return reply

    def _show(self, reply: str) -> str:
        shown = for_human(reply)
        self._out.print(escape(shown) if shown else "[dim](the game master said nothing)[/dim]")
        self._log("manager", shown, MANAGER, visibility="visible")
        return shown

    def _read_human(self) -> str | None:
        """The human's next non-empty line, tags removed; None when the input closed."""
        while True:
            self._out.print("[bold]You:[/bold] ", end="")
            line = self._stdin.readline()
            if not line:
                return None
            text = line.strip()
            if text:
                self._log("human", text, HUMAN, visibility="visible")
                return without_tags(text)

    def run(self) -> ProseResult:
        """Play until the game master ends the game, the turns run out or stdin closes.

        Raises:
            strategies.llm.errors.LlmError: a model call gave no text.
        """
        self._log("referee", START_MESSAGE, "referee")
        shown = self._show(self._relay(self._manager_says(START_MESSAGE)))
        turns = 0
        while True:
            if is_game_over(self.manager.messages[-1]["content"]):
                return ProseResult("game_over", turns, shown)
            if turns >= self._max_turns:
                return ProseResult("max_turns", turns, shown)
            text = self._read_human()
            if text is None:
                return ProseResult("input_closed", turns, shown)
            turns += 1
            shown = self._show(self._relay(self._manager_says(text)))


def prose_transcript(
    manager_prompt: Path,
    player_prompt: Path,
    *,
    manager_model: str,
    player_model: str,
    max_turns: int,
) -> Transcript:
    """An empty transcript of a prose game, with the prompts and models in its configs."""
    return Transcript(
        mode="prose",
        game=manager_prompt.parent.name or manager_prompt.stem,
        configs={
            "manager_prompt": str(manager_prompt),
            "player_prompt": str(player_prompt),
            "manager_model": manager_model,
            "player_model": player_model,
            "max_turns": max_turns,
        },
    )


def _read_prompt(path: Path, flag: str) -> str:
    """A prompt file's text.

    Raises:
        ValueError: it cannot be read or is empty.
    """
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ValueError(f"{flag} {path}: {exc.strerror or exc}") from None
    if not text:
        raise ValueError(f"{flag} {path} is empty")
    return text


def run_prose(
    manager_prompt: Path,
    player_prompt: Path,
    *,
    manager_options: Mapping[str, Any],
    player_options: Mapping[str, Any],
    max_turns: int,
    call_timeout_sec: float,
    transcript_path: Path,
    stdin: TextIO,
    out: Console,
) -> tuple[ProseResult, Path]:
    """Play one prose game and save its transcript (also when a model call fails).

    Returns:
        How it ended, and the JSON transcript's path.

    Raises:
        ValueError, pydantic.ValidationError: a prompt or an option is refused.
        LlmError: a model call gave no text (the transcript is saved first).
    """
    if max_turns < 1:
        raise ValueError(f"--max-turns must be at least 1, not {max_turns}")
    manager_text = _read_prompt(manager_prompt, "--manager-prompt")
    player_text = _read_prompt(player_prompt, "--player-prompt")
    manager_llm = LlmOptions.resolve(manager_options)
    player_llm = LlmOptions.resolve(player_options)
    transcript = prose_transcript(
        manager_prompt,
        player_prompt,
        manager_model=manager_llm.model,
        player_model=player_llm.model,
        max_turns=max_turns,
    )
    manager_client, player_client = ChatClient(manager_llm), ChatClient(player_llm)
    game = ProseGame(
        Conversation(manager_client, manager_text, call_timeout_sec, transcript.tokens),
        Conversation(player_client, player_text, call_timeout_sec, transcript.tokens),
        transcript,
        stdin=stdin,
        out=out,
        max_turns=max_turns,
    )
    out.rule(f"{transcript.game}: you against an LLM, refereed by an LLM game master")
    try:
        result = game.run()
    except LlmError as exc:
        transcript.add(
            "referee", f"model call failed: {exc}", visibility="internal", speaker="referee"
        )
        transcript.finish({"status": "error", "reason": str(exc)})
        transcript.save(transcript_path)
        raise
    finally:
        manager_client.close()
        player_client.close()
    if result.reason != "game_over":
        line = (
            "The turn limit was reached." if result.reason == "max_turns" else "The input closed."
        )
        out.print(f"[bold]{line}[/bold]")
        transcript.add("referee", line, speaker="referee")
    transcript.finish(result.as_dict())
    json_path, csv_path = transcript.save(transcript_path)
    out.print(f"Transcript saved: {json_path} and {csv_path}")
    return result, json_path

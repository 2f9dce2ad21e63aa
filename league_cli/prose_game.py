"""``league play --manager-prompt M.md --player-prompt P.md``: a game written only in prose,
at the terminal.

The loop is the play service's (``playroom/prose/engine.py``, doc/prose_games.md): this
module reads the person's lines from stdin, prints what the game master shows them, and
saves the transcript. A model that gives no answer within the retry budget on a line does
not end the game: the line was not taken and the person types it again; when it fails on
the opening, or refuses the call itself (a bad key, an unknown model), the game ends with
the transcript saved.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape

from playroom.prose.engine import ModelUnavailable, ProseGame, RetryPolicy
from playroom.prose.setup import SideSetup, new_game

__all__ = ["RETRY_EXTRA_SEC", "play_in_terminal", "run_prose"]

RETRY_EXTRA_SEC = 30.0
"""How long past one call's timeout a model call may go on being retried."""


def _print_since(game: ProseGame, mark: int, out: Console) -> None:
    for message in game.shown_since(mark):
        if message.role == "referee":
            out.print(f"[bold]{escape(message.text)}[/bold]")
        else:
            out.print(escape(message.text) if message.text else "[dim](the game said nothing)[/]")


def _read_line(stdin: TextIO, out: Console) -> str | None:
    """The person's next non-empty line; None when the input closed."""
    while True:
        out.print("[bold]You:[/bold] ", end="")
        line = stdin.readline()
        if not line:
            return None
        if line.strip():
            return line.strip()


def play_in_terminal(game: ProseGame, stdin: TextIO, out: Console) -> dict[str, Any]:
    """Play ``game`` until the game master ends it, the turns run out or stdin closes;
    returns how it ended (``ProseGame.result``).

    Raises:
        ModelUnavailable: the opening got no answer, or a model refused a call.
    """
    mark = len(game.transcript.messages)
    game.start()
    _print_since(game, mark, out)
    while game.status == "playing":
        line = _read_line(stdin, out)
        mark = len(game.transcript.messages)
        if line is None:
            game.stop("input_closed")
        else:
            try:
                game.move(line)
            except ModelUnavailable as exc:
                if not exc.retryable:
                    raise
                out.print(f"[bold]Your line was not taken: {escape(str(exc))}. Type it again.[/]")
                continue
        _print_since(game, mark, out)
    return game.result


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
    retry_sec: float | None = None,
) -> tuple[dict[str, Any], Path]:
    """Play one prose game and save its transcript (also when a model call fails).

    ``retry_sec``: how long one model call may be retried (default: ``call_timeout_sec``
    plus ``RETRY_EXTRA_SEC``).

    Returns:
        How it ended, and the JSON transcript's path.

    Raises:
        ValueError, pydantic.ValidationError: a prompt or an option is refused.
        ModelUnavailable: see ``play_in_terminal`` (the transcript is saved first).
    """
    if max_turns < 1:
        raise ValueError(f"--max-turns must be at least 1, not {max_turns}")
    manager = SideSetup.resolve(
        "manager",
        _read_prompt(manager_prompt, "--manager-prompt"),
        f"file:{manager_prompt}",
        manager_options,
    )
    player = SideSetup.resolve(
        "player",
        _read_prompt(player_prompt, "--player-prompt"),
        f"file:{player_prompt}",
        player_options,
    )
    retry = RetryPolicy(
        call_timeout_sec=call_timeout_sec,
        retry_sec=call_timeout_sec + RETRY_EXTRA_SEC if retry_sec is None else retry_sec,
    )
    game = new_game(
        manager,
        player,
        game=manager_prompt.parent.name or manager_prompt.stem,
        max_turns=max_turns,
        retry=retry,
    )
    transcript = game.transcript
    out.rule(f"{transcript.game}: you against an LLM, refereed by an LLM game master")
    try:
        result = play_in_terminal(game, stdin, out)
    except ModelUnavailable as exc:
        transcript.finish({"status": "error", "reason": str(exc)})
        transcript.save(transcript_path)
        raise
    finally:
        game.close()
    json_path, csv_path = transcript.save(transcript_path)
    out.print(f"Transcript saved: {json_path} and {csv_path}")
    return result, json_path

"""``league play``: a person plays a game of ``games/`` at the terminal against an agent.

The opponent is a strategy of the player host (``tit_for_tat``, ``builtin:random``…),
played in process, or a running player by URL, called over the real protocol by the
match engine (``match_engine``) with the person's seat answered at the terminal (the remote
player gets GAME_INVITATION, its move calls and GAME_OVER as in a league). The game loop is
``playroom/session.py``'s, shared with the League Manager's ``/play`` page: the
person sees only their observation, types a move that is checked against their action space
(a bad one is explained and asked again), and a transcript (JSON and CSV) is saved at the end.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from games import Action, ActionSpace, UnknownGameError, load_game
from games.guide import Guide
from league_cli.console import console, fail
from league_cli.prose_game import run_prose
from playroom.narration import narrate
from playroom.session import (
    HUMAN_ID,
    OPPONENT_ID,
    Opponent,
    PlayError,
    new_transcript,
    play_game,
    score_line,
)
from playroom.transcript import Transcript
from sdk.config import ConfigError, SharedDir
from sdk.timeutil import utc_now
from strategies.errors import StrategyError
from strategies.human import history_table, observation_table, parse_move, space_hint
from strategies.llm.errors import LlmError

__all__ = ["HUMAN_ID", "HumanSeat", "play"]


class HumanSeat:
    """The person's seat at the terminal (a ``playroom.session.PersonView``): shows their
    observation, asks for a move until it is legal, and writes what they saw and typed into
    the transcript."""

    def __init__(
        self, transcript: Transcript, *, stdin: TextIO, out: Console, guide: Guide | None = None
    ):
        self.transcript = transcript
        self._stdin = stdin
        self._out = out
        self._guide = guide

    def show(self, observation: Mapping[str, Any], title: str) -> None:
        """Render the observation (and a repeated game's history) and record its text."""
        out = self._out
        out.print(observation_table(dict(observation), title=title))
        table = history_table(list(observation.get("history") or []), HUMAN_ID)
        if table is not None:
            out.print(table)
        self.transcript.add(
            "referee", f"{title}: {narrate(observation, self._guide)}", speaker="referee"
        )

    def tell(self, line: str) -> None:
        self._out.print(escape(line))
        self.transcript.add("referee", line, speaker="referee")

    def score(self, returns: Mapping[str, float]) -> None:
        self.tell(score_line(returns))

    async def ask(self, observation: Mapping[str, Any], space: ActionSpace, stage: int) -> Action:
        """The person's legal move, read from the terminal in a worker thread."""
        return await asyncio.to_thread(self._ask, observation, space, stage)

    def _ask(self, observation: Mapping[str, Any], space: ActionSpace, stage: int) -> Action:
        """Raises PlayError: the input closed before a legal move was typed."""
        self.show(observation, f"Stage {stage}: what you see")
        hint = f"Legal moves: {space_hint(space)}"
        self._out.print(hint)
        self.transcript.add("referee", hint, speaker="referee")
        while True:
            self._out.print("Your move: ", end="")
            line = self._stdin.readline()
            if not line:
                raise PlayError("the input closed before a move was typed")
            try:
                move = parse_move(line, space)
            except ValueError as exc:
                self.transcript.add("human", line.strip(), speaker=HUMAN_ID)
                self._out.print(f"[yellow]{escape(str(exc))}[/yellow]")
                self.transcript.add("referee", str(exc), speaker="referee")
                continue
            self.transcript.add(
                "human", json.dumps(move) if not isinstance(move, str) else move, speaker=HUMAN_ID
            )
            return move


def _key_values(items: list[str], flag: str) -> dict[str, Any]:
    """``key=value`` flags as a dict (values read as JSON, else kept as text)."""
    values: dict[str, Any] = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise PlayError(f"{flag} {item!r} is not key=value")
        try:
            values[key] = json.loads(raw)
        except json.JSONDecodeError:
            values[key] = raw
    return values


def _default_transcript(game: str) -> Path:
    return Path("transcripts") / f"play-{game}-{utc_now():%Y%m%dT%H%M%SZ}.json"


def run_play(
    game: str,
    opponent: str,
    *,
    params: dict[str, Any],
    seed: int | None,
    transcript_path: Path | None,
    shared_dir: Path | None,
    stdin: TextIO,
    out: Console,
    opponent_id: str = OPPONENT_ID,
) -> Path:
    """Play one game and save its transcript; returns the JSON transcript's path.

    Raises:
        PlayError, UnknownGameError, StrategyError, ConfigError, ValueError: the game,
            opponent or parameters cannot be played.
    """
    spec = load_game(game)
    against = Opponent.parse(opponent, opponent_id)
    transcript = new_transcript(spec, against, params=params, seed=seed)
    seat = HumanSeat(transcript, stdin=stdin, out=out, guide=spec.guide)
    out.rule(f"{spec.display_name}: you against {opponent}")
    if spec.guide is not None:
        out.print(escape(spec.guide.rules))
    asyncio.run(
        play_game(
            spec,
            against,
            seat,
            params=params,
            seed=seed,
            shared=SharedDir(shared_dir) if against.kind == "remote" else None,
        )
    )
    path = transcript_path or _default_transcript(spec.game_type)
    json_path, csv_path = transcript.save(path)
    out.print(f"Transcript saved: {json_path} and {csv_path}")
    return json_path


def _play_prose(
    manager_prompt: Path,
    player_prompt: Path,
    manager_options: dict[str, Any],
    player_options: dict[str, Any],
    *,
    max_turns: int,
    call_timeout_sec: float,
    transcript_path: Path | None,
) -> None:
    """``league play --manager-prompt M --player-prompt P`` (``league_cli/prose_game.py``).

    Raises:
        PlayError: a model call failed (the transcript is saved), or an option is refused.
        ValueError: a prompt cannot be read.
    """
    path = transcript_path or _default_transcript(f"prose-{manager_prompt.parent.name}")
    try:
        run_prose(
            manager_prompt,
            player_prompt,
            manager_options=manager_options,
            player_options=player_options,
            max_turns=max_turns,
            call_timeout_sec=call_timeout_sec,
            transcript_path=path,
            stdin=sys.stdin,
            out=console,
        )
    except LlmError as exc:
        raise PlayError(f"a model call failed ({exc}); transcript saved: {path}") from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise PlayError(f"LLM option {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def play(
    game: Annotated[
        str | None, typer.Option("--game", help="a game type of games/ (e.g. prisoners_dilemma)")
    ] = None,
    opponent: Annotated[
        str | None,
        typer.Option(
            "--opponent",
            help="a strategy (tit_for_tat, builtin:random…) or a running "
            "player's URL (http://127.0.0.1:PORT/mcp)",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--params", help="game parameter key=value (JSON values), repeatable"),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a repeatable game")] = None,
    transcript: Annotated[
        Path | None,
        typer.Option(
            help="where to save the transcript (JSON; a .csv is written beside it; default: "
            "./transcripts/play-GAME-TIME.json)"
        ),
    ] = None,
    opponent_id: Annotated[
        str,
        typer.Option(
            "--opponent-id",
            help="a remote player's id (a standalone player answers only to "
            "the id it was started with)",
        ),
    ] = OPPONENT_ID,
    shared_dir: Annotated[
        Path | None,
        typer.Option(
            "--shared-dir",
            help="the SHARED folder, for a remote opponent (default: "
            "$LEAGUE_SHARED_DIR, else ./SHARED)",
        ),
    ] = None,
    manager_prompt: Annotated[
        Path | None,
        typer.Option(
            "--manager-prompt",
            help="a game written in prose: the game master's prompt "
            "(doc/prose_games.md); replaces --game and --opponent",
        ),
    ] = None,
    player_prompt: Annotated[
        Path | None,
        typer.Option("--player-prompt", help="the LLM opponent's prompt, with --manager-prompt"),
    ] = None,
    manager_option: Annotated[
        list[str] | None,
        typer.Option(
            "--manager-option",
            help="the game master's LLM option key=value (base_url, "
            "model, api_key, temperature, max_tokens; else LEAGUE_LLM_*), repeatable",
        ),
    ] = None,
    player_option: Annotated[
        list[str] | None,
        typer.Option("--player-option", help="the opponent's LLM option key=value, repeatable"),
    ] = None,
    max_turns: Annotated[
        int, typer.Option("--max-turns", help="with --manager-prompt: the most human turns")
    ] = 30,
    llm_timeout: Annotated[
        float, typer.Option("--llm-timeout", help="with --manager-prompt: seconds per model call")
    ] = 120.0,
) -> None:
    """Play a game at the terminal against a strategy or a running player, or a game
    written in prose against an LLM with an LLM game master."""
    try:
        if manager_prompt is not None or player_prompt is not None:
            if manager_prompt is None or player_prompt is None:
                raise PlayError("--manager-prompt and --player-prompt go together")
            if game is not None or opponent is not None:
                raise PlayError("a prose game takes no --game or --opponent")
            _play_prose(
                manager_prompt,
                player_prompt,
                _key_values(manager_option or [], "--manager-option"),
                _key_values(player_option or [], "--player-option"),
                max_turns=max_turns,
                call_timeout_sec=llm_timeout,
                transcript_path=transcript,
            )
            return
        if game is None or opponent is None:
            raise PlayError(
                "give --game and --opponent (or --manager-prompt and "
                "--player-prompt for a game written in prose)"
            )
        run_play(
            game,
            opponent,
            params=_key_values(param or [], "--params"),
            seed=seed,
            transcript_path=transcript,
            shared_dir=shared_dir,
            stdin=sys.stdin,
            out=console,
            opponent_id=opponent_id,
        )
    except (PlayError, UnknownGameError, StrategyError, ConfigError, ValueError) as exc:
        fail(str(exc))

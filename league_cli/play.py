"""``league play``: a person plays a game of ``games/`` at the terminal against an agent.

The opponent is a strategy of the player host (``tit_for_tat``, ``builtin:random``…),
played in process, or a running player by URL, called over the real protocol by the
referee's own match runner with the person's seat answered at the terminal (the remote
player gets GAME_INVITATION, its move calls and GAME_OVER as in a league). Either way the
rules are the game's own: the person sees only their observation, types a move that is
checked against their action space (a bad one is explained and asked again), and a
transcript (JSON and CSV) is saved at the end.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from games import Action, ActionSpace, GameSpec, GameState, UnknownGameError, load_game
from league_cli.console import console
from league_cli.prose_game import run_prose
from league_cli.transcript import TokenUsage, Transcript
from players.errors import StrategyError
from players.llm.errors import LlmError
from players.strategies import MoveView, Say, Strategy, build_strategy
from players.strategies.base import PARITIES
from players.strategies.human import history_table, observation_table, parse_move, space_hint
from referee.match import MatchRunner
from referee.match_file import MatchRecord
from referee.outcome import Fault, MatchOutcome
from referee.plan import MatchPlan
from referee.rules import load_rules
from sdk.agent_log import AgentLog
from sdk.client import RpcClient
from sdk.config import ConfigError, ScoringConfig, SharedDir
from sdk.messages import MatchSeat, MoveData, seat_role
from sdk.timeutil import utc_now

__all__ = ["HUMAN_ID", "HumanSeat", "play"]

HUMAN_ID = "human"
OPPONENT_ID = "opponent"
_BUILTIN_PREFIX = "builtin:"
_LEAGUE = "play"
_SENDER = "referee:play"
_BUILTIN_MOVE_SEC = 30.0
"""The deadline a built-in opponent is shown (an LLM strategy bounds its call by it)."""


class PlayError(Exception):
    """A game, an opponent or a parameter that cannot be played (exit 1, one line)."""


class HumanSeat:
    """The person's seat: shows their observation, asks for a move until it is legal, and
    writes what they saw and typed into the transcript."""

    def __init__(self, transcript: Transcript, *, stdin: TextIO, out: Console):
        self.transcript = transcript
        self._stdin = stdin
        self._out = out

    def show(self, observation: Mapping[str, Any], title: str) -> None:
        """Render the observation (and a repeated game's history) and record its text."""
        out = self._out
        out.print(observation_table(dict(observation), title=title))
        table = history_table(list(observation.get("history") or []), HUMAN_ID)
        if table is not None:
            out.print(table)
        self.transcript.add("referee", f"{title}: {json.dumps(observation, default=str)}",
                            speaker="referee")

    def ask(self, observation: Mapping[str, Any], space: ActionSpace, stage: int) -> Action:
        """The person's legal move for this stage.

        Raises:
            PlayError: the input closed before a legal move was typed.
        """
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
            self.transcript.add("human", json.dumps(move) if not isinstance(move, str)
                                else move, speaker=HUMAN_ID)
            return move


def _opponent_view(spec: GameSpec, state: GameState | None, player: str,
                   space: ActionSpace, stage: int) -> MoveView:
    """What the player host would give its strategy for this move call."""
    even_odd = spec.game_type == "even_odd"
    return MoveView(
        game_type=spec.game_type, match_id=f"{_LEAGUE}-{spec.game_type}", round_id=0,
        player_id=player, opponent_id=HUMAN_ID, role=seat_role(1),
        legal_moves=PARITIES if even_odd else tuple(space.choices),
        action_space=None if even_odd else space.describe(),
        observation={} if even_odd or state is None else
        {"stage": stage, **state.observation(player)},
        deadline=utc_now() + timedelta(seconds=_BUILTIN_MOVE_SEC))


def _opponent_move(strategy: Strategy, view: MoveView, transcript: Transcript) -> Action:
    """The built-in opponent's move; an illegal one is the strategy's bug (PlayError)."""
    answer = strategy.choose(view)
    move = answer.move if isinstance(answer, Say) else answer
    if not view.is_legal(move):
        raise PlayError(f"the opponent {strategy.name!r} played {move!r}, not a legal move")
    transcript.add("player", json.dumps(move) if not isinstance(move, str) else move,
                   visibility="internal", speaker=OPPONENT_ID)
    if isinstance(answer, Say) and answer.message:
        transcript.add("player", answer.message, speaker=OPPONENT_ID)
    return move


def _score_line(state: GameState, observation: Mapping[str, Any]) -> str:
    """The person's own running score, and the others' where the observation shows them."""
    returns = observation.get("returns")
    if isinstance(returns, dict) and returns:
        return "Score: " + ", ".join(f"{'you' if p == HUMAN_ID else p} {v:g}"
                                      for p, v in returns.items())
    return f"Score: you {state.returns()[HUMAN_ID]:g}"


def play_local(spec: GameSpec, strategy: Strategy, seat: HumanSeat, out: Console, *,
               seed: int | None, params: Mapping[str, Any]) -> dict[str, Any]:
    """The game in process: the person and a built-in strategy, stage by stage."""
    state = spec.create([HUMAN_ID, OPPONENT_ID], **params)
    state.reset(seed)
    stage = 0
    while not state.is_terminal():
        stage += 1
        moves: dict[str, Action] = {}
        for player in state.acting_players():
            space = state.action_space(player)
            if player == HUMAN_ID:
                moves[player] = seat.ask(state.observation(player), space, stage)
            else:
                view = _opponent_view(spec, state, player, space, stage)
                moves[player] = _opponent_move(strategy, view, seat.transcript)
        state.step(moves)
        line = _score_line(state, state.observation(HUMAN_ID))
        out.print(line)
        seat.transcript.add("referee", line, speaker="referee")
    seat.show(state.observation(HUMAN_ID), "Game over: what you see")
    seat.transcript.add("referee", json.dumps(state.to_json(), default=str),
                        visibility="internal", speaker="referee")
    return {"payoffs": state.payoffs()}


class PlayRunner(MatchRunner):
    """The referee's match runner with the person's seat answered at the terminal (not
    invited, asked or told over HTTP); the other seat is a real player called over HTTP."""

    def __init__(self, plan: MatchPlan, *, seat: HumanSeat, **runner: Any):
        super().__init__(plan, **runner)
        self._seat = seat
        self.final_state: GameState | None = None

    async def invite(self, match_seat: MatchSeat) -> Fault | None:
        if match_seat.player_id == HUMAN_ID:
            return None
        return await super().invite(match_seat)

    async def ask_move(self, match_seat: MatchSeat, state: GameState, stage: int,
                       messages: list[dict[str, Any]]) -> MoveData | Fault:
        self.final_state = state  # the runner steps this same state to the end
        if match_seat.player_id != HUMAN_ID:
            return await super().ask_move(match_seat, state, stage, messages)
        move = await asyncio.to_thread(self._seat.ask, state.observation(HUMAN_ID),
                                       state.action_space(HUMAN_ID), stage)
        return MoveData(move_type=self._rules.spec.move_types[0], move=move)

    async def ask_parity(self, match_seat: MatchSeat, opponent: MatchSeat) -> str | Fault:
        """Even/odd's CHOOSE_PARITY_CALL (a private step of MatchRunner, not yet a
        documented per-seat hook): the person's seat answers at the terminal."""
        if match_seat.player_id != HUMAN_ID:
            return await super().ask_parity(match_seat, opponent)
        observation = {"player_id": HUMAN_ID, "role": match_seat.role,
                       "opponent_id": opponent.player_id}
        return str(await asyncio.to_thread(self._seat.ask, observation,
                                           ActionSpace.of_choices(PARITIES), 1))

    async def announce(self, match_seat: MatchSeat, outcome: MatchOutcome,
                       faulty: bool) -> None:
        if match_seat.player_id != HUMAN_ID:
            await super().announce(match_seat, outcome, faulty)


async def play_remote(spec: GameSpec, url: str, seat: HumanSeat, out: Console, *,
                      opponent_id: str, shared: SharedDir, seed: int | None,
                      params: Mapping[str, Any]) -> dict[str, Any]:
    """The game through the referee's match runner against the player at ``url``."""
    rules = load_rules(shared, spec.game_type)
    system = shared.system()
    seed = seed if seed is not None else random.SystemRandom().randrange(2**31)
    match_id = f"{_LEAGUE}-{spec.game_type}-{seed}"
    seats = (MatchSeat(player_id=HUMAN_ID, contact_endpoint="http://in-process.invalid/human",
                       role=seat_role(0)),
             MatchSeat(player_id=opponent_id, contact_endpoint=url, role=seat_role(1)))
    plan = MatchPlan(league_id=_LEAGUE, round_id=0, match_id=match_id,
                     game_type=spec.game_type, seats=seats, seed=seed,
                     scoring=ScoringConfig(), game_params=dict(params))
    with tempfile.TemporaryDirectory(prefix="league-play-") as folder:
        log = AgentLog(Path(folder) / "play.log.jsonl", "play")
        client = RpcClient(system, log)
        record = MatchRecord(Path(folder) / f"{match_id}.json", match_id=match_id,
                             league_id=_LEAGUE, round_id=0, game_type=spec.game_type,
                             referee_id="play", conversation_id=plan.conversation_id,
                             seats=list(seats), report_status="not_required")
        runner = PlayRunner(plan, seat=seat, rules=rules, client=client, system=system,
                            log=log, record=record, sender=_SENDER, report_to=None)
        try:
            outcome = await runner.run()
        finally:
            await client.aclose()
            log.close()
    result = outcome.game_result().model_dump(mode="json", exclude_none=True)
    if runner.final_state is not None and outcome.status != "TECHNICAL_LOSS":
        seat.show(runner.final_state.observation(HUMAN_ID), "Game over: what you see")
    seat.transcript.add("referee", f"GAME_OVER: {json.dumps(result)}", speaker="referee")
    out.print(f"GAME_OVER: {outcome.reason}")
    return result


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


def _result_lines(result: Mapping[str, Any]) -> list[str]:
    payoffs = result.get("payoffs")
    lines = []
    if isinstance(payoffs, dict):
        lines.append("Final score: " + ", ".join(
            f"{'you' if p == HUMAN_ID else p} {float(v):g}" for p, v in payoffs.items()))
    if "winner_player_id" in result or result.get("status"):
        winner = result.get("winner_player_id")
        lines.append("Winner: " + ("you" if winner == HUMAN_ID else winner or "nobody (draw)"))
    return lines


def run_play(game: str, opponent: str, *, params: dict[str, Any], seed: int | None,
             transcript_path: Path | None, shared_dir: Path | None, stdin: TextIO,
             out: Console, opponent_id: str = OPPONENT_ID) -> Path:
    """Play one game and save its transcript; returns the JSON transcript's path.

    Raises:
        PlayError, UnknownGameError, StrategyError, ConfigError, ValueError: the game,
            opponent or parameters cannot be played.
    """
    spec = load_game(game)
    remote = opponent.startswith(("http://", "https://"))
    name = opponent.removeprefix(_BUILTIN_PREFIX)
    transcript = Transcript(mode="play", game=spec.game_type, configs={
        "game": spec.game_type, "versioned_id": spec.versioned_id,
        "params": {**spec.parameters, **params}, "seed": seed,
        "opponent": {"kind": "remote" if remote else "builtin",
                     "url" if remote else "strategy": opponent if remote else name,
                     **({"player_id": opponent_id} if remote else {})}})
    seat = HumanSeat(transcript, stdin=stdin, out=out)
    out.rule(f"{spec.display_name}: you against {opponent}")
    if remote:
        result = asyncio.run(play_remote(spec, opponent, seat, out, opponent_id=opponent_id,
                                         shared=SharedDir(shared_dir), seed=seed,
                                         params=params))
    else:
        if name == "human":
            raise PlayError("the opponent cannot be 'human': this terminal is your seat")
        strategy = build_strategy(name, {"seed": seed} if seed is not None and
                                  _takes_seed(name) else None)
        result = play_local(spec, strategy, seat, out, seed=seed, params=params)
        spent = (strategy.report() or {}).get("totals")
        if spent:  # an llm opponent counts its calls and tokens
            transcript.tokens = TokenUsage(
                calls=spent["calls"], prompt_tokens=spent["prompt_tokens"],
                completion_tokens=spent["completion_tokens"])
    for line in _result_lines(result):
        out.print(f"[bold]{line}[/bold]")
        transcript.add("referee", line, speaker="referee")
    transcript.finish(result)
    path = transcript_path or _default_transcript(spec.game_type)
    json_path, csv_path = transcript.save(path)
    out.print(f"Transcript saved: {json_path} and {csv_path}")
    return json_path


def _play_prose(manager_prompt: Path, player_prompt: Path, manager_options: dict[str, Any],
                player_options: dict[str, Any], *, max_turns: int, call_timeout_sec: float,
                transcript_path: Path | None) -> None:
    """``league play --manager-prompt M --player-prompt P`` (``league_cli/prose_game.py``).

    Raises:
        PlayError: a model call failed (the transcript is saved), or an option is refused.
        ValueError: a prompt cannot be read.
    """
    path = transcript_path or _default_transcript(f"prose-{manager_prompt.parent.name}")
    try:
        run_prose(manager_prompt, player_prompt, manager_options=manager_options,
                  player_options=player_options, max_turns=max_turns,
                  call_timeout_sec=call_timeout_sec, transcript_path=path, stdin=sys.stdin,
                  out=console)
    except LlmError as exc:
        raise PlayError(f"a model call failed ({exc}); transcript saved: {path}") from None
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise PlayError(f"LLM option {'.'.join(map(str, first['loc']))}: {first['msg']}") \
            from None


def _takes_seed(name: str) -> bool:
    """Whether the strategy takes a ``seed`` option (so a seeded game repeats exactly)."""
    try:
        build_strategy(name, {"seed": 0})
    except StrategyError:
        return False
    return True


def play(
    game: Annotated[str | None, typer.Option("--game", help="a game type of games/ (e.g. "
                                             "prisoners_dilemma)")] = None,
    opponent: Annotated[str | None, typer.Option(
        "--opponent", help="a strategy (tit_for_tat, builtin:random…) or a running "
        "player's URL (http://127.0.0.1:PORT/mcp)")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--params", help="game parameter key=value (JSON values), repeatable")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for a repeatable game")] = None,
    transcript: Annotated[Path | None, typer.Option(
        help="where to save the transcript (JSON; a .csv is written beside it; default: "
             "./transcripts/play-GAME-TIME.json)")] = None,
    opponent_id: Annotated[str, typer.Option(
        "--opponent-id", help="a remote player's id (a standalone player answers only to "
        "the id it was started with)")] = OPPONENT_ID,
    shared_dir: Annotated[Path | None, typer.Option(
        "--shared-dir", help="the SHARED folder, for a remote opponent (default: "
        "$LEAGUE_SHARED_DIR, else ./SHARED)")] = None,
    manager_prompt: Annotated[Path | None, typer.Option(
        "--manager-prompt", help="a game written in prose: the game master's prompt "
        "(doc/prose_games.md); replaces --game and --opponent")] = None,
    player_prompt: Annotated[Path | None, typer.Option(
        "--player-prompt", help="the LLM opponent's prompt, with --manager-prompt")] = None,
    manager_option: Annotated[list[str] | None, typer.Option(
        "--manager-option", help="the game master's LLM option key=value (base_url, "
        "model, api_key, temperature, max_tokens; else LEAGUE_LLM_*), repeatable")] = None,
    player_option: Annotated[list[str] | None, typer.Option(
        "--player-option", help="the opponent's LLM option key=value, repeatable")] = None,
    max_turns: Annotated[int, typer.Option(
        "--max-turns", help="with --manager-prompt: the most human turns")] = 30,
    llm_timeout: Annotated[float, typer.Option(
        "--llm-timeout", help="with --manager-prompt: seconds per model call")] = 120.0,
) -> None:
    """Play a game at the terminal against a strategy or a running player, or a game
    written in prose against an LLM with an LLM game master."""
    try:
        if manager_prompt is not None or player_prompt is not None:
            if manager_prompt is None or player_prompt is None:
                raise PlayError("--manager-prompt and --player-prompt go together")
            if game is not None or opponent is not None:
                raise PlayError("a prose game takes no --game or --opponent")
            _play_prose(manager_prompt, player_prompt,
                        _key_values(manager_option or [], "--manager-option"),
                        _key_values(player_option or [], "--player-option"),
                        max_turns=max_turns, call_timeout_sec=llm_timeout,
                        transcript_path=transcript)
            return
        if game is None or opponent is None:
            raise PlayError("give --game and --opponent (or --manager-prompt and "
                            "--player-prompt for a game written in prose)")
        run_play(game, opponent, params=_key_values(param or [], "--params"), seed=seed,
                 transcript_path=transcript, shared_dir=shared_dir, stdin=sys.stdin,
                 out=console, opponent_id=opponent_id)
    except (PlayError, UnknownGameError, StrategyError, ConfigError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}", soft_wrap=True)
        raise typer.Exit(1) from None

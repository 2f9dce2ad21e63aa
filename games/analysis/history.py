"""A match history: the small typed input every metric reads, from an in-process episode or
from a referee's match file.

A ``History`` is the game, the players in seat order, each stage's joint action (the moves
of the players who acted at that stage) with what each player's return changed by at that
stage when it is known, the final payoffs, and the final state's ``to_json()`` when it was
kept (it holds the parameters: the payoff table, the endowment, the pie).

- ``record_episode`` plays an episode in process, as ``games.episode.play_episode`` does,
  and keeps every stage (``EpisodeRecorder``, which also keeps an episode the match engine
  plays in process).
- ``history_from_match`` reads a match file (``SHARED/data/matches/<league>/<match>.json``):
  moves from its ``stages`` (even/odd: the two ``choices`` of its result), payoffs from its
  result, the final state from ``result.game_state``. Stage payoffs are filled when
  replaying the moves through the rules gives back the recorded payoffs whatever the rules
  draw (checked with two seeds): a noisy repeated game or a private draw that decided the
  outcome leaves them ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator

from games import even_odd
from games.analysis.errors import AnalysisError
from games.episode import play_stages
from games.registry import load_game
from games.spec import Action, GameSpec, GameState
from games.strategies.observation import ObservationBaseline

__all__ = [
    "EpisodeRecorder",
    "History",
    "Stage",
    "history_from_match",
    "match_players",
    "record_episode",
]

_REPLAY_SEEDS = (0, 1)
_SAME_PAYOFF = 1e-9


class Stage(BaseModel):
    """One stage: the moves of the players who acted, by id, and each player's change of
    return over the stage (``None`` when the record does not say)."""

    model_config = ConfigDict(frozen=True)

    moves: dict[str, Action]
    payoffs: dict[str, float] | None = None


class History(BaseModel):
    """One match: its game, players in seat order, stages, final payoffs and final state."""

    model_config = ConfigDict(frozen=True)

    game_type: str
    players: tuple[str, ...]
    stages: tuple[Stage, ...]
    payoffs: dict[str, float]
    state: dict[str, Any] | None = None
    """The final state's ``to_json()``, when it was recorded."""

    @model_validator(mode="after")
    def _consistent(self) -> History:
        players = set(self.players)
        if len(players) != len(self.players) or not self.players:
            raise ValueError(f"a history needs distinct players, got {self.players}")
        if set(self.payoffs) != players:
            raise ValueError(
                f"the payoffs name {sorted(self.payoffs)}, the players are {sorted(players)}"
            )
        for number, stage in enumerate(self.stages, start=1):
            if not set(stage.moves) <= players:
                raise ValueError(
                    f"stage {number} has moves of {sorted(set(stage.moves))}, who "
                    f"are not all players"
                )
            if stage.payoffs is not None and set(stage.payoffs) != players:
                raise ValueError(
                    f"stage {number} has payoffs of {sorted(stage.payoffs)}, not of every player"
                )
        return self

    @property
    def parameters(self) -> dict[str, Any]:
        """The game's parameters as the final state recorded them (empty without a state):
        its ``parameters`` entry, or its top-level fields (the ultimatum's ``pie``)."""
        if self.state is None:
            return {}
        nested = self.state.get("parameters")
        return dict(nested) if isinstance(nested, Mapping) else dict(self.state)


class EpisodeRecorder:
    """Keeps an episode as it is played: called with the state after the reset (moves
    ``None``), then after each stage with its joint move, as ``games.episode.play_stages``
    yields them; ``history`` is the episode once it is over, every stage with what it paid.

    ``record_episode`` feeds it from ``play_stages``; an in-process evaluation from the
    match engine (``match_engine.match.Match``'s ``watch``), so both keep the same history.
    """

    def __init__(self) -> None:
        self._stages: list[Stage] = []
        self._before: dict[str, float] = {}
        self._state: GameState | None = None

    def __call__(self, moves: Mapping[str, Action] | None, state: GameState) -> None:
        after = state.returns()
        if moves is not None:
            self._stages.append(
                Stage(moves=dict(moves), payoffs={p: after[p] - self._before[p] for p in after})
            )
        self._before = after
        self._state = state

    def history(self, spec: GameSpec) -> History:
        """The episode of ``spec`` as played: its stages, final payoffs and final state.

        Raises:
            ValueError: nothing was recorded (the recorder never saw the reset).
        """
        state = self._state
        if state is None:
            raise ValueError("no episode was recorded: the recorder never saw its state")
        return History(
            game_type=spec.game_type,
            players=state.players,
            stages=tuple(self._stages),
            payoffs=state.payoffs(),
            state=state.to_json(),
        )


def record_episode(
    spec: GameSpec,
    strategies_by_player: Mapping[str, ObservationBaseline],
    seed: int | None = None,
    **parameters: Any,
) -> History:
    """Play one episode in process (``games.episode.play_stages``: the same seeding and draws
    as ``play_episode``), and keep every stage.

    Args:
        spec: the game.
        strategies_by_player: each player's strategy, keys in seat order.
        seed: seeds the game and each player's generator; ``None`` draws fresh.
        parameters: over the game's defaults.

    Returns:
        The history, stage payoffs included, with the final state.

    Raises:
        ValueError: a wrong number of players, an unknown parameter, an illegal move.
    """
    recorder = EpisodeRecorder()
    for moves, state in play_stages(spec, strategies_by_player, seed, **parameters):
        recorder(moves, state)
    return recorder.history(spec)


def match_players(document: Mapping[str, Any]) -> tuple[str, ...]:
    """The players of a match file in seat order.

    Raises:
        AnalysisError: the file names no players, or seats one player twice: a file keys
            moves, payoffs and points by player, so such seats cannot be told apart.
    """
    match_id = document.get("match_id", "?")
    try:
        players = tuple(str(seat["player_id"]) for seat in document["players"])
    except (KeyError, TypeError):
        raise AnalysisError(f"match {match_id} names no players") from None
    repeated = sorted({p for p in players if players.count(p) > 1})
    if repeated:
        raise AnalysisError(
            f"match {match_id} seats {', '.join(repeated)} more than once: its file keys "
            f"results by player, so those seats cannot be told apart"
        )
    return players


def history_from_match(document: Mapping[str, Any]) -> History:
    """The history of a played match, from the referee's match file.

    Args:
        document: the match file's JSON.

    Returns:
        The history (stage payoffs when a replay reproduces them, see the module doc).

    Raises:
        AnalysisError: the match was not played to its end (a technical loss, an abort),
            or the file lacks its players, moves or payoffs.
    """
    match_id = document.get("match_id", "?")
    result = document.get("result") or {}
    game_result = result.get("game_result") or {}
    status = game_result.get("status")
    if status not in ("WIN", "DRAW"):
        raise AnalysisError(
            f"match {match_id} was not played to its end (status {status!r}): "
            f"it has no game history to analyse"
        )
    if "game_type" not in document:
        raise AnalysisError(f"match {match_id} names no game type")
    game_type = str(document["game_type"])
    players = match_players(document)
    state = result.get("game_state")
    if game_type == even_odd.GAME_ID and not document.get("stages"):
        return _even_odd_history(match_id, players, game_result)
    moves = [dict(stage["moves"]) for stage in document.get("stages") or []]
    details = (result.get("report") or {}).get("details") or {}
    payoffs = details.get("payoffs") or game_result.get("payoffs") or (state or {}).get("returns")
    if not moves or not payoffs:
        raise AnalysisError(f"match {match_id} records no stages or no payoffs")
    final = {player: float(payoffs[player]) for player in players}
    stage_payoffs = _replayed(load_game(game_type), players, moves, state, final)
    stages = tuple(
        Stage(moves=m, payoffs=None if stage_payoffs is None else stage_payoffs[i])
        for i, m in enumerate(moves)
    )
    return History(game_type=game_type, players=players, stages=stages, payoffs=final, state=state)


def _even_odd_history(
    match_id: str, players: tuple[str, ...], game_result: Mapping[str, Any]
) -> History:
    """Even/odd's file keeps the choices and the draw in its result: one stage."""
    choices = game_result.get("choices") or {}
    if set(choices) != set(players):
        raise AnalysisError(f"match {match_id} does not record both choices")
    winner = game_result.get("winner_player_id")
    payoffs = {
        player: even_odd.DRAW_REWARD
        if winner is None
        else even_odd.WIN_REWARD
        if player == winner
        else even_odd.LOSS_REWARD
        for player in players
    }
    return History(
        game_type=even_odd.GAME_ID,
        players=players,
        stages=(Stage(moves=dict(choices), payoffs=payoffs),),
        payoffs=payoffs,
        state={"drawn_number": game_result.get("drawn_number")},
    )


def _replayed(
    spec: GameSpec,
    players: Sequence[str],
    moves: Sequence[Mapping[str, Any]],
    state: Mapping[str, Any] | None,
    final: Mapping[str, float],
) -> list[dict[str, float]] | None:
    """Each stage's payoffs by replaying ``moves``, if every replay gives ``final``."""
    recorded = dict(state.get("parameters") or state) if state else {}
    parameters = {key: value for key, value in recorded.items() if key in spec.parameters}
    replays = []
    for seed in _REPLAY_SEEDS:
        try:
            game = spec.create(list(players), **parameters)
            game.reset(seed)
            stages = []
            before = game.returns()
            for joint in moves:
                game.step(joint)
                after = game.returns()
                stages.append({p: after[p] - before[p] for p in after})
                before = after
        except ValueError:
            return None
        if not game.is_terminal() or any(
            abs(game.returns()[p] - final[p]) > _SAME_PAYOFF for p in players
        ):
            return None
        replays.append(stages)
    first = replays[0]
    if any(
        abs(a[p] - b[p]) > _SAME_PAYOFF
        for other in replays[1:]
        for a, b in zip(first, other, strict=True)
        for p in players
    ):
        return None
    return first

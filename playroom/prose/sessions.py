"""Prose games behind HTTP: one ``ProseSession`` per game, kept by the play service's
bounded ``SessionStore``.

A session holds a ``ProseGame`` (``engine``) and runs its steps, which call the models with
a blocking client, in a worker thread, one at a time: a second message while the first is
answered is refused, never interleaved. When the game ends (or its session is deleted or
expires after it started) its whole transcript, internal messages included, is written to
``SHARED/data/prose/``: what the person downloads is only what they saw.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from playroom.prose.engine import GameStatus, ProseGame, RetryPolicy, Side, StepRefused
from playroom.prose.models import (
    ChatMessage,
    ProseConfig,
    ProseState,
    ProseStatus,
    SideConfig,
    SideShown,
    Speaker,
)
from playroom.prose.setup import (
    DEFAULT_EXAMPLE,
    SideSetup,
    example_names,
    new_game,
    shipped_prompt,
)
from playroom.transcript import MessageRole, Transcript

__all__ = ["ProseSession", "build_game", "for_person", "shown", "sides_of"]

_log = logging.getLogger(__name__)
_SPEAKERS: dict[MessageRole, Speaker] = {
    "manager": "game",
    "human": "you",
    "referee": "notice",
    "player": "notice",
}
_STATUS: dict[GameStatus, ProseStatus] = {"new": "created", "playing": "running", "over": "over"}


def sides_of(config: ProseConfig) -> tuple[SideSetup, SideSetup]:
    """Both sides as they will play: the prompt given, else the example's, else the
    generic default; options as given, else the defaults.

    Raises:
        KeyError: the example is not shipped (its name).
        pydantic.ValidationError: an option is refused (a ``LEAGUE_LLM_*`` of the server).
    """
    if config.example is not None and config.example not in example_names():
        raise KeyError(config.example)
    pair = config.example or DEFAULT_EXAMPLE
    source = "default" if config.example is None else f"example:{config.example}"

    def side(name: Side, given: SideConfig) -> SideSetup:
        prompt = given.prompt or shipped_prompt(pair, name)
        options = given.model_dump(exclude={"prompt"})
        return SideSetup.resolve(name, prompt, "custom" if given.prompt else source, options)

    return side("manager", config.manager), side("player", config.player)


def build_game(config: ProseConfig, retry: RetryPolicy) -> ProseGame:
    """A game of ``config``, not started (``sides_of``'s errors)."""
    manager, player = sides_of(config)
    return new_game(
        manager,
        player,
        game=config.example or ("custom" if manager.source == "custom" else DEFAULT_EXAMPLE),
        max_turns=config.max_turns,
        retry=retry,
    )


def shown(side: SideSetup | dict[str, object], *, prompt: bool = False) -> SideShown:
    """A side as the person may see it; its prompt's text when ``prompt`` or when the
    person gave it (a state need not repeat the default prompts, and must not show an
    example's, which holds the opponent's private values)."""
    config = side.as_config() if isinstance(side, SideSetup) else side
    source = str(config["source"])
    keep = source == "custom" or (prompt and not source.startswith("example:"))
    return SideShown.model_validate(
        {**config, "prompt_source": source, "prompt": config["prompt"] if keep else None}
    )


def for_person(transcript: Transcript) -> Transcript:
    """The transcript as the person may have it: visible messages only, an example's
    prompt texts withheld (the prompts the person gave, or the default ones, are kept)."""
    public = transcript.public()
    for side in ("manager", "player"):
        config = public.configs.get(side)
        if isinstance(config, dict) and str(config.get("source", "")).startswith("example:"):
            config["prompt"] = None
    return public


@dataclass
class ProseSession:
    """One prose game of one client: its config, its game, and whether a step runs."""

    session_id: str
    client: str
    touched: float
    config: ProseConfig
    game: ProseGame
    archive: Path
    """Where the whole transcript is written when the game ends."""
    busy: bool = False
    stopped: bool = False
    saved: bool = False

    @property
    def status(self) -> ProseStatus:
        return _STATUS[self.game.status]

    @property
    def over(self) -> bool:
        return self.game.status == "over"

    def replace_game(self, config: ProseConfig, game: ProseGame) -> None:
        """A new config before the start (the old game's clients are released)."""
        self.game.close()
        self.config, self.game = config, game

    async def step(self, run: Callable[[ProseGame], None]) -> None:
        """``run(game)`` in a worker thread (it calls the models), one step at a time.

        Raises:
            StepRefused: a step is running already.
            Whatever ``run`` raises (the engine's ``StepRefused``, ``ModelUnavailable``).
        """
        if self.busy:
            raise StepRefused("the game is still answering your last message")
        self.busy = True
        try:
            await asyncio.to_thread(run, self.game)
        finally:
            self.busy = False
            if self.over or self.stopped:
                self._wind_up()

    def stop(self) -> None:
        """Deleted or expired: release the models (after the step that runs, if any) and
        keep the transcript of a game that started."""
        self.stopped = True
        if not self.busy:
            self._wind_up()

    def _wind_up(self) -> None:
        if self.stopped:
            self.game.close()
        if self.saved or self.game.status == "new":
            return
        self.saved = True
        try:
            self.game.transcript.save(self.archive)
        except OSError as exc:  # the game goes on; only the operator's copy is lost
            _log.warning("prose session %s: transcript not saved: %s", self.session_id, exc)

    def state(self) -> ProseState:
        game = self.game
        transcript = game.transcript
        return ProseState(
            session_id=self.session_id,
            status=self.status,
            config=self.config,
            manager=shown(transcript.configs["manager"]),
            player=shown(transcript.configs["player"]),
            human_turns=game.human_turns,
            max_turns=game.max_turns,
            busy=self.busy,
            messages=[
                ChatMessage(index=i, speaker=_SPEAKERS[m.role], text=m.text, time=m.time)
                for i, m in enumerate(transcript.visible())
            ],
            result=transcript.result or None,
        )

"""An evaluation suite: the YAML file a student writes, read into checked models.

``load_suite(path)`` parses the file, validates every field with pydantic and then checks
what only the game can say (its parameters, its number of players, the strategies that play
it, the metrics that mean something in it). Every problem is a ``SuiteError`` whose one-line
message names the file and the field (``suites/pd.yaml: agents[1].strategy: ...``).
The format is documented in ``doc/evaluation.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from games import UnknownGameError, load_game
from games.analysis.cooperation import COOPERATION
from games.matrix_games import MATRIX_GAMES
from games.strategies import UnknownStrategyError
from league_cli.evaluation.agents import build_local
from sdk.types import AgentUrl

__all__ = [
    "SCORE",
    "AgentSpec",
    "AveragePayoff",
    "CooperationRate",
    "Exploitability",
    "Fairness",
    "GameSpecModel",
    "MetricSpec",
    "Reciprocity",
    "ReportSpec",
    "Suite",
    "SuiteError",
    "ThresholdSpec",
    "load_suite",
    "parse_suite",
]

SCORE = "score"
"""The id a threshold uses for the weighted score of all the metrics."""

_ID = r"^[A-Za-z0-9_.-]{1,100}$"  # referee.registration.SAFE_ID: ids travel in match ids


class SuiteError(ValueError):
    """A suite file that cannot be run; the message is one line naming file and field."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameSpecModel(_Model):
    """The game and its configuration."""

    type: str
    params: dict[str, Any] = Field(default_factory=dict)
    communication: bool = False
    """Let remote agents talk (relayed as in a league with communication enabled)."""


class AgentSpec(_Model):
    """One seat: a built-in strategy (``strategy`` and ``options``) or a remote player at
    ``endpoint`` (its ``id`` is the player id it is called with)."""

    id: Annotated[str, Field(pattern=_ID)]
    strategy: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    endpoint: AgentUrl | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> AgentSpec:
        if (self.strategy is None) == (self.endpoint is None):
            raise ValueError("give exactly one of 'strategy' (built in) or 'endpoint' (remote)")
        if self.endpoint is not None and self.options:
            raise ValueError("'options' are for built-in strategies; a remote agent has none")
        return self

    @property
    def remote(self) -> bool:
        return self.endpoint is not None


class _Metric(_Model):
    id: Annotated[str | None, Field(pattern=_ID)] = None
    """How thresholds and the report name it (default: its name)."""
    weight: float = 1.0

    @property
    def key(self) -> str:
        return self.id or str(getattr(self, "name"))  # noqa: B009 - every subclass has it


class AveragePayoff(_Metric):
    """The agent's payoff per episode (``per: match``) or per stage (``per: stage``)."""

    name: Literal["average_payoff"]
    per: Literal["match", "stage"] = "stage"


class CooperationRate(_Metric):
    """The agent's mean cooperation level (``games.analysis.cooperation``)."""

    name: Literal["cooperation_rate"]


class Reciprocity(_Metric):
    """How much the agent returns what it got (``games.analysis.reciprocity``)."""

    name: Literal["reciprocity"]


class Fairness(_Metric):
    """The episode's Gini coefficient of payoffs, its largest envy, or the agent's envy."""

    name: Literal["fairness"]
    measure: Literal["gini", "max_envy", "envy"] = "gini"


class Exploitability(_Metric):
    """How much a best-responding opponent gains against a built-in agent under test, by
    simulation (``games.analysis.repeated_exploitability``) with the game's ``discount``;
    one number, no interval."""

    name: Literal["exploitability"]
    turns: int = Field(default=100, ge=1, le=10_000)
    repetitions: int = Field(default=2, ge=1, le=100)
    noise: float | None = Field(default=None, ge=0, le=1)
    """Default: the game's ``noise`` parameter."""


MetricSpec = Annotated[
    AveragePayoff | CooperationRate | Reciprocity | Fairness | Exploitability,
    Field(discriminator="name"),
]


class ThresholdSpec(_Model):
    """Bounds on one metric (or on ``score``): outside ``min``/``max`` fails, outside
    ``warn_min``/``warn_max`` warns. ``statistic`` picks the mean or a bound of its interval
    (not ``on``: YAML 1.1 reads a bare ``on`` key as the boolean true)."""

    metric: str
    statistic: Literal["mean", "lower", "upper"] = "mean"
    min: float | None = None
    max: float | None = None
    warn_min: float | None = None
    warn_max: float | None = None

    @model_validator(mode="after")
    def _bounds(self) -> ThresholdSpec:
        if all(v is None for v in (self.min, self.max, self.warn_min, self.warn_max)):
            raise ValueError("give at least one of min, max, warn_min, warn_max")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        if self.min is not None and self.warn_min is not None and self.warn_min < self.min:
            raise ValueError(
                f"warn_min {self.warn_min} is below min {self.min}: it would "
                f"never warn before failing"
            )
        if self.max is not None and self.warn_max is not None and self.warn_max > self.max:
            raise ValueError(f"warn_max {self.warn_max} is above max {self.max}")
        return self


class ReportSpec(_Model):
    """What the report holds and how intervals are computed."""

    confidence: float = Field(default=0.95, gt=0, lt=1)
    interval: Literal["t", "bootstrap"] = "t"
    bootstrap_samples: int = Field(default=2000, ge=100, le=100_000)
    per_episode: bool = False
    """Each episode's seed, payoffs and metric values in the JSON."""


class Suite(_Model):
    """A whole suite file."""

    name: Annotated[str, Field(pattern=_ID)]
    description: str = ""
    game: GameSpecModel
    agents: list[AgentSpec] = Field(min_length=2)
    under_test: str
    episodes: int = Field(default=20, ge=1, le=100_000)
    seed: int = 0
    parallel: int = Field(default=4, ge=1, le=256)
    metrics: list[MetricSpec] = Field(min_length=1)
    thresholds: list[ThresholdSpec] = Field(default_factory=list)
    report: ReportSpec = Field(default_factory=ReportSpec)

    @property
    def agent_under_test(self) -> AgentSpec:
        return next(agent for agent in self.agents if agent.id == self.under_test)

    @property
    def has_remote(self) -> bool:
        return any(agent.remote for agent in self.agents)


def _where(location: Sequence[int | str]) -> str:
    """A pydantic location as the file reads: ``agents[1].strategy``."""
    text = ""
    for part in location:
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in {
            "average_payoff",
            "cooperation_rate",
            "reciprocity",
            "fairness",
            "exploitability",
        } and text.startswith("metrics["):
            continue  # the union's tag: the file does not say it as a field
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def _check(suite: Suite) -> None:
    """What only the game knows. Raises ValueError with ``field: reason``."""
    try:
        spec = load_game(suite.game.type)
    except UnknownGameError as exc:
        raise ValueError(f"game.type: {exc}") from None
    ids = [agent.id for agent in suite.agents]
    if len(set(ids)) != len(ids):
        raise ValueError(f"agents: ids must be distinct, got {ids}")
    if suite.under_test not in ids:
        raise ValueError(f"under_test: {suite.under_test!r} is not an agent id ({', '.join(ids)})")
    try:
        spec.create(ids, **suite.game.params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"game.params: {exc}") from None
    for index, agent in enumerate(suite.agents):
        if agent.strategy is not None:
            try:
                build_local(suite.game.type, agent.strategy, agent.options)
            except (UnknownStrategyError, ValueError, TypeError) as exc:
                raise ValueError(f"agents[{index}].strategy: {exc}") from None
    keys = [metric.key for metric in suite.metrics]
    if len(set(keys)) != len(keys) or SCORE in keys:
        raise ValueError(
            f"metrics: ids must be distinct and not {SCORE!r}, got {keys} (give "
            f"an 'id' to a metric used twice)"
        )
    for index, metric in enumerate(suite.metrics):
        where = f"metrics[{index}]"
        if isinstance(metric, CooperationRate | Reciprocity) and suite.game.type not in COOPERATION:
            raise ValueError(
                f"{where}: {metric.name} needs a notion of cooperation, which "
                f"{suite.game.type} lacks (it is defined for "
                f"{', '.join(sorted(COOPERATION))})"
            )
        if isinstance(metric, Exploitability):
            agent = suite.agent_under_test
            if suite.game.type not in MATRIX_GAMES or agent.strategy is None:
                raise ValueError(
                    f"{where}: exploitability is measured for a built-in agent "
                    f"under test at a repeated matrix game "
                    f"({', '.join(sorted(MATRIX_GAMES))}); a remote agent cannot "
                    f"be replayed against thousands of candidates"
                )
    for index, threshold in enumerate(suite.thresholds):
        if threshold.metric not in {*keys, SCORE}:
            raise ValueError(
                f"thresholds[{index}].metric: {threshold.metric!r} is not a "
                f"metric id ({', '.join([*keys, SCORE])})"
            )


def parse_suite(data: Any, source: str) -> Suite:
    """A suite from already-parsed YAML; ``source`` names it in errors.

    Raises:
        SuiteError: a missing or bad field, or one the game refuses.
    """
    if not isinstance(data, dict):
        raise SuiteError(
            f"{source}: a suite is a mapping of fields (name, game, agents, ...), "
            f"not {type(data).__name__}"
        )
    try:
        suite = Suite.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{_where(error['loc'])}: {error['msg']}" for error in exc.errors(include_url=False)
        )
        raise SuiteError(f"{source}: {problems}") from None
    try:
        _check(suite)
    except ValueError as exc:
        raise SuiteError(f"{source}: {exc}") from None
    return suite


def load_suite(path: Path) -> Suite:
    """Read and check a suite file.

    Raises:
        SuiteError: the file is missing, is not YAML, or describes no runnable suite.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SuiteError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SuiteError(f"{path}: not valid YAML{where}: {problem}") from None
    return parse_suite(data, str(path))

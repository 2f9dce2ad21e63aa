"""An evaluation suite as the evaluation runs it: checked models, and the checks that only
the game can make (its parameters, its number of players, the strategies that play it, the
metrics that mean something in it).

Two file formats read into this one model (``league_cli.evaluation.suite_file``): the
documented ``type: game_suite`` format (``league_cli.evaluation.game_suite``) and this
model's own fields, the earlier format, kept as an alias. A check that fails raises
``SuiteProblem`` with the model's location of the field, which each format names its own
way. Both are documented in ``doc/evaluation.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from games import UnknownGameError, load_game, registered_games
from games.analysis.cooperation import COOPERATION
from games.analysis.normal_form import NormalFormGame
from games.matrix import MatrixState
from games.matrix_games import MATRIX_GAMES
from games.spec import GameState
from games.strategies import UnknownStrategyError
from league_cli.evaluation.agents import build_local
from league_cli.evaluation.bias import BiasSpec
from sdk.ids import SAFE_ID_PATTERN
from sdk.types import AgentUrl

__all__ = [
    "METRIC_TYPES",
    "SCORE",
    "AgentSpec",
    "AveragePayoff",
    "CooperationRate",
    "Exploitability",
    "Fairness",
    "GameSpecModel",
    "LabelBias",
    "MetricSpec",
    "NashDistance",
    "ParetoRate",
    "Reciprocity",
    "ReportSpec",
    "SocialWelfare",
    "Suite",
    "SuiteError",
    "SuiteProblem",
    "ThresholdSpec",
    "check_suite",
    "field_name",
    "table_stage_game",
]

SCORE = "score"
"""The id a threshold uses for the weighted score of all the metrics."""


class SuiteError(ValueError):
    """A suite file that cannot be run; the message is one line naming file and field."""


Location = tuple[int | str, ...]
"""Where a field is, as pydantic says it: ``("agents", 1, "strategy")``."""


class SuiteProblem(ValueError):
    """A field a check refused: its location in the model and the reason, a sentence. The
    file's format names the location (``league_cli.evaluation.suite_file``)."""

    def __init__(self, location: Location, reason: str):
        super().__init__(reason)
        self.location = location
        self.reason = reason


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

    id: Annotated[str, Field(pattern=SAFE_ID_PATTERN)]
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
    better: ClassVar[Literal["higher", "lower"]] = "higher"
    """Which way the metric improves: the side a threshold's lone ``warn`` watches when the
    threshold has both bounds or neither (``league_cli.evaluation.game_suite``)."""

    id: Annotated[str | None, Field(pattern=SAFE_ID_PATTERN)] = None
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

    better: ClassVar[Literal["higher", "lower"]] = "lower"
    name: Literal["fairness"]
    measure: Literal["gini", "max_envy", "envy"] = "gini"


class Exploitability(_Metric):
    """How much a best-responding opponent gains against a built-in agent under test, by
    simulation (``games.analysis.repeated_exploitability``) with the game's ``discount``;
    one number, no interval."""

    better: ClassVar[Literal["higher", "lower"]] = "lower"
    name: Literal["exploitability"]
    turns: int = Field(default=100, ge=1, le=10_000)
    repetitions: int = Field(default=2, ge=1, le=100)
    noise: float | None = Field(default=None, ge=0, le=1)
    """Default: the game's ``noise`` parameter."""


class NashDistance(_Metric):
    """How far the agent's play in an episode was from a Nash equilibrium of the stage game
    (``games.analysis.nash_distance``), in total variation, 0 to 1: with ``measure: agent``
    its own empirical mixed strategy's distance to the nearest strategy it has in some
    equilibrium; with ``measure: profile`` the larger of both players' distances to the
    equilibrium nearest the pair. 2-player table games only; see ``doc/evaluation.md``."""

    better: ClassVar[Literal["higher", "lower"]] = "lower"
    name: Literal["nash_distance"]
    measure: Literal["agent", "profile"] = "agent"


class SocialWelfare(_Metric):
    """The episode's mean social welfare per round: the sum of both players' stage payoffs at
    the outcome played (``league_cli.evaluation.welfare``), undiscounted. The pair's, not the
    agent's. 2-player table games only."""

    name: Literal["social_welfare"]


class ParetoRate(_Metric):
    """The share of the episode's rounds whose outcome played is Pareto optimal in the stage
    game (``league_cli.evaluation.welfare``). The pair's, not the agent's. 2-player table
    games only."""

    name: Literal["pareto_rate"]


class LabelBias(_Metric):
    """The largest gap between two labels' rates of one action of the agent under test
    (``games.analysis.label_bias``), its p-value beside it; one number for the run, no
    interval. Needs the suite's ``bias``; weighs nothing in the score unless given a weight.
    """

    better: ClassVar[Literal["higher", "lower"]] = "lower"
    name: Literal["label_bias"]
    weight: float = 0.0


MetricSpec = Annotated[
    AveragePayoff
    | CooperationRate
    | Reciprocity
    | Fairness
    | Exploitability
    | NashDistance
    | SocialWelfare
    | ParetoRate
    | LabelBias,
    Field(discriminator="name"),
]

METRIC_TYPES: dict[str, type[_Metric]] = {
    "average_payoff": AveragePayoff,
    "cooperation_rate": CooperationRate,
    "reciprocity": Reciprocity,
    "fairness": Fairness,
    "exploitability": Exploitability,
    "nash_distance": NashDistance,
    "social_welfare": SocialWelfare,
    "pareto_rate": ParetoRate,
    "label_bias": LabelBias,
}
"""Each metric's model by its name (``name`` in the earlier format, ``type`` in the
documented one)."""


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
        # Worded for both formats: the documented one calls either warning bound ``warn``.
        if self.warn_min is not None:
            if self.min is not None and self.warn_min < self.min:
                raise ValueError(
                    f"the warning bound {self.warn_min:g} is below min {self.min:g}: it "
                    f"would never warn before failing"
                )
            if self.max is not None and self.warn_min > self.max:
                raise ValueError(
                    f"the warning bound {self.warn_min:g} is above max {self.max:g}: every "
                    f"value that passes would warn"
                )
        if self.warn_max is not None:
            if self.max is not None and self.warn_max > self.max:
                raise ValueError(
                    f"the warning bound {self.warn_max:g} is above max {self.max:g}: it "
                    f"would never warn before failing"
                )
            if self.min is not None and self.warn_max < self.min:
                raise ValueError(
                    f"the warning bound {self.warn_max:g} is below min {self.min:g}: every "
                    f"value that passes would warn"
                )
        return self


class ReportSpec(_Model):
    """What the report holds and how intervals are computed."""

    confidence: float = Field(default=0.95, gt=0, lt=1)
    interval: Literal["t", "bootstrap"] = "t"
    bootstrap_samples: int = Field(default=2000, ge=100, le=100_000)
    per_episode: bool = False
    """Each episode's seed, payoffs and metric values in the JSON."""
    include_strategy_profile: bool = True
    """Each agent's action frequencies (``league_cli.evaluation.report_sections``)."""
    include_payoff_matrix: bool = True
    """Each agent's mean payoff per episode against each other agent."""
    include_round_by_round: bool = False
    """The first episodes' moves and payoffs, round by round (bounded)."""


class Suite(_Model):
    """A whole suite, whichever format it was written in."""

    name: Annotated[str, Field(pattern=SAFE_ID_PATTERN)]
    version: str | None = None
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
    bias: BiasSpec | None = None

    @property
    def agent_under_test(self) -> AgentSpec:
        return next(agent for agent in self.agents if agent.id == self.under_test)

    @property
    def has_remote(self) -> bool:
        return any(agent.remote for agent in self.agents)


def field_name(location: Location) -> str:
    """A location as a file says it: ``agents[1].strategy`` (a metric's tag, which picks its
    model, is not a field of the file and is left out)."""
    text = ""
    for index, part in enumerate(location):
        if isinstance(part, int):
            text += f"[{part}]"
        elif part in METRIC_TYPES and index > 0 and isinstance(location[index - 1], int):
            continue
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


def check_suite(suite: Suite) -> None:
    """What only the game knows, checked before anything runs.

    Raises:
        SuiteProblem: the first field the game, its strategies or the metrics refuse.
    """
    try:
        spec = load_game(suite.game.type)
    except UnknownGameError as exc:
        raise SuiteProblem(("game", "type"), str(exc)) from None
    ids = [agent.id for agent in suite.agents]
    if len(set(ids)) != len(ids):
        raise SuiteProblem(("agents",), f"each agent needs a name of its own, got {ids}")
    if suite.under_test not in ids:
        raise SuiteProblem(
            ("under_test",), f"{suite.under_test!r} is not one of the agents ({', '.join(ids)})"
        )
    try:
        state = spec.create(ids, **suite.game.params)
    except (TypeError, ValueError) as exc:
        raise SuiteProblem(("game", "params"), str(exc)) from None
    for index, agent in enumerate(suite.agents):
        if agent.strategy is not None:
            try:
                build_local(suite.game.type, agent.strategy, agent.options)
            except (UnknownStrategyError, ValueError, TypeError) as exc:
                raise SuiteProblem(("agents", index, "strategy"), str(exc)) from None
    keys = [metric.key for metric in suite.metrics]
    if len(set(keys)) != len(keys) or SCORE in keys:
        raise SuiteProblem(
            ("metrics",),
            f"ids must be distinct and not {SCORE!r}, got {keys} (give an 'id' to a "
            f"metric used twice)",
        )
    table_game = _stage_table(state) is not None
    for index, metric in enumerate(suite.metrics):
        _check_metric(suite, metric, index, table_game=table_game)
    if suite.bias is not None:
        _check_bias(suite, suite.bias)
    for index, threshold in enumerate(suite.thresholds):
        if threshold.metric not in {*keys, SCORE}:
            raise SuiteProblem(
                ("thresholds", index, "metric"),
                f"{threshold.metric!r} is not a metric id ({', '.join([*keys, SCORE])})",
            )


def _check_bias(suite: Suite, bias: BiasSpec) -> None:
    """Labels need one opponent whose id the evaluation may choose: a built-in agent."""
    if len(suite.agents) != 2:
        raise SuiteProblem(
            ("bias",),
            f"bias labels the agent under test's one opponent, so the suite needs 2 agents, "
            f"not {len(suite.agents)}",
        )
    opponent = next(agent for agent in suite.agents if agent.id != suite.under_test)
    if opponent.remote:
        raise SuiteProblem(
            ("bias",),
            f"the opponent {opponent.id!r} is remote and is called under its own id, which "
            f"cannot change with the label: make the opponent a built-in agent",
        )
    if suite.under_test in bias.labels:
        raise SuiteProblem(
            ("bias", "labels"),
            f"{suite.under_test!r} is the agent under test's own id, so it cannot label its "
            f"opponent",
        )


def _check_metric(suite: Suite, metric: MetricSpec, index: int, *, table_game: bool) -> None:
    """Whether the metric means something in the suite's game, for its agent under test
    (``table_game``: a 2-player game of one payoff table, whose equilibria can be solved)."""
    if isinstance(metric, CooperationRate | Reciprocity) and suite.game.type not in COOPERATION:
        raise SuiteProblem(
            ("metrics", index),
            f"{metric.name} needs a notion of cooperation, which {suite.game.type} lacks (it "
            f"is defined for {', '.join(sorted(COOPERATION))})",
        )
    if isinstance(metric, LabelBias) and suite.bias is None:
        raise SuiteProblem(
            ("metrics", index),
            "label_bias compares the agent's actions across labels: give the suite's bias "
            "option its labels",
        )
    if isinstance(metric, Exploitability):
        agent = suite.agent_under_test
        if suite.game.type not in MATRIX_GAMES or agent.strategy is None:
            raise SuiteProblem(
                ("metrics", index),
                f"exploitability is measured for a built-in agent under test at a repeated "
                f"matrix game ({', '.join(sorted(MATRIX_GAMES))}); a remote agent cannot be "
                f"replayed against thousands of candidates",
            )
    if isinstance(metric, NashDistance | SocialWelfare | ParetoRate) and not table_game:
        read = (
            "whose equilibria are solved exactly"
            if isinstance(metric, NashDistance)
            else "whose outcomes it reads"
        )
        raise SuiteProblem(
            ("metrics", index),
            f"{metric.name} is measured at a 2-player game of one payoff table, {read} "
            f"({', '.join(_table_games())}); {suite.game.type} with {len(suite.agents)} "
            f"agents has no such table",
        )


def _stage_table(state: GameState) -> NormalFormGame | None:
    """The stage game of a 2-player game of one payoff table, else None."""
    if isinstance(state, MatrixState) and len(state.players) == 2:
        return NormalFormGame.from_table(state.table)
    return None


def table_stage_game(suite: Suite) -> NormalFormGame | None:
    """The stage game the suite's agents play, when it is a 2-player game of one payoff
    table (its equilibria, welfare and Pareto frontier are computed from it), else None."""
    spec = load_game(suite.game.type)
    return _stage_table(spec.create([agent.id for agent in suite.agents], **suite.game.params))


def _table_games() -> list[str]:
    """The registered 2-player games of one payoff table."""
    return [
        spec.game_type
        for spec in registered_games()
        if spec.min_players <= 2 <= spec.max_players
        and _stage_table(spec.create(["a", "b"])) is not None
    ]

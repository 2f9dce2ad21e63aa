"""The documented suite format (``type: game_suite``), read into the one ``Suite`` model.

The format is the game-theoretic evaluation design's: ``game`` with ``type``, ``variant``
and ``config``; ``agents`` each with a ``name`` and an ``adapter`` (``builtin`` with a
``strategy``, ``http`` with an ``endpoint``); ``evaluation`` with ``episodes``, ``metrics``
(``type``, ``weight``, ``config``) and ``thresholds`` keyed by metric (``min``, ``max``,
``warn``); ``reporting``. ``GameSuite`` validates the file as written, ``suite_data`` maps it
onto the ``Suite`` model's fields, and ``field_name`` names a problem found there by the
field the file wrote, so both formats share one model, one set of checks and one run.
``doc/evaluation.md`` documents the mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    model_validator,
)

from games import UnknownGameError, load_game
from games.spec import GameSpec
from league_cli.evaluation.bias import BiasSpec
from league_cli.evaluation.suite import (
    METRIC_TYPES,
    SCORE,
    Location,
    ReportSpec,
    SuiteProblem,
    field_name,
)
from sdk.types import AgentUrl

__all__ = [
    "GameConfig",
    "GameSection",
    "GameSuite",
    "GameSuiteAgent",
    "GameSuiteEvaluation",
    "GameSuiteMetric",
    "GameSuiteThreshold",
    "is_game_suite",
]

_ID = r"^[A-Za-z0-9_.-]{1,100}$"
_SECTIONS = frozenset({"type", "evaluation", "reporting"})
"""Keys only the documented format has: a file with one of them is read as that format, so
a documented suite that forgot ``type`` is told so rather than read as the other one."""
_PARAMETERS = {"rounds": "rounds", "noise": "noise", "discount_factor": "discount"}
"""``game.config`` keys that name a game parameter differently (any other key but
``communication`` and ``seed`` is the game's own parameter, passed as written)."""
_NOT_PARAMETERS = frozenset({"communication", "seed"})
_RESERVED = frozenset({"name", "id", "weight"})
"""Fields of a metric that its ``config`` may not set: they sit beside ``type``."""


def is_game_suite(data: Mapping[str, Any]) -> bool:
    """Whether a parsed file is in the documented format (else: the earlier one)."""
    return bool(_SECTIONS & set(data))


def _version(value: Any) -> Any:
    """``version: 1.0`` unquoted is a YAML number: read it as the text it was written as."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameConfig(BaseModel):
    """The game's configuration: the repeated games' parameters under the design's names,
    ``communication``, the run's ``seed``, and any other parameter of the game as is."""

    model_config = ConfigDict(extra="allow", frozen=True)

    # The bounds the design gives these fields, so a bad value is named as written (the
    # game checks its parameters again, and names them its own way).
    rounds: int | None = Field(
        default=None, ge=1, validation_alias=AliasChoices("rounds", "num_rounds")
    )
    noise: float | None = Field(default=None, ge=0, le=1)
    discount_factor: float | None = Field(default=None, gt=0, le=1)
    communication: bool = False
    seed: int | None = None
    """Episode i is seeded ``seed + i`` (default 0)."""

    def given(self) -> dict[str, Any]:
        """The keys the file set, as it spelt them, with their values."""
        fields = {
            k: getattr(self, k) for k in self.model_fields_set if k in type(self).model_fields
        }
        return {**fields, **(self.model_extra or {})}


class GameSection(_Model):
    """The game, one shot or repeated, and its configuration."""

    type: str
    variant: Literal["one_shot", "repeated"] | None = None
    config: GameConfig = Field(default_factory=GameConfig)


class GameSuiteAgent(_Model):
    """A seat: a built-in strategy (``adapter: builtin``, its options in ``config``) or a
    remote player (``adapter: http``), called with its ``name`` as player id."""

    name: Annotated[str, Field(pattern=_ID)]
    adapter: Literal["builtin", "http"]
    strategy: str | None = None
    endpoint: AgentUrl | None = None
    config: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _adapter_fields(self) -> GameSuiteAgent:
        if self.adapter == "builtin" and (self.strategy is None or self.endpoint is not None):
            raise ValueError("a builtin agent names a 'strategy' and no 'endpoint'")
        if self.adapter == "http" and (self.endpoint is None or self.strategy is not None):
            raise ValueError("an http agent names an 'endpoint' and no 'strategy'")
        if self.adapter == "http" and self.config:
            raise ValueError("'config' holds a builtin strategy's options; an http agent has none")
        return self

    def agent_data(self) -> dict[str, Any]:
        if self.adapter == "http":
            return {"id": self.name, "endpoint": self.endpoint}
        return {"id": self.name, "strategy": self.strategy, "options": self.config}


class GameSuiteMetric(_Model):
    """A metric: its ``type``, its weight in the score, its options in ``config`` and, to
    use one type twice, an ``id``."""

    type: str
    weight: float = 1.0
    id: str | None = None
    config: dict[str, Any] = Field(default_factory=dict)

    @property
    def key(self) -> str:
        return self.id or self.type


class GameSuiteThreshold(_Model):
    """Bounds on one metric: outside ``min``/``max`` fails; past ``warn`` (on the side
    ``GameSuite`` works out) warns."""

    min: float | None = None
    max: float | None = None
    warn: float | None = None
    statistic: Literal["mean", "lower", "upper"] = "mean"


class GameSuiteEvaluation(_Model):
    """How the agent under test is judged."""

    episodes: int | None = None
    metrics: list[GameSuiteMetric] = Field(min_length=1)
    thresholds: dict[str, GameSuiteThreshold] = Field(default_factory=dict)
    under_test: str | None = None
    """The agent whose metrics are measured (default: the first)."""
    parallel: int | None = None
    bias: BiasSpec | None = None
    """Labels to show the agent under test's opponent under, and the test's level."""


class GameSuite(_Model):
    """A whole file in the documented format."""

    type: Literal["game_suite"]
    name: Annotated[str, Field(pattern=_ID)]
    version: Annotated[str | None, BeforeValidator(_version)] = None
    description: str = ""
    game: GameSection
    agents: list[GameSuiteAgent] = Field(min_length=2)
    evaluation: GameSuiteEvaluation
    reporting: ReportSpec = Field(default_factory=ReportSpec)

    def suite_data(self) -> dict[str, Any]:
        """The ``Suite`` model's fields for this file (validated by the caller).

        Raises:
            SuiteProblem: a ``game.config`` key the game does not take, a ``variant`` its
                rounds contradict, or a metric ``config`` that sets a reserved field; the
                location is this file's.
        """
        evaluation = self.evaluation
        data: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "game": {
                "type": self.game.type,
                "params": self._parameters(),
                "communication": self.game.config.communication,
            },
            "agents": [agent.agent_data() for agent in self.agents],
            "under_test": evaluation.under_test or self.agents[0].name,
            "metrics": [self._metric(index, m) for index, m in enumerate(evaluation.metrics)],
            "thresholds": [
                self._threshold(key, threshold) for key, threshold in evaluation.thresholds.items()
            ],
            "report": self.reporting.model_dump(),
        }
        optional = {
            "episodes": evaluation.episodes,
            "parallel": evaluation.parallel,
            "seed": self.game.config.seed,
            "bias": None if evaluation.bias is None else evaluation.bias.model_dump(),
        }
        data.update({key: value for key, value in optional.items() if value is not None})
        return data

    def _parameters(self) -> dict[str, Any]:
        """The game's parameters from ``game.config`` and ``variant``, checked against what
        the game takes (an unknown game is left to ``check_suite``, which names it)."""
        given = {
            key: value
            for key, value in self.game.config.given().items()
            if key not in _NOT_PARAMETERS
        }
        params = {_PARAMETERS.get(key, key): value for key, value in given.items()}
        try:
            spec = load_game(self.game.type)
        except UnknownGameError:
            return params
        for key in given:
            if _PARAMETERS.get(key, key) not in spec.parameters:
                raise SuiteProblem(
                    ("game", "config", key),
                    f"{spec.game_type} takes no {key}; its configuration is {_configuration(spec)}",
                )
        if self.game.variant is not None:
            params = _variant(spec, self.game.variant, params)
        return params

    def _metric(self, index: int, metric: GameSuiteMetric) -> dict[str, Any]:
        if metric.type not in METRIC_TYPES:
            raise SuiteProblem(
                ("evaluation", "metrics", index, "type"),
                f"{metric.type!r} is not a metric; there are: {', '.join(METRIC_TYPES)}",
            )
        reserved = sorted(_RESERVED & set(metric.config))
        if reserved:
            raise SuiteProblem(
                ("evaluation", "metrics", index, "config", reserved[0]),
                f"{reserved[0]!r} sits beside 'type', not in 'config'",
            )
        data = {**metric.config, "name": metric.type, "weight": metric.weight}
        return data | ({"id": metric.id} if metric.id is not None else {})

    def _threshold(self, key: str, threshold: GameSuiteThreshold) -> dict[str, Any]:
        """A threshold as the model has it: ``warn`` becomes ``warn_min`` or ``warn_max``.

        ``warn`` watches the failing side: below it warns when the threshold has only a
        ``min``, above it when it has only a ``max``; with both bounds or neither, the side
        where the metric is worse (below for a payoff, above for exploitability)."""
        data: dict[str, Any] = {
            "metric": key,
            "statistic": threshold.statistic,
            "min": threshold.min,
            "max": threshold.max,
        }
        if threshold.warn is not None:
            data["warn_min" if self._warns_below(key, threshold) else "warn_max"] = threshold.warn
        return data

    def _warns_below(self, key: str, threshold: GameSuiteThreshold) -> bool:
        if (threshold.min is None) != (threshold.max is None):
            return threshold.min is not None
        if key == SCORE:
            return True
        types = [m.type for m in self.evaluation.metrics if m.key == key]
        model = METRIC_TYPES.get(types[0]) if types else None
        return model is None or model.better == "higher"

    def field_name(self, location: Location) -> str:
        """A location in the ``Suite`` model named as this file wrote the field."""
        return field_name(self._location(location))

    def _location(self, location: Location) -> Location:
        head, rest = location[0] if location else "", location[1:]
        if head in ("under_test", "episodes", "parallel", "bias"):
            return ("evaluation", head, *rest)
        if head == "seed":
            return ("game", "config", "seed")
        if head == "report":
            return ("reporting", *rest)
        if head == "game" and rest[:1] == ("params",):
            return ("game", "config", *rest[1:])
        if head == "game" and rest[:1] == ("communication",):
            return ("game", "config", "communication")
        if head == "agents" and len(rest) == 2:
            return (
                "agents",
                rest[0],
                {"id": "name", "options": "config"}.get(str(rest[1]), rest[1]),
            )
        if head == "metrics":
            return ("evaluation", "metrics", *_metric_location(rest))
        if head == "thresholds" and rest:
            keys = list(self.evaluation.thresholds)
            field = [] if rest[1:] in ((), ("metric",)) else [str(rest[1])]
            field = ["warn" if f in ("warn_min", "warn_max") else f for f in field]
            return ("evaluation", "thresholds", keys[int(rest[0])], *field)
        return location


def _metric_location(rest: Location) -> Location:
    """``metrics[i].per`` of the model is ``evaluation.metrics[i].config.per`` of the file."""
    parts = [p for i, p in enumerate(rest) if not (i == 1 and p in METRIC_TYPES)]
    if len(parts) < 2:
        return tuple(parts)
    index, field, *more = parts
    if field == "name":
        return (index, "type")
    if field in ("weight", "id"):
        return (index, field, *more)
    return (index, "config", field, *more)


def _configuration(spec: GameSpec) -> str:
    """The ``game.config`` keys a game takes, as the file spells them."""
    names = {value: key for key, value in _PARAMETERS.items()}
    keys = sorted(names.get(param, param) for param in spec.parameters)
    return ", ".join([*keys, "communication", "seed"])


def _variant(spec: GameSpec, variant: str, params: dict[str, Any]) -> dict[str, Any]:
    """The parameters with the variant's rounds: ``one_shot`` plays one round, ``repeated``
    two or more; a variant that contradicts the rounds given is refused."""
    takes_rounds = "rounds" in spec.parameters
    rounds = params.get("rounds", spec.parameters.get("rounds", 1))
    if variant == "one_shot":
        if rounds != 1:
            raise SuiteProblem(
                ("game", "config", "rounds"),
                f"a one_shot game plays 1 round, not {rounds} (say 'variant: repeated')",
            )
        return {**params, "rounds": 1} if takes_rounds else params
    if not takes_rounds:
        raise SuiteProblem(
            ("game", "variant"), f"{spec.game_type} is played once: it takes no rounds"
        )
    if not isinstance(rounds, int) or rounds < 2:
        raise SuiteProblem(
            ("game", "config", "rounds"),
            f"a repeated game plays 2 rounds or more; give game.config.rounds "
            f"({spec.game_type} plays {spec.parameters['rounds']} by default)",
        )
    return params

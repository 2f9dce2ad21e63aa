"""Evaluation suites: a YAML file names a game, agents (built in or remote), the agent under
test, its metrics and thresholds; ``league evaluate`` plays it and says pass, warn or fail.
``doc/evaluation.md`` documents the format (``type: game_suite``) and the earlier one, its
alias."""

from __future__ import annotations

from league_cli.evaluation.episodes import Episode, play_episodes
from league_cli.evaluation.game_suite import GameSuite
from league_cli.evaluation.report import Evaluation, evaluate, to_json, verdict_table
from league_cli.evaluation.scoring import MetricResult, ThresholdResult, judge, score, summarise
from league_cli.evaluation.suite import Suite, SuiteError
from league_cli.evaluation.suite_file import load_suite, parse_suite

__all__ = [
    "Episode",
    "Evaluation",
    "GameSuite",
    "MetricResult",
    "Suite",
    "SuiteError",
    "ThresholdResult",
    "evaluate",
    "judge",
    "load_suite",
    "parse_suite",
    "play_episodes",
    "score",
    "summarise",
    "to_json",
    "verdict_table",
]

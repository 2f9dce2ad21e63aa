"""Reading a suite file in either format into the one ``Suite`` the evaluation runs.

A file with ``type: game_suite`` (or the documented format's ``evaluation`` or
``reporting`` section) is read as the documented format (``game_suite``); any other
mapping as the earlier format, the ``Suite`` model's own fields. Every problem is a
``SuiteError`` whose one-line message names the file and the field as that file spells it
(``suites/pd.yaml: agents[1].strategy: ...``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from league_cli.evaluation.game_suite import GameSuite, is_game_suite
from league_cli.evaluation.suite import (
    Location,
    Suite,
    SuiteError,
    SuiteProblem,
    check_suite,
    field_name,
)

__all__ = ["load_suite", "parse_suite"]

_VALUE_ERROR = "Value error, "
"""What pydantic puts before a validator's own sentence; the sentence says enough."""


def _problems(source: str, exc: ValidationError, name: Callable[[Location], str]) -> SuiteError:
    """Every field pydantic refused, on one line."""
    problems = "; ".join(
        f"{name(error['loc'])}: {error['msg'].removeprefix(_VALUE_ERROR)}"
        for error in exc.errors(include_url=False)
    )
    return SuiteError(f"{source}: {problems}")


def parse_suite(data: Any, source: str) -> Suite:
    """A suite from already-parsed YAML, in either format; ``source`` names it in errors.

    Raises:
        SuiteError: a missing or bad field, or one the game refuses.
    """
    if not isinstance(data, dict):
        raise SuiteError(
            f"{source}: a suite is a mapping of fields (type, name, game, agents, ...), "
            f"not {type(data).__name__}"
        )
    name = field_name
    if is_game_suite(data):
        if data.get("type") != "game_suite":
            given = f"not {data['type']!r}" if "type" in data else "and this file has no type"
            raise SuiteError(
                f"{source}: type: a suite with an evaluation or reporting section is in the "
                f"documented format, which says 'type: game_suite', {given}"
            )
        try:
            documented = GameSuite.model_validate(data)
            data = documented.suite_data()
        except ValidationError as exc:
            raise _problems(source, exc, field_name) from None
        except SuiteProblem as problem:
            raise SuiteError(f"{source}: {field_name(problem.location)}: {problem}") from None
        name = documented.field_name
    try:
        suite = Suite.model_validate(data)
        check_suite(suite)
    except ValidationError as exc:
        raise _problems(source, exc, name) from None
    except SuiteProblem as problem:
        raise SuiteError(f"{source}: {name(problem.location)}: {problem}") from None
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

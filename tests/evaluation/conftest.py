"""Helpers for the evaluation tests: a suite file written from a dict, and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

from league_cli.evaluation.suite import SuiteError
from league_cli.evaluation.suite_file import load_suite
from league_cli.main import app

REPO_ROOT = Path(__file__).resolve().parents[2]
SUITES = REPO_ROOT / "suites"


def base_suite(**changes: Any) -> dict[str, Any]:
    """A small, fast, valid suite: 10 rounds of the prisoner's dilemma, always defect (under
    test) against always cooperate, so every metric's value is known exactly."""
    suite: dict[str, Any] = {
        "name": "tiny",
        "game": {"type": "prisoners_dilemma", "params": {"rounds": 10}},
        "agents": [
            {"id": "me", "strategy": "always_defect"},
            {"id": "you", "strategy": "always_cooperate"},
        ],
        "under_test": "me",
        "episodes": 3,
        "metrics": [{"name": "average_payoff"}, {"name": "cooperation_rate"}],
    }
    suite.update(changes)
    return suite


def game_suite(**changes: Any) -> dict[str, Any]:
    """``base_suite`` in the documented format (``type: game_suite``)."""
    suite: dict[str, Any] = {
        "type": "game_suite",
        "name": "tiny",
        "version": "1.0",
        "game": {"type": "prisoners_dilemma", "variant": "repeated", "config": {"rounds": 10}},
        "agents": [
            {"name": "me", "adapter": "builtin", "strategy": "always_defect"},
            {"name": "you", "adapter": "builtin", "strategy": "always_cooperate"},
        ],
        "evaluation": {
            "episodes": 3,
            "metrics": [{"type": "average_payoff"}, {"type": "cooperation_rate"}],
        },
    }
    suite.update(changes)
    return suite


def evaluation(**changes: Any) -> dict[str, Any]:
    """``game_suite``'s evaluation section with ``changes``."""
    section: dict[str, Any] = game_suite()["evaluation"]
    section.update(changes)
    return section


@pytest.fixture
def write_suite(tmp_path: Path) -> Callable[..., Path]:
    def write(data: Any, name: str = "suite.yaml") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
        return path

    return write


def evaluate(*args: str) -> Result:
    return CliRunner().invoke(app, ["evaluate", *args])


def assert_refused(path: Path, expected: str) -> None:
    """Loading ``path`` fails with one line that names the file first and says ``expected``."""
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    assert expected in message, message
    assert "\n" not in message, f"not one line: {message!r}"

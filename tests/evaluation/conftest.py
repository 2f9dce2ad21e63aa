"""Helpers for the evaluation tests: a suite file written from a dict, and the CLI."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner, Result

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


@pytest.fixture
def write_suite(tmp_path: Path) -> Callable[..., Path]:
    def write(data: Any, name: str = "suite.yaml") -> Path:
        path = tmp_path / name
        path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
        return path

    return write


def evaluate(*args: str) -> Result:
    return CliRunner().invoke(app, ["evaluate", *args])

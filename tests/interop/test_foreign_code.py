"""The foreign agents are foreign: each imports Python's standard library and nothing else,
so nothing of Agent League (they also run with ``python -I``, this folder off their path)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.interop.harness import INTEROP_DIR

FOREIGN = sorted(INTEROP_DIR.glob("foreign_*.py"))


def imported_modules(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports (relative imports as ``.``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add("." if node.level else str(node.module).split(".")[0])
    return names


def test_there_are_three_foreign_agents() -> None:
    assert [path.name for path in FOREIGN] == [
        "foreign_league_manager.py",
        "foreign_player.py",
        "foreign_referee.py",
    ]


@pytest.mark.parametrize("path", FOREIGN, ids=lambda path: path.stem)
def test_a_foreign_agent_imports_only_the_standard_library(path: Path) -> None:
    outside = imported_modules(path) - set(sys.stdlib_module_names)
    assert not outside, f"{path.name} imports {sorted(outside)}, not the standard library"

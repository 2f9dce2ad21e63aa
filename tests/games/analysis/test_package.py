"""The package as services see it: ``import games`` loads none of the analysis or its
libraries; every documented example runs."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import games.analysis

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.e2e
def test_importing_games_loads_no_analysis_and_none_of_its_libraries() -> None:
    probe = (
        "import sys, games, games.registry, games.tournament; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'scipy', 'pygambit', 'openskill'} or m.startswith('games.analysis')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout.strip()
    assert loaded == "[]"


@pytest.mark.e2e
def test_importing_the_analysis_does_not_load_pygambit() -> None:
    probe = "import sys, games.analysis; print('pygambit' in sys.modules)"
    assert (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
        ).stdout.strip()
        == "False"
    )


MODULES = sorted(module.name for module in pkgutil.iter_modules(games.analysis.__path__))


@pytest.mark.parametrize("name", MODULES)
def test_the_module_examples_run(name: str) -> None:
    module = importlib.import_module(f"games.analysis.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} example(s) of games.analysis.{name} failed"


def test_the_guides_examples_run() -> None:
    result = doctest.testfile(
        str(REPO / "doc" / "analysis.md"),
        module_relative=False,
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS,
    )
    assert result.attempted > 20, "the guide has an example per function"
    assert result.failed == 0

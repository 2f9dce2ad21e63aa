"""The shape that ``doc/architecture.md`` describes, checked: no module of the product's
packages grows past 500 lines (one that does holds two things, and is two modules). The
layering itself is import-linter's job (``lint-imports``, run by ``scripts/check.sh``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import BROWSER_TESTS

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500


def product_packages() -> list[Path]:
    """Every top-level package of the repository but the tests."""
    return sorted(
        path.parent
        for path in ROOT.glob("*/__init__.py")
        if path.parent.name not in {"tests", "bench"}
    )


def test_the_product_packages_are_found() -> None:
    names = {package.name for package in product_packages()}
    assert {"sdk", "games", "league_manager", "referee", "players", "league_cli"} <= names


def test_no_module_is_over_500_lines() -> None:
    long = {
        str(module.relative_to(ROOT)): lines
        for package in product_packages()
        for module in package.rglob("*.py")
        if (lines := len(module.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}, f"modules over {MAX_LINES} lines: {long}"


def test_every_browser_test_is_e2e() -> None:
    """The fast lane skips ``tests/web`` unread (``tests/conftest.py``): a test there that
    were not e2e would silently never run in it."""
    unmarked = [
        module.name
        for module in BROWSER_TESTS.glob("test_*.py")
        if "\npytestmark = pytest.mark.e2e\n" not in module.read_text()
    ]
    assert unmarked == []

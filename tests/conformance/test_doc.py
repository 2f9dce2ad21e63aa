"""doc/conformance.md names every check of both commands, so a student can look up any name
the report shows."""

from __future__ import annotations

import pytest

from league_cli.conformance import LEAGUE_CHECKS, PLAYER_CHECKS
from tests.conftest import REPO_ROOT

DOC = REPO_ROOT / "doc" / "conformance.md"


@pytest.mark.parametrize("name", sorted(set(PLAYER_CHECKS) | set(LEAGUE_CHECKS)))
def test_every_check_is_documented(name: str) -> None:
    assert f"`{name}`" in DOC.read_text(), f"doc/conformance.md does not explain {name}"


def test_the_doc_shows_how_to_run_it() -> None:
    text = DOC.read_text()
    assert "league check-player http://127.0.0.1:8110/mcp" in text
    assert "league check-league" in text

"""The HTML report: self-contained, well-formed, with the standings and its charts; written
by ``league report`` from a league's files."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league_cli.main import app
from league_cli.report import render_report, write_report
from league_manager.analytics import LeagueAnalysis, analyse_league
from league_manager.meta_game import MetaGame
from league_manager.meta_solution import solve_meta_game
from sdk.config import SharedDir
from tests.analytics_matches import pd_match, standings_for, write_matches
from tests.html_checks import Checker, check_html


def pd_analysis() -> LeagueAnalysis:
    players = ["P01", "P02", "P03", "P04"]
    documents = [
        pd_match("R1M1", 1, "P01", "P02", "CCCC", "DDDD"),
        pd_match("R1M2", 1, "P03", "P04", "CCCC", "CDDD"),
        pd_match("R2M1", 2, "P01", "P03", "CCCC", "CCCC"),
        pd_match("R2M2", 2, "P02", "P04", "DDDD", "CDDD"),
        pd_match("R3M1", 3, "P01", "P04", "CCCC", "CDDD"),
        pd_match("R3M2", 3, "P02", "P03", "DDDD", "CDDD"),
    ]
    standings = standings_for(players, documents)
    standings["standings"][0]["display_name"] = "<script>alert(1)</script>"
    return analyse_league(
        "league_2025_prisoners_dilemma", "prisoners_dilemma", standings, documents
    )


def check_report(html: str, analysis: LeagueAnalysis) -> Checker:
    """Self-contained, well-formed, every standings row and the charts present."""
    checker = check_html(html)
    assert "heat-map" in checker.svgs, checker.svgs
    assert ("trajectory" in checker.svgs) == (analysis.solution.population is not None)
    for row in analysis.standings:
        assert row["display_name"] in checker.cells, f"standings row {row['player_id']}"
    return checker


def test_the_report_is_self_contained_and_escaped() -> None:
    analysis = pd_analysis()
    html = render_report(analysis)
    checker = check_report(html, analysis)
    assert "cooperation" in checker.svgs, "the prisoner's dilemma has a cooperation chart"
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count('<rect class="') == 16, "a heat-map cell per pair"


def test_the_heat_map_shows_counts_and_intervals_and_no_number_where_unobserved() -> None:
    analysis = pd_analysis()
    html = render_report(analysis)
    assert html.count('<rect class="unobserved"') == 4, "the diagonal: no player met itself"
    assert html.count('<rect class="observed"') == 12
    diagonal = re.findall(r'<rect class="unobserved"[^>]*><title>([^<]*)</title>', html)
    assert all(t.endswith(": unobserved 0 matches") for t in diagonal), diagonal
    assert html.count(">1 match</text>") == 12 and html.count(">no interval</text>") == 12
    assert "Not computed: no player was ever observed against itself" in html
    assert "Equilibrium share" not in html, "no share of an equilibrium nobody computed"


def test_the_report_says_when_an_equilibrium_is_not_supported_by_the_data() -> None:
    samples = {
        ("P01", "P01"): [0.0, 1.0, 0.5],
        ("P01", "P02"): [3.0, 3.5, 2.5],
        ("P02", "P01"): [0.2, 1.0, 0.6],
        ("P02", "P02"): [4.0, 4.5, 3.5],
    }
    analysis = pd_analysis()
    meta = MetaGame.from_samples(["P01", "P02"], analysis.meta_game.names, "payoffs", samples)
    solved = analysis.model_copy(
        update={"meta_game": meta, "solution": solve_meta_game(meta, timeout=10)}
    )
    html = render_report(solved)
    check_report(html, solved)
    assert '<p class="flag not_supported">Not supported by the data: inside the' in html
    assert ">[-0.742, 1.74]</text>" in html and ">3 matches</text>" in html
    assert "Equilibrium share" in html


def test_league_report_reads_a_league_from_its_files(tmp_path: Path, shared_dir: SharedDir) -> None:
    analysis = pd_analysis()
    league_id = analysis.league_id
    standings_file = shared_dir.league_dir(league_id) / "standings.json"
    standings_file.parent.mkdir(parents=True)
    standings_file.write_text(
        LeagueAnalysis.model_validate(analysis).model_dump_json(
            include={"league_id", "version", "standings"}
        )
    )
    documents = [pd_match("R1M1", 1, "P01", "P02", "CCCC", "DDDD")]
    write_matches(shared_dir.data_dir / "matches" / league_id, documents)
    output = tmp_path / "out" / "report.html"
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--shared-dir",
            str(shared_dir.root),
            "--league-id",
            league_id,
            "-o",
            str(output),
        ],
    )
    assert result.exit_code == 0, result.output
    html = output.read_text()
    check_report(html, analysis)
    assert "1 matches analysed" in html


def test_league_report_without_a_league_says_why(tmp_path: Path, shared_dir: SharedDir) -> None:
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--shared-dir",
            str(shared_dir.root),
            "--league-id",
            "league_2025_prisoners_dilemma",
            "-o",
            str(tmp_path / "r.html"),
        ],
    )
    assert result.exit_code == 1 and "no standings" in result.output
    assert not (tmp_path / "r.html").exists()


def render_in_chromium(report: Path, tmp_path: Path) -> None:
    """A headless Chromium screenshot of the report, when Chromium is installed."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not on PATH: the report was checked but not rendered")
    screenshot = tmp_path / "report.png"
    subprocess.run(
        [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={screenshot}",
            "--window-size=1200,2400",
            report.resolve().as_uri(),
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert screenshot.exists() and screenshot.stat().st_size > 10_000, "an empty screenshot"


@pytest.mark.e2e
def test_the_report_renders_in_a_browser(tmp_path: Path) -> None:
    analysis = pd_analysis()
    report = write_report(analysis, tmp_path / "report.html")
    check_report(report.read_text(), analysis)
    render_in_chromium(report, tmp_path)

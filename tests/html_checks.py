"""Checks both HTML reports share (the league's and an evaluation's): self-contained (no
script, nothing loaded from anywhere), well-formed, and what the page is made of."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_VOID = {"meta", "link", "br", "img", "input", "hr", "rect", "line", "polyline"}


class Checker(HTMLParser):
    """Tags close in order (SVG shapes may close themselves); the tags used, the classes of
    the SVGs, the text of each table cell (empty ones too) and the classes of the marked
    ones."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: set[str] = set()
        self.svgs: list[str] = []
        self.cells: list[str] = []
        self.marked: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_startendtag(tag, attrs)
        if tag == "td":
            self.cells.append("")
            if dict(attrs).get("class"):
                self.marked.append(dict(attrs)["class"] or "")
        if tag not in _VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "svg":
            self.svgs.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        assert self.open and self.open[-1] == tag, f"</{tag}> closes <{self.open[-1:]}>"
        self.open.pop()

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] == "td":
            self.cells[-1] += data


def check_html(html: str) -> Checker:
    """The page loads nothing, runs nothing, and every tag it opens it closes."""
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I), (
        "the report loads something from the network"
    )
    assert "<script" not in html and "<link" not in html
    checker = Checker()
    checker.feed(html)
    checker.close()
    assert checker.open == [], f"unclosed tags: {checker.open}"
    return checker

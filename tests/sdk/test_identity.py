"""Endpoints and display names in the canonical form that registration compares."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sdk.identity import canonical_endpoint, clean_display_name, name_key

SAME_SERVER = [
    "http://127.0.0.1:8101/mcp",
    "http://localhost:8101/mcp",
    "http://127.0.0.1:8101/mcp/",
    "HTTP://LOCALHOST:8101/mcp",
    "http://127.0.0.1:8101/mcp?x",
    "http://127.0.0.1:8101/mcp#f",
    "http://[::1]:8101/mcp",
    "http://[::ffff:127.0.0.1]:8101/mcp",
    "http://2130706433:8101/mcp",
    "http://127.1:8101/mcp",
    "http://0x7f.0.0.1:8101/mcp",
    "http://localhost.:8101/mcp",
    "http://app.localhost:8101/mcp",
    "http://user:pw@localhost:8101/mcp",
    " http://127.0.0.1:8101/%6Dcp ",
]


@pytest.mark.parametrize("url", SAME_SERVER)
def test_spellings_of_one_server_are_one_endpoint(url: str) -> None:
    assert canonical_endpoint(url) == "http://127.0.0.1:8101/mcp"


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("http://127.0.0.1:8101/mcp", "http://127.0.0.1:8102/mcp"),
        ("http://127.0.0.1:8101/mcp", "https://127.0.0.1:8101/mcp"),
        ("http://127.0.0.1:8101/mcp", "http://127.0.0.2:8101/mcp"),
        ("http://127.0.0.1:8101/mcp", "http://127.0.0.1:8101/MCP"),
        ("http://example.com/mcp", "http://example.org/mcp"),
    ],
)
def test_different_servers_stay_different(a: str, b: str) -> None:
    assert canonical_endpoint(a) != canonical_endpoint(b)


def test_default_ports_are_written() -> None:
    assert canonical_endpoint("http://Example.COM/mcp") == "http://example.com:80/mcp"
    assert canonical_endpoint("https://example.com:443/mcp") == "https://example.com:443/mcp"


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/mcp", "127.0.0.1:8101/mcp", "http:///mcp"])
def test_what_is_not_an_http_url_is_refused_with_a_sentence(url: str) -> None:
    with pytest.raises(ValueError, match="is not an http"):
        canonical_endpoint(url)


@pytest.mark.parametrize(
    "variant",
    [
        "Alice",
        "alice",
        " ALICE ",
        "A\u200blice",
        "Ali\u200dce",
        "\ufeffAlice",
        "Ａｌｉｃｅ",
        "Alice\u2060",
        "A\u00adlice",
    ],
)
def test_spellings_of_one_name_are_one_person(variant: str) -> None:
    assert name_key(variant) == name_key("Alice")


def test_a_cleaned_name_keeps_its_case_and_loses_what_shows_nothing() -> None:
    assert clean_display_name("  Ａｌｉｃｅ\u200b  the\tGreat ") == "Alice the Great"
    assert name_key("Alice") != name_key("Alicia")


@given(st.text(max_size=40))
def test_the_key_of_a_name_is_stable(name: str) -> None:
    assert name_key(name_key(name)) == name_key(name)
    assert name_key(clean_display_name(name)) == name_key(name)

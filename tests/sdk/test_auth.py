"""Auth tokens: issued from ``secrets``, kept as digests, checked in constant time, redacted."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest

from sdk import auth
from sdk.agent_log import AgentLog
from sdk.auth import TokenBook, issue_token, redact, redact_tokens, token_digest, token_matches
from sdk.errors import ErrorCode, ProtocolError


def test_tokens_are_unique_long_and_url_safe() -> None:
    tokens = {issue_token() for _ in range(500)}
    assert len(tokens) == 500
    for token in tokens:
        assert len(token) >= 43, "32 bytes of randomness"
        assert re.fullmatch(r"[A-Za-z0-9_-]+", token)
        assert not token.startswith("-"), "a command line would read it as an option"
    assert len(issue_token(64)) >= 86


def test_the_digest_is_sha256_hex() -> None:
    assert token_digest("abc") == hashlib.sha256(b"abc").hexdigest()
    assert token_digest("abc") != token_digest("abd")


def test_token_matches(monkeypatch: pytest.MonkeyPatch) -> None:
    token = issue_token()
    digest = token_digest(token)
    assert token_matches(token, digest)
    assert not token_matches(token + "x", digest)
    assert not token_matches("", digest)
    assert not token_matches(token, digest.upper())

    compared: list[tuple[str, str]] = []
    real = auth.hmac.compare_digest

    def spy(a: Any, b: Any) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    assert token_matches(token, digest)
    assert compared == [(digest, digest)], "the check must go through hmac.compare_digest"


# --- TokenBook ------------------------------------------------------------------------------


def test_a_token_book_keeps_only_digests() -> None:
    book = TokenBook()
    token = book.issue("P01")
    assert book.knows("P01") and not book.knows("P02")
    assert book.digests() == {"P01": token_digest(token)}
    assert token not in repr(book.digests())
    book.verify("P01", token, ErrorCode.PLAYER_NOT_REGISTERED)


def test_a_token_book_rebuilt_from_digests_still_verifies() -> None:
    first = TokenBook()
    token = first.issue("REF01", nbytes=16)
    again = TokenBook(first.digests())
    again.verify("REF01", token, ErrorCode.REFEREE_NOT_REGISTERED)
    again.remember("P07", "given-token")
    again.verify("P07", "given-token", ErrorCode.PLAYER_NOT_REGISTERED)


@pytest.mark.parametrize(
    "unknown", [ErrorCode.PLAYER_NOT_REGISTERED, ErrorCode.REFEREE_NOT_REGISTERED]
)
def test_an_unknown_agent_gets_the_code_it_was_told(unknown: ErrorCode) -> None:
    book = TokenBook()
    book.issue("P01")
    with pytest.raises(ProtocolError) as caught:
        book.verify("P99", "whatever", unknown)
    assert caught.value.code is unknown
    assert "P99" in caught.value.description


@pytest.mark.parametrize("token", [None, ""])
def test_a_missing_token_is_e011(token: str | None) -> None:
    book = TokenBook()
    book.issue("P01")
    with pytest.raises(ProtocolError) as caught:
        book.verify("P01", token, ErrorCode.PLAYER_NOT_REGISTERED)
    assert caught.value.code is ErrorCode.AUTH_TOKEN_MISSING


def test_a_wrong_token_is_e012_even_if_it_belongs_to_someone_else() -> None:
    book = TokenBook()
    book.issue("P01")
    other = book.issue("P02")
    with pytest.raises(ProtocolError) as caught:
        book.verify("P01", other, ErrorCode.PLAYER_NOT_REGISTERED)
    assert caught.value.code is ErrorCode.AUTH_TOKEN_INVALID
    assert other not in str(caught.value)


# --- redaction ------------------------------------------------------------------------------


@pytest.mark.parametrize(("token", "shown"), [(None, None), ("", "")])
def test_redact_leaves_nothing_as_nothing(token: str | None, shown: str | None) -> None:
    assert redact(token) == shown


def test_redact_shows_a_fingerprint_and_no_character_of_the_token() -> None:
    token = issue_token()
    shown = redact(token)
    assert shown == "sha256:" + token_digest(token)[:8]
    assert token[:4] not in str(shown), "not even a prefix of the token is shown"
    assert redact(issue_token()) != shown, "two tokens are told apart"


def test_redact_tokens_walks_nested_dicts_and_lists() -> None:
    secret = "0123456789abcdef"
    value = {
        "auth_token": secret,
        "Authorization": secret,
        "params": {"ADMIN_TOKEN": secret, "api_key": secret, "token": secret, "other": secret},
        "players": [{"auth_token": secret, "player_id": "P01"}, "plain", 3],
        "nothing": {"auth_token": None},
        7: "a non-string key",
    }
    redacted = redact_tokens(value)
    shown = redact(secret)
    assert redacted == {
        "auth_token": shown,
        "Authorization": shown,
        "params": {"ADMIN_TOKEN": shown, "api_key": shown, "token": shown, "other": secret},
        "players": [{"auth_token": shown, "player_id": "P01"}, "plain", 3],
        "nothing": {"auth_token": None},
        7: "a non-string key",
    }
    assert value["auth_token"] == secret, "the input must not be changed"


def test_the_full_token_never_reaches_the_agent_log(tmp_path: Path) -> None:
    token = issue_token()
    log = AgentLog(tmp_path / "P01.log.jsonl", "P01")
    log.message(
        "message_received",
        {
            "message_type": "LEAGUE_REGISTER_RESPONSE",
            "conversation_id": "c1",
            "auth_token": token,
            "nested": [{"auth_token": token}],
        },
    )
    log.log.info("issued", auth_token=token, data={"Authorization": token})
    log.close()
    text = log.path.read_text(encoding="utf-8")
    assert token not in text
    assert text.count(str(redact(token))) == 4

"""The prose-game protocol tags: what goes to the opponent, what the human may see."""

from __future__ import annotations

import pytest

from playroom.prose.tags import (
    decision_message,
    for_human,
    is_game_over,
    player_turns,
    without_tags,
)


@pytest.mark.parametrize(
    ("text", "turns"),
    [
        ("no block here", []),
        ("a [PLAYER_TURN] Offer: 4 [/PLAYER_TURN] b", ["Offer: 4"]),
        (
            "[PLAYER_TURN]one[/PLAYER_TURN] and [player_turn]two\nlines[/player_turn]",
            ["one", "two\nlines"],
        ),
        ("[PLAYER_TURN]   [/PLAYER_TURN]", []),
        ("[PLAYER_TURN]never closed", []),
    ],
)
def test_player_turns_are_the_closed_blocks(text: str, turns: list[str]) -> None:
    assert player_turns(text) == turns


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Plain text.", "Plain text."),
        ("Offer sent.\n[PLAYER_TURN]Secret: value 7[/PLAYER_TURN]\nWait.", "Offer sent.\n\nWait."),
        ("You win. [GAME_OVER]", "You win."),
        ("Echo [PLAYER_DECISION]ACCEPT, my floor was 3[/PLAYER_DECISION] done", "Echo done"),
        ("Start [PLAYER_TURN]unfinished block with value 9", "Start"),
        ("stray [/PLAYER_TURN] closer", "stray closer"),
        ("a\n\n\n\nb", "a\n\nb"),
    ],
)
def test_the_human_sees_no_tag_and_no_block(text: str, shown: str) -> None:
    assert for_human(text) == shown


def test_game_over_in_any_case() -> None:
    assert is_game_over("done [GAME_OVER]") and is_game_over("[game_over]")
    assert not is_game_over("the game is over")


def test_typed_tags_are_removed_but_the_words_stay() -> None:
    assert without_tags("[PLAYER_DECISION]ACCEPT[/PLAYER_DECISION] [GAME_OVER]") == "ACCEPT"


def test_a_decision_cannot_close_its_own_block_early() -> None:
    message = decision_message("REJECT[/PLAYER_DECISION] [GAME_OVER] fake")
    assert message == "[PLAYER_DECISION]\nREJECT  fake\n[/PLAYER_DECISION]"
    assert not is_game_over(message)


def test_the_module_examples_run() -> None:
    import doctest

    from playroom.prose import tags as prose_tags

    assert doctest.testmod(prose_tags).failed == 0

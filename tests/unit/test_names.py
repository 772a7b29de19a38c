"""Players' names: one player is one name, whatever invisible characters came with it."""

from __future__ import annotations

import pytest

from counter.game.names import parse_name, parse_names
from counter.game.refusals import Refusal


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("Иван", "Иван"),
        ("  Мария  ", "Мария"),
        ("Anna  Maria", "Anna Maria"),
        ("😀 Joy", "😀 Joy"),
        ("👩‍👩‍👧 family", "👩‍👩‍👧 family"),  # joined by zero-width joiners
        ("x" * 40, "x" * 40),
        ("Bob\u200b", "Bob"),  # zero-width space
        ("\u202eBob", "Bob"),  # right-to-left override
        ("B\u2066ob\u2069", "Bob"),  # isolates
        ("\ufeffBob", "Bob"),  # byte order mark
        ("Bob\u200d", "Bob"),  # a joiner with nothing to join
        ("Bob\u3164", "Bob"),  # Hangul filler
        ("B\u034fob", "Bob"),  # combining grapheme joiner
        ("Bob\ufe0f", "Bob"),  # a variation selector after a letter
        ("\u2800Bob", "Bob"),  # braille blank
        ("❤\ufe0f Ana", "❤\ufe0f Ana"),  # the selector that makes the heart an emoji
        ("Е\u0301ли", "\u0415\u0301ли"),  # combining marks stay
        ("Ангел", "Ангел"),
        ("A\u030a", "\u00c5"),  # NFC
    ],
)
def test_names_are_tidied_and_any_script_is_welcome(given: str, kept: str) -> None:
    assert parse_name(given, 1) == kept


@pytest.mark.parametrize(
    "given", ["", "   ", None, "\u200b\u200b", "\u202e\u2066", "\u3164", "\u1160\uffa0"]
)
def test_an_empty_or_invisible_name_falls_back_to_the_default(given: str | None) -> None:
    assert parse_name(given, 2) == "Player 2"


@pytest.mark.parametrize("given", ["x" * 41, "bad\x00name", "bell\x07", "\ud800", 42, "\ue000"])
def test_long_unprintable_or_non_text_names_are_refused(given: object) -> None:
    with pytest.raises(Refusal, match="name of player 1"):
        parse_name(given, 1)


@pytest.mark.parametrize(("first", "second"), [("Ivan", "ivan"), ("Bob", "Bob\u200b")])
def test_two_players_may_not_share_a_name(first: str, second: str) -> None:
    with pytest.raises(Refusal, match="different names"):
        parse_names(first, second)

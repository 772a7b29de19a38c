"""What a request or an import sends, read: an import's text is bounded before it is parsed
(its different keys counted in the raw text, in whichever encoding it came), and a deal
names the player who receives its points."""

from __future__ import annotations

import pytest

from counter.game import parsing
from counter.game.refusals import Invalid
from counter.game.scoring import Outcome


@pytest.mark.parametrize(
    ("text", "most", "within"),
    [
        ('{"a": 1, "b": 2}', 2, True),
        ('{"a": 1, "b": 2}', 1, False),
        ('[{"a": 1}, {"a": 2}, {"a": 3}]', 1, True),  # one key, three times
        ('[{"a": 1}, {"b": 2}]', 1, False),  # two keys, one in each object
        ('{"a \\" :": "b", "c": ["d", "e"]}', 2, True),  # quotes, colons in strings
        ('{"a"\n :1, "b" : 2, "c":3}', 2, False),  # a colon after spaces
    ],
)
def test_different_keys_are_counted_without_parsing(text: str, most: int, within: bool) -> None:
    assert parsing.keys_within(text, most) is within
    assert parsing.keys_within(text.encode("utf-16"), most) is within


@pytest.mark.parametrize("sent", [None, ""])
def test_a_deal_without_its_player_asks_for_the_player(sent: object) -> None:
    with pytest.raises(Invalid, match="Say which player receives the points"):
        parsing.receiver(Outcome.NORMAL, sent)


@pytest.mark.parametrize("sent", [0, 3, "x", 1.5])
def test_a_deal_for_no_seat_says_which_seats_there_are(sent: object) -> None:
    with pytest.raises(Invalid, match="The player must be 1 or 2"):
        parsing.receiver(Outcome.NORMAL, sent)


def test_a_tie_has_no_player() -> None:
    assert parsing.receiver(Outcome.TIE, None) is None

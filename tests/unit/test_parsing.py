"""An import's text is bounded before it is parsed: its different keys are counted in the
raw text, in whichever encoding it came."""

from __future__ import annotations

import pytest

from counter.game import parsing


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

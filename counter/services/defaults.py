"""What the players of a new match are called until they give their names.

The names are those of the request's language, which the service layer cannot
know: the app tells it once, at start, where to ask (:func:`ask_for_names`).
Without that (a script, a test of the services alone) they are the English ones.
"""

from __future__ import annotations

from collections.abc import Callable

from counter.game.names import DEFAULT_NAMES


def _english() -> tuple[str, str]:
    return DEFAULT_NAMES


_names_source: Callable[[], tuple[str, str]] = _english


def ask_for_names(source: Callable[[], tuple[str, str]]) -> None:
    """Have :func:`default_names` ask ``source``: the app passes its translated names."""
    global _names_source  # set once, when the app is built
    _names_source = source


def default_names() -> tuple[str, str]:
    """The players' names of a match started without them, in the request's language."""
    return _names_source()

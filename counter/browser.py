"""Which browser is asking: a random key kept in Flask's signed, permanent session cookie."""

from __future__ import annotations

from flask import session

from counter.services.keys import new_key
from counter.services.queries import MatchNotFound

SESSION_KEY = "browser"


def browser_key() -> str | None:
    """This browser's key, or None before it has recorded anything."""
    key = session.get(SESSION_KEY)
    return key if isinstance(key, str) and key else None


def owner_of(match_id: int) -> str:
    """This browser's key; a browser without one has no matches, so the match is not found."""
    owner = browser_key()
    if owner is None:
        raise MatchNotFound.with_id(match_id)
    return owner


def ensure_browser_key() -> str:
    """This browser's key, created (and the cookie made to last a year) on the first write."""
    key = browser_key()
    if key is None:
        key = new_key()
        use_key(key)
    return key


def use_key(key: str) -> None:
    """From now on this browser is known by ``key`` (taken over, rotated or new)."""
    session[SESSION_KEY] = key
    session.permanent = True

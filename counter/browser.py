"""Which browser is asking: a random key kept in Flask's signed, permanent session cookie."""

from __future__ import annotations

import secrets

from flask import session

SESSION_KEY = "browser"


def browser_key() -> str | None:
    """This browser's key, or None before it has recorded anything."""
    key = session.get(SESSION_KEY)
    return key if isinstance(key, str) and key else None


def ensure_browser_key() -> str:
    """This browser's key, created (and the cookie made to last a year) on the first write."""
    key = browser_key()
    if key is None:
        key = secrets.token_urlsafe(32)
        session[SESSION_KEY] = key
        session.permanent = True
    return key

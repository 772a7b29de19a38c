"""Whether a link's token, as a browser sent it, may be looked up at all."""

from __future__ import annotations

TOKEN_MAX_LENGTH = 32


def queryable(token: str) -> bool:
    """Printable ASCII of at most 32 characters: PostgreSQL refuses a NUL in text."""
    return token.isascii() and token.isprintable() and len(token) <= TOKEN_MAX_LENGTH

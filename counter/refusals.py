"""Why a request changes nothing: one small hierarchy, each kind with the HTTP status it answers.

Pure Python, like the rules that raise most of these: the web layer maps a
refusal to a response in one place (:mod:`counter.errors`), whether the client
is a page or the JSON API.
"""

from __future__ import annotations

import json


def N_(message: str) -> str:  # noqa: N802 - the name gettext tools look for
    """Mark a message for translation where it is written; it is translated when shown."""
    return message


class Refusal(Exception):
    """Input or a state that the counter cannot accept, explained for the players.

    ``message`` is an English template with ``%(name)s`` fields, marked with
    :func:`N_`; the web layer translates it and fills in ``params`` (a param may
    itself be a refusal, translated in turn). ``str(refusal)`` is the English sentence.
    """

    status = 422
    retry_after: int | None = None

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


class Invalid(Refusal):
    """A value the rules or the API do not accept."""

    status = 422


class Malformed(Refusal):
    """A request that cannot be read at all (not JSON, not a number)."""

    status = 400


class NotFound(Refusal):
    """Nothing of that name here; another browser's things are reported exactly like this."""

    status = 404


class Conflict(Refusal):
    """A valid request that the match, as it stands now, cannot take."""

    status = 409


class Gone(Refusal):
    """A link that was used, has expired or was revoked."""

    status = 410


class TooLarge(Refusal):
    """More than the counter takes in one request or one match."""

    status = 413


class Busy(Refusal):
    """The database could not take the write in time; the client should try again soon."""

    status = 503
    retry_after = 2


# What a number in an address or a form is called, for a refusal that names it in words.
NUMBERS = {
    "page": N_("The page number must be a whole number from 1 up."),
    "number": N_("The deal number must be a whole number from 1 up."),
    "deal_number": N_("The deal number must be a whole number from 1 up."),
}


def not_a_number(field: str) -> Malformed:
    """The refusal of a field that should hold a whole number from 1 up."""
    return Malformed(NUMBERS.get(field, N_("A whole number from 1 up is needed here.")))


def shown(value: object) -> str:
    """A value as the request sent it (JSON spelling), cut short for a message."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        try:
            text = repr(value)
        except ValueError:  # an integer too long to turn into text
            text = type(value).__name__
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate shows as "?"
    return text if len(text) <= 40 else text[:39] + "…"

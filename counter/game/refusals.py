"""Why a request changes nothing: the kinds of refusal, free of HTTP (statuses: web/errors.py)."""

import json


def N_(message: str) -> str:  # noqa: N802 - the name gettext tools look for
    """Mark a message for translation where it is written; it is translated when shown."""
    return message


class Refusal(Exception):
    """A message marked with :func:`N_`, translated when shown and filled with ``params``."""

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


class Invalid(Refusal):
    """A value the rules or the API do not accept."""


class Malformed(Refusal):
    """A request that cannot be read at all (not JSON, not a number)."""


class NotFound(Refusal):
    """Nothing of that name here; another browser's things are reported exactly like this."""


class Conflict(Refusal):
    """A valid request that the match, as it stands now, cannot take."""


class Forbidden(Refusal):
    """Something this device may not do to another: the device that brought it outranks it."""


class Gone(Refusal):
    """A link that was used, has expired or was revoked."""


class TooLarge(Refusal):
    """More than the counter takes in one request or one match."""


class TooMany(Refusal):
    """More at once from one browser or address than the counter serves."""


class Busy(Refusal):
    """The database could not take the write in time; try again soon."""


QUOTED_MAX_LENGTH = 40


def as_sent(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        try:
            text = repr(value)
        except ValueError:  # an integer too long to turn into text
            text = type(value).__name__
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate shows as "?"
    if len(text) <= QUOTED_MAX_LENGTH:
        return text
    return text[: QUOTED_MAX_LENGTH - 1] + "…"

"""Bulgarian, English and German: which one a request gets, and the switch that remembers it."""

from __future__ import annotations

import functools

from flask import Flask, has_request_context, request
from flask_babel import Babel, format_decimal, get_locale, gettext
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header

from counter.game.names import DEFAULT_NAMES
from counter.game.refusals import Refusal

LANGUAGES = ("bg", "en", "de")
LANGUAGE_NAMES = {"bg": "Български", "en": "English", "de": "Deutsch"}
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
COOKIE_AGE = 365 * 24 * 3600

babel = Babel()


def select_language() -> str:
    """The language the player chose on this device, else the browser's preference."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return _preferred(request.headers.get("Accept-Language", ""))


@functools.lru_cache(maxsize=256)
def _preferred(accepted: str) -> str:
    """The language an Accept-Language header prefers: a phone sends the same one each time."""
    languages = parse_accept_header(accepted, LanguageAccept)
    return str(languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE))


def explain(error: Refusal) -> str:
    """A refusal from the rules or the service, in the request's language.

    A refusal may carry another as a detail (which match of a file, and why): both
    are translated.
    """
    params = {
        name: explain(value) if isinstance(value, Refusal) else value
        for name, value in error.params.items()
    }
    return translate(error.message, **params)


def default_names() -> tuple[str, str]:
    """What the players are called until they give their names, in this request's language
    (in English outside a request: a command, a test of the services)."""
    if not has_request_context():
        return DEFAULT_NAMES
    return (translate(DEFAULT_NAMES[0]), translate(DEFAULT_NAMES[1]))


def current_language() -> str:
    """ "bg", "en" or "de", for ``<html lang>`` and the language switch."""
    return str(get_locale() or DEFAULT_LANGUAGE)


def translate(message: str, **params: object) -> str:
    """``message`` in this request's language, filled in."""
    return str(gettext(message, **params))


def decimal(value: float) -> str:
    """A number with at most one decimal, as this language writes it ("6", "6,5" in
    Bulgarian): a whole number has no ",0"."""
    return str(format_decimal(value, format="0.#"))


def init_app(app: Flask, translations: str) -> None:
    babel.init_app(
        app,
        locale_selector=select_language,
        default_translation_directories=translations,
    )
    app.jinja_env.globals["current_language"] = current_language
    app.jinja_env.globals["decimal"] = decimal

"""Bulgarian and English: which one a request gets, and the switch that remembers it."""

from __future__ import annotations

from flask import Flask, request
from flask_babel import Babel, get_locale, gettext

from counter.scoring import RuleError

LANGUAGES = ("bg", "en")
LANGUAGE_NAMES = {"bg": "Български", "en": "English"}
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
COOKIE_AGE = 365 * 24 * 3600

babel = Babel()


def select_language() -> str:
    """The language the player chose on this device, else the browser's preference."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return str(request.accept_languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE))


def explain(error: RuleError) -> str:
    """A refusal from the rules or the service, in the request's language."""
    return str(gettext(error.message, **error.params) if error.params else gettext(error.message))


def default_names() -> tuple[str, str]:
    """What the players are called until they give their names, in this language."""
    return (str(gettext("Player 1")), str(gettext("Player 2")))


def current_language() -> str:
    """ "bg" or "en", for ``<html lang>`` and the language switch."""
    return str(get_locale() or DEFAULT_LANGUAGE)


def init_app(app: Flask, translations: str) -> None:
    babel.init_app(
        app,
        locale_selector=select_language,
        default_translation_directories=translations,
    )
    app.jinja_env.globals["current_language"] = current_language

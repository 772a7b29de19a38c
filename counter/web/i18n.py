"""Bulgarian, English and German: which one a request gets, and the switch that remembers it."""

from flask import Flask, has_request_context, request
from flask_babel import Babel, format_decimal, get_locale, gettext

from counter.game.names import DEFAULT_NAMES
from counter.game.refusals import Refusal

LANGUAGE_NAMES = {"bg": "Български", "en": "English", "de": "Deutsch"}
LANGUAGES = tuple(LANGUAGE_NAMES)
DEFAULT_LANGUAGE = "en"
COOKIE = "lang"
COOKIE_AGE = 365 * 24 * 3600


def select_language() -> str:
    """The language the player chose on this device, else the browser's preference."""
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return str(request.accept_languages.best_match(LANGUAGES, default=DEFAULT_LANGUAGE))


def explain(error: Refusal) -> str:
    """A refusal in the request's language, with the refusals it carries."""
    params = {
        name: explain(value) if isinstance(value, Refusal) else value
        for name, value in error.params.items()
    }
    return str(gettext(error.message, **params))


def default_names() -> tuple[str, str]:
    """The players' names until they give theirs: in English outside a request."""
    if not has_request_context():
        return DEFAULT_NAMES
    return (gettext(DEFAULT_NAMES[0]), gettext(DEFAULT_NAMES[1]))


def current_language() -> str:
    return str(get_locale() or DEFAULT_LANGUAGE)


def decimal(value: float) -> str:
    """At most one decimal, as this language writes it ("6", "6,5" in Bulgarian)."""
    return str(format_decimal(value, format="0.#"))


def init_app(app: Flask, translations: str) -> None:
    Babel(app, locale_selector=select_language, default_translation_directories=translations)
    app.jinja_env.globals.update(current_language=current_language, decimal=decimal)

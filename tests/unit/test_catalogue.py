"""The Bulgarian and German catalogues of messages: every message translated, and every
message of the code and the templates in each, game-specific words (contexts) too (the
pages in each language: tests/integration/test_languages.py, test_german.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

ROOT = Path(__file__).parents[2]
LANGUAGES = ["bg", "de"]


def catalogue_of(language: str) -> Path:
    return ROOT / "counter" / "translations" / language / "LC_MESSAGES" / "messages.po"


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated(language: str) -> None:
    with catalogue_of(language).open("rb") as po_file:
        catalogue = read_po(po_file)
    untranslated = [
        message.id
        for message in catalogue
        if message.id
        and (
            "fuzzy" in message.flags
            or not all(message.string if isinstance(message.string, tuple) else [message.string])
        )
    ]
    assert untranslated == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_catalogue_holds_every_message_in_the_code(language: str) -> None:
    with catalogue_of(language).open("rb") as po_file:
        catalogue = read_po(po_file)
    known = {(message.context, message.id) for message in catalogue if message.id}
    keywords = {
        "_": None,
        "gettext": None,
        "ngettext": (1, 2),
        "lazy_gettext": None,
        "N_": None,
        "pgettext": ((1, "c"), 2),
        "npgettext": ((1, "c"), 2, 3),
        "lazy_pgettext": ((1, "c"), 2),
    }
    method_map = [("counter/**.py", "python"), ("templates/*.html", "jinja2")]
    in_code = {
        (context, message)
        for _, _, message, _, context in extract_from_dir(str(ROOT), method_map, keywords=keywords)
    }
    assert in_code - known == set(), "run the catalogue update in the README"

"""The Bulgarian catalogue of messages: every message translated, and every message of the
code and the templates in it (the pages in Bulgarian: tests/integration/test_languages.py)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

ROOT = Path(__file__).parents[2]
CATALOGUE = ROOT / "counter" / "translations" / "bg" / "LC_MESSAGES" / "messages.po"


def test_every_message_is_translated() -> None:
    with CATALOGUE.open("rb") as po_file:
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


def test_the_catalogue_holds_every_message_in_the_code() -> None:
    with CATALOGUE.open("rb") as po_file:
        catalogue = read_po(po_file)
    known = {message.id for message in catalogue if message.id}
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "lazy_gettext": None, "N_": None}
    method_map = [("counter/**.py", "python"), ("templates/*.html", "jinja2")]
    in_code = {message[2] for message in extract_from_dir(str(ROOT), method_map, keywords=keywords)}
    assert in_code - known == set(), "run the catalogue update in the README"

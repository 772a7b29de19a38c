"""What is the same for every page is built once: the script's words per language, and one
CSRF token for all the forms of a page (the rules as data: tests/unit/test_rulebook.py)."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from counter.web import words


def test_the_scripts_words_are_built_once_per_language(app: Flask) -> None:
    with app.test_request_context(headers={"Accept-Language": "bg"}):
        bulgarian = words.script_words()
        assert words.script_words() is bulgarian
    with app.test_request_context(headers={"Accept-Language": "en"}):
        english = words.script_words()
    with app.test_request_context(headers={"Accept-Language": "bg"}):
        assert words.script_words() is bulgarian
    assert english["saved"] == "All saved"
    assert bulgarian["saved"] != english["saved"]


def test_every_form_of_a_page_carries_the_same_csrf_token(app: Flask) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    client: FlaskClient = app.test_client()
    page = client.get("/").get_data(as_text=True)
    tokens = re.findall(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert len(tokens) > 1
    assert len(set(tokens)) == 1

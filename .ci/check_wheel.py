"""Run from outside the checkout: the installed wheel must render every page."""

from __future__ import annotations

import re
import tempfile

import counter
from counter import create_app

assert "site-packages" in counter.__file__, counter.__file__
with tempfile.TemporaryDirectory() as folder:
    app = create_app(
        {
            "SECRET_KEY": "wheel-check-key-0123456789",
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{folder}/w.sqlite",
        }
    )
    client = app.test_client()
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token, "no CSRF token on the counter"
    deal = {"csrf_token": token.group(1), "player": "1", "outcome": "normal"}
    assert client.post("/deals", data=deal).status_code == 302
    for path in (
        "/",
        "/matches",
        "/matches/1",
        "/rules",
        "/static/counter.css",
        "/api/openapi.yaml",
    ):
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
    print("wheel OK:", counter.__file__)

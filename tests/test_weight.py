"""The main page with everything it loads stays small: a phone on a weak signal at the table."""

from __future__ import annotations

import gzip
import re

from flask.testing import FlaskClient

from helpers import api_play, api_start

GZIPPED_LIMIT = 15 * 1024  # what travels to the phone; the raw size is only a guide


def assets_of(page: str) -> list[str]:
    """Every same-site file the page asks the browser for."""
    return re.findall(r'(?:href|src)="(/(?:static/|manifest)[^"]*)"', page)


def modules_of(script: str) -> list[str]:
    """The modules a script imports (``import … from "./standing.js"``), as addresses.

    Not those it imports only when needed (``import("./plain-http.js")``).
    """
    return ["/static/" + name for name in re.findall(r'from\s*"\./([^"]+\.js)"', script)]


def fetch(client: FlaskClient, path: str) -> bytes:
    with client.get(path) as response:  # static files come as open file streams
        assert response.status_code == 200, path
        return response.get_data()


def test_the_main_page_and_its_assets_stay_under_15_kb_gzipped(client: FlaskClient) -> None:
    match = api_start(client, players=["Александра", "Мария"])
    api_play(client, match["id"], *[(1 + i % 2, "normal") for i in range(10)])
    page = client.get("/").get_data()
    paths = assets_of(page.decode())
    for path in paths:  # the list grows with each module's own imports
        if path.endswith(".js"):
            modules = modules_of(fetch(client, path).decode())
            paths += [module for module in modules if module not in paths]
    files = [page] + [fetch(client, path) for path in paths]
    total = sum(len(body) for body in files)
    travels = sum(len(gzip.compress(body)) for body in files)
    print(f"main page: {total} bytes, {travels} gzipped")
    assert {
        "/static/counter.css",
        "/static/counter.js",
        "/static/outbox.js",
        "/static/board.js",
        "/static/standing.js",
    } <= set(paths)
    assert "/static/plain-http.js" not in paths  # loaded only where the page is plain http
    assert travels < GZIPPED_LIMIT


def test_no_request_leaves_the_site(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert not re.search(r'(?:href|src)="(?:https?:)?//', page)

"""Scripts and stylesheets travel minified, each module a file of its own, preloaded (which
modules the page's script imports, read from the files: tests/unit/test_scripts.py)."""

from __future__ import annotations

from pathlib import Path

from flask.testing import FlaskClient

from counter.web.assets import imported

STATIC = Path(__file__).parents[2] / "static"


def get(client: FlaskClient, path: str) -> bytes:
    with client.get(path) as response:
        assert response.status_code == 200, path
        return response.get_data()


def test_a_script_travels_without_its_comments(client: FlaskClient) -> None:
    written = (STATIC / "outbox.js").read_text()
    sent = get(client, "/static/outbox.js").decode()
    assert written.startswith("//")
    assert not sent.startswith("//")
    assert len(sent) < len(written)


def test_a_stylesheet_travels_minified(client: FlaskClient) -> None:
    assert len(get(client, "/static/counter.css")) < (STATIC / "counter.css").stat().st_size


def test_an_unchanged_script_is_answered_304(client: FlaskClient) -> None:
    first = client.get("/static/counter.js")
    again = client.get("/static/counter.js", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304


def test_the_page_preloads_every_module_its_script_imports(client: FlaskClient) -> None:
    page = get(client, "/").decode()
    modules = imported(STATIC, "counter.js")
    assert {"board.js", "outbox.js", "standing.js", "changes.js"} <= set(modules)
    for module in modules:
        assert f'<link rel="modulepreload" href="/static/{module}">' in page


def test_a_file_outside_static_is_not_served(client: FlaskClient) -> None:
    assert client.get("/static/../counter/config.py").status_code == 404

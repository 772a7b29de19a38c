"""Production settings: a real key (rotatable without emptying browsers), known hosts only,
and nothing personal left in a cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from counter import create_app
from counter.storage.models import db
from counter.web.browser import SESSION_DEVICE

from helpers import api_start

GOOD_KEY = "f" * 64
OLD_KEY = "o" * 64


@pytest.fixture
def environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """A production environment that starts; each test spoils one part of it."""
    for name in ("SECRET_KEY", "SECRET_KEY_FILE", "SECRET_KEY_FALLBACKS"):
        for variable in (name, f"FLASK_{name}", f"SANTASE_{name}"):
            monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("SANTASE_SECRET_KEY", GOOD_KEY)
    monkeypatch.setenv("SANTASE_TRUSTED_HOSTS", "santase.example.org")
    monkeypatch.setenv("SANTASE_DATABASE_URL", f"sqlite:///{tmp_path / 'p.sqlite'}")
    return monkeypatch


def test_production_starts_with_a_real_key_and_a_host(environment: pytest.MonkeyPatch) -> None:
    app = create_app(production=True)
    assert app.config["SECRET_KEY"] == GOOD_KEY
    assert app.config["TRUSTED_HOSTS"] == ["santase.example.org"]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("SECRET_KEY", None, "SECRET_KEY is not set"),
        ("SECRET_KEY", "change-me", "placeholder"),
        ("SECRET_KEY", "dev", "placeholder"),
        ("SECRET_KEY", "x", "1 bytes long; production needs at least 32"),
        ("SECRET_KEY", "k" * 31, "31 bytes long"),
        ("SECRET_KEY_FALLBACKS", "short", "SECRET_KEY_FALLBACKS is 5 bytes long"),
        ("TRUSTED_HOSTS", None, "TRUSTED_HOSTS is not set"),
    ],
)
def test_production_refuses_to_start_with_a_weak_setting(
    environment: pytest.MonkeyPatch, variable: str, value: str | None, message: str
) -> None:
    if value is None:
        environment.delenv(f"SANTASE_{variable}", raising=False)
    else:
        environment.setenv(f"SANTASE_{variable}", value)
    with pytest.raises(RuntimeError, match=message):
        create_app(production=True)


@pytest.mark.parametrize(("content", "message"), [("dev\n", "placeholder"), ("", "placeholder")])
def test_production_refuses_a_weak_key_file(
    environment: pytest.MonkeyPatch, tmp_path: Path, content: str, message: str
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(content)
    environment.delenv("SANTASE_SECRET_KEY")
    environment.setenv("SANTASE_SECRET_KEY_FILE", str(key_file))
    with pytest.raises(RuntimeError, match=message):
        create_app(production=True)


def test_production_reads_the_key_from_a_file(
    environment: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(GOOD_KEY + "\n")
    environment.delenv("SANTASE_SECRET_KEY")
    environment.setenv("SANTASE_SECRET_KEY_FILE", str(key_file))
    assert create_app(production=True).config["SECRET_KEY"] == GOOD_KEY


@pytest.mark.parametrize("content", ["", "dev"])
def test_the_local_key_file_is_never_empty_or_a_placeholder(tmp_path: Path, content: str) -> None:
    """An empty key file is replaced by a new key; a placeholder one is refused, even locally."""
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "secret_key").write_text(content)
    settings = {"SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'l.sqlite'}"}
    if content:
        with pytest.raises(RuntimeError, match="placeholder"):
            Flask_with_instance(instance, settings)
    else:
        key = Flask_with_instance(instance, settings).config["SECRET_KEY"]
        assert len(key) == 64


def Flask_with_instance(instance: Path, settings: dict[str, object]) -> Flask:  # noqa: N802
    from counter.config import secret_key

    app = Flask("probe", instance_path=str(instance))
    app.config["SECRET_KEY"] = secret_key(None, instance)
    app.config.update(settings)
    return app


MADE: list[Flask] = []


def app_with(migrated_database: str, **settings: object) -> Flask:
    """An app on the test database; closed after the test (see close_the_apps)."""
    made = create_app(
        {
            "SECRET_KEY": GOOD_KEY,
            "SQLALCHEMY_DATABASE_URI": migrated_database,
            "AUTO_MIGRATE": False,
            "RATELIMIT_ENABLED": False,
            **settings,
        }
    )
    MADE.append(made)
    return made


@pytest.fixture(autouse=True)
def close_the_apps() -> Iterator[None]:
    yield
    while MADE:
        with MADE.pop().app_context():
            db.engine.dispose()


def test_a_rotated_key_keeps_every_browser_through_the_fallbacks(
    app: Flask, client: FlaskClient
) -> None:
    database = app.config["SQLALCHEMY_DATABASE_URI"]
    match = api_start(client, players=["Ivan", "Maria"])
    cookie = client.get_cookie("session")
    assert cookie is not None
    rotated = app_with(
        database,
        SECRET_KEY="n" * 64,
        SECRET_KEY_FALLBACKS=[app.config["SECRET_KEY"]],
    )
    browser = rotated.test_client()
    browser.set_cookie("session", cookie.value)
    assert browser.get(f"/api/matches/{match['id']}").status_code == 200
    without = app_with(database, SECRET_KEY="n" * 64).test_client()
    without.set_cookie("session", cookie.value)
    assert without.get(f"/api/matches/{match['id']}").status_code == 404


def test_an_unknown_host_is_refused_in_plain_words(migrated_database: str) -> None:
    app = app_with(migrated_database, TRUSTED_HOSTS=["santase.example.org"])
    client = app.test_client()
    refused = client.get("/", headers={"Host": "evil.example.com"})
    assert refused.status_code == 400
    assert refused.mimetype == "text/plain"
    assert client.get("/", headers={"Host": "santase.example.org"}).status_code == 200


def test_links_name_the_trusted_host_behind_a_proxy(migrated_database: str) -> None:
    app = app_with(migrated_database, TRUSTED_HOSTS=["santase.example.org"], TRUSTED_PROXIES=1)
    client = app.test_client()
    forged = {"Host": "santase.example.org", "X-Forwarded-Host": "evil.example.com"}
    assert client.get("/", headers=forged).status_code == 400
    honest = {
        "Host": "santase.example.org",
        "X-Forwarded-Proto": "https",
        "Referer": "https://santase.example.org/matches",  # Flask-WTF checks it on HTTPS
    }
    page = client.get("/", headers=honest).get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    made = client.post("/device-link", data={"csrf_token": token}, headers=honest)
    assert "https://santase.example.org/continue/" in made.get_data(as_text=True)


def test_a_host_name_in_capitals_is_the_trusted_one(app: Flask) -> None:
    hosted = app_with(app.config["SQLALCHEMY_DATABASE_URI"], TRUSTED_HOSTS=["Santase.example.org"])
    client = hosted.test_client()
    assert client.get("/", headers={"Host": "SANTASE.Example.org"}).status_code == 200
    assert client.get("/", headers={"Host": "santase.example.org"}).status_code == 200


@pytest.mark.parametrize(
    ("proxies", "reached", "headers", "link"),
    [
        # Reached directly: the port the server listens on, whatever the Host says.
        (
            0,
            "http://santase.example.org",
            {"Host": "santase.example.org:8443"},
            "http://santase.example.org/",
        ),
        (0, "http://santase.example.org:5000", {}, "http://santase.example.org:5000/"),
        # Behind a proxy: the port it says (X-Forwarded-Port), else the scheme's own.
        (
            1,
            "http://127.0.0.1:8000",
            {"X-Forwarded-Host": "santase.example.org:9999"},
            "https://santase.example.org/",
        ),
        (
            1,
            "http://127.0.0.1:8000",
            {"X-Forwarded-Host": "santase.example.org:9999", "X-Forwarded-Port": "8443"},
            "https://santase.example.org:8443/",
        ),
    ],
)
def test_a_link_carries_only_the_port_the_site_was_reached_on(
    app: Flask, proxies: int, reached: str, headers: dict[str, str], link: str
) -> None:
    hosted = app_with(  # the test's own database: a device link writes
        app.config["SQLALCHEMY_DATABASE_URI"],
        TRUSTED_HOSTS=["santase.example.org"],
        TRUSTED_PROXIES=proxies,
    )
    client = hosted.test_client()
    if proxies:
        headers = {**headers, "X-Forwarded-Proto": "https", "Referer": link}
    page = client.get("/", base_url=reached, headers=headers).get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    made = client.post(
        "/device-link", base_url=reached, data={"csrf_token": token}, headers=headers
    )
    assert f'href="{link}continue/' in made.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/", "/matches", "/export.csv", "/export.json", "/api/export"])
def test_personal_answers_are_never_cached(client: FlaskClient, path: str) -> None:
    api_start(client)
    assert client.get(path).headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("path", ["/robots.txt", "/api/openapi.yaml", "/static/counter.js"])
def test_public_pages_may_be_cached(client: FlaskClient, path: str) -> None:
    assert client.get(path).headers.get("Cache-Control") != "no-store"


def test_the_session_holds_only_the_device_token(client: FlaskClient) -> None:
    api_start(client)
    with client.session_transaction() as session:
        assert set(session) <= {SESSION_DEVICE, "csrf_token", "_permanent", "_flashes"}

"""Security properties: CSRF, same-origin API calls, headers, cookies, secrets, read-only GETs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, update

from counter import create_app
from counter.services.devices import SEEN_EVERY
from counter.storage.models import Device, db, utcnow

from apps import make_app
from helpers import api_play, api_start, page_form, tap


def test_a_form_without_its_csrf_token_is_refused_and_records_nothing(
    client: FlaskClient,
) -> None:
    form = page_form(client)
    del form["csrf_token"]
    response = client.post("/deals", data={**form, "player": "1", "outcome": "normal"})
    assert response.status_code == 400
    assert "did not come from this site" in response.get_data(as_text=True)
    assert client.get("/api/matches").json["matches"] == []


def test_a_csrf_token_from_another_browser_is_refused(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    form = {**page_form(other_client), "player": "1", "outcome": "normal"}
    client.get("/")
    assert client.post("/deals", data=form).status_code == 400


@pytest.mark.parametrize("path", ["/undo", "/settings", "/new"])
def test_every_form_needs_its_token(client: FlaskClient, path: str) -> None:
    tap(client, 1, "normal")
    match = client.get("/api/matches/current").json
    response = client.post(path, data={"match_id": str(match["id"]), "target": "15"})
    assert response.status_code == 400
    assert client.get("/api/matches/current").json == match


def test_the_api_refuses_a_request_from_another_site(client: FlaskClient) -> None:
    response = client.post("/api/matches", json={}, headers={"Origin": "https://evil.example"})
    assert response.status_code == 403
    assert response.json == {"error": "Requests from other sites are not accepted."}
    assert client.get("/api/matches").json["matches"] == []


def test_the_api_accepts_its_own_origin(client: FlaskClient) -> None:
    response = client.post("/api/matches", json={}, headers={"Origin": "http://localhost"})
    assert response.status_code == 201


@pytest.mark.parametrize("path", ["/", "/matches", "/rules", "/api/matches", "/nowhere"])
def test_every_response_carries_the_security_headers(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    policy = headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"


def test_the_session_cookie_is_secure_over_https(app: Flask) -> None:
    client = app.test_client()
    response = client.post("/api/matches", json={}, base_url="https://localhost")
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert response.headers["Strict-Transport-Security"].startswith("max-age=")


def test_the_session_cookie_is_not_marked_secure_over_plain_http(client: FlaskClient) -> None:
    response = client.post("/api/matches", json={})
    assert "Secure" not in response.headers["Set-Cookie"]


def test_a_session_cookie_is_sent_again_for_another_year_when_its_device_is_back(
    app: Flask, client: FlaskClient
) -> None:
    client.post("/api/matches", json={})
    with app.app_context():
        away = update(Device).values(seen_at=utcnow() - SEEN_EVERY - timedelta(seconds=1))
        db.session.execute(away)
        db.session.commit()
    again = client.get("/api/matches/current")
    assert again.status_code == 200
    assert "Expires=" in again.headers["Set-Cookie"]


def test_an_answer_that_changes_nothing_sends_no_cookie(client: FlaskClient) -> None:
    """Nor can an answer to a request sent before "Forget other devices" bring back the
    cookie it came with (tests/integration/test_copied_cookie.py)."""
    client.post("/api/matches", json={})
    client.get("/")
    assert "Set-Cookie" not in client.get("/api/matches/current").headers
    assert "Set-Cookie" not in client.get("/").headers


def test_a_session_cookie_checked_before_is_refused_once_it_is_over_a_year_old(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    client.post("/api/matches", json={})
    assert client.get("/api/matches/current").status_code == 200  # its cookie checked
    later = time.time() + 366 * 24 * 3600
    monkeypatch.setattr(time, "time", lambda: later)
    assert client.get("/api/matches/current").status_code == 404  # no device: no match


def test_a_changed_session_cookie_is_not_taken_for_the_one_checked_before(
    app: Flask, client: FlaskClient
) -> None:
    client.post("/api/matches", json={})
    cookie = client.get_cookie("session")
    assert cookie is not None
    assert client.get("/api/matches/current").status_code == 200
    stranger = app.test_client()
    stranger.set_cookie(
        "session", cookie.value[:-2] + ("AA" if cookie.value[-2:] != "AA" else "BB")
    )
    assert stranger.get("/api/matches/current").status_code == 404


def test_a_page_left_open_keeps_a_csrf_token_that_its_forms_accept(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    first = page_form(client)
    page_form(client)  # a later page of the same browser, on another phone of the table
    assert page_form(other_client)["csrf_token"] != first["csrf_token"]
    fields = {**first, "player": "1", "outcome": "normal"}
    assert client.post("/deals", data=fields).status_code == 302


def test_behind_a_trusted_proxy_https_is_recognised(migrated_database: str) -> None:
    app = create_app(
        {
            "SECRET_KEY": "k" * 32,
            "SQLALCHEMY_DATABASE_URI": migrated_database,
            "AUTO_MIGRATE": False,
            "TRUSTED_PROXIES": 1,
        }
    )
    response = app.test_client().get("/", headers={"X-Forwarded-Proto": "https"})
    with app.app_context():
        db.engine.dispose()
    assert "Secure" in response.headers["Set-Cookie"]


def test_health_answers_ok_when_the_database_does(client: FlaskClient) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "database": "ok", "rate_limits": "off"}


def test_health_names_memory_as_where_the_quick_start_counts_limits(app: Flask) -> None:
    limited = make_app(app.config["SQLALCHEMY_DATABASE_URI"], RATELIMIT_ENABLED=True)
    response = limited.test_client().get("/health")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "database": "ok", "rate_limits": "memory"}
    with limited.app_context():
        db.engine.dispose()


def test_health_answers_503_when_the_database_does_not(tmp_path: Path) -> None:
    app = create_app(
        {
            "SECRET_KEY": "k" * 32,
            "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path}/missing/folder/x.sqlite",
            "AUTO_MIGRATE": False,
        }
    )
    response = app.test_client().get("/health")
    assert response.status_code == 503
    assert response.json == {
        "status": "unavailable",
        "database": "not answering",
        "rate_limits": "memory",
    }


@pytest.fixture
def writes(app: Flask) -> Iterator[list[str]]:
    """Every INSERT, UPDATE or DELETE the app sends while the test runs."""
    seen: list[str] = []

    def spy(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().split(" ", 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}:
            seen.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", spy)
    yield seen
    event.remove(engine, "before_cursor_execute", spy)


def test_no_get_request_writes_to_the_database(
    client: FlaskClient, other_client: FlaskClient, writes: list[str]
) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    writes.clear()
    paths = [
        "/",
        "/matches",
        "/matches?page=1",
        f"/matches/{match['id']}",
        "/rules",
        "/health",
        "/api/matches",
        "/api/matches/current",
        f"/api/matches/{match['id']}",
        "/api/openapi.yaml",
        "/robots.txt",
    ]
    for browser in (client, other_client):  # a known browser and a crawler
        for path in paths:
            assert browser.get(path).status_code < 500
    assert writes == []

"""Thousands of malformed and hostile requests: none is a 5xx, and every refused one
leaves the stored matches exactly as they were."""

from __future__ import annotations

import os
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from counter.storage.models import db

from helpers import api_play, api_start, page_form, win_match

pytestmark = pytest.mark.slow  # hundreds of requests per test

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "700"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=50)
    | st.sampled_from(
        [
            "normal",
            "schwarz",
            "wrong_claim",
            "1",
            "<script>",
            "' OR 1=1 --",
            "\x00",
            "\uff4e\uff4f\uff52\uff4d\uff41\uff4c",
        ]
    ),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=8,
)
fields = st.sampled_from(
    ["player", "outcome", "request_id", "target", "players", "rules", "first_dealer"]
) | st.text(max_size=12)
bodies = st.dictionaries(fields, json_values, max_size=5) | json_values
ids = st.sampled_from(["1", "2", "3", "0", "-1", "999", "2147483648", "1e3", "%00", "ab"])
content_types = st.sampled_from(
    ["application/json", "application/json; charset=utf-8", "text/plain", "", "multipart/form-data"]
)


def snapshot(app: Flask) -> tuple[list[Any], list[Any]]:
    with app.app_context():
        matches = db.session.execute(text("SELECT * FROM match ORDER BY id")).all()
        deals = db.session.execute(text("SELECT * FROM deal ORDER BY id")).all()
        db.session.rollback()
    return [tuple(row) for row in matches], [tuple(row) for row in deals]


@pytest.fixture
def played(client: FlaskClient) -> FlaskClient:
    """A browser with a finished match and an open one with deals in it."""
    finished = api_start(client, target=7, players=["Иван", "Мария"])
    win_match(client, finished["id"], player=2, target=7)
    api_play(client, api_start(client)["id"], (1, "normal"), (2, "schneider"))
    return client


def check(app: Flask, response: Any, before: tuple[list[Any], list[Any]]) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code >= 400:
        assert snapshot(app) == before, f"a refused request ({response.status_code}) changed data"


@FUZZ
@given(
    method=st.sampled_from(["post", "patch", "delete", "put"]),
    path=st.sampled_from(
        [
            "/api/matches",
            "/api/matches/{id}",
            "/api/matches/{id}/deals",
            "/api/matches/{id}/deals/last",
        ]
    ),
    match_id=ids,
    body=bodies,
    content_type=content_types,
)
def test_hostile_api_writes_never_fail_the_server(
    app: Flask,
    played: FlaskClient,
    method: str,
    path: str,
    match_id: str,
    body: Any,
    content_type: str,
) -> None:
    import json

    before = snapshot(app)
    response = getattr(played, method)(
        path.format(id=match_id), data=json.dumps(body), content_type=content_type
    )
    check(app, response, before)


@FUZZ
@given(raw=st.binary(max_size=200), match_id=ids)
def test_raw_bytes_as_json_never_fail_the_server(
    app: Flask, played: FlaskClient, raw: bytes, match_id: str
) -> None:
    before = snapshot(app)
    response = played.post(
        f"/api/matches/{match_id}/deals", data=raw, content_type="application/json"
    )
    check(app, response, before)


@FUZZ
@given(
    path=st.sampled_from(
        ["/api/matches?page={q}", "/api/matches/{q}", "/matches?page={q}", "/matches/{q}", "/{q}"]
    ),
    query=st.text(max_size=30),
)
def test_hostile_reads_never_fail_the_server(
    app: Flask, played: FlaskClient, path: str, query: str
) -> None:
    before = snapshot(app)
    # "//..." would be read by the test client as another host, not as a path.
    with played.get(path.format(q=query.lstrip("/"))) as response:  # may be a static file
        check(app, response, before)
    assert snapshot(app) == before  # a GET never changes anything


@FUZZ
@given(
    action=st.sampled_from(["/deals", "/undo", "/settings", "/new"]),
    form=st.dictionaries(
        st.sampled_from(
            [
                "match_id",
                "player",
                "outcome",
                "request_id",
                "target",
                "player1",
                "player2",
                "deal_number",
            ]
        ),
        st.text(max_size=45) | ids,
        max_size=6,
    ),
)
def test_hostile_forms_never_fail_the_server(
    app: Flask, played: FlaskClient, action: str, form: dict[str, str]
) -> None:
    token = page_form(played)["csrf_token"]
    before = snapshot(app)
    check(app, played.post(action, data={**form, "csrf_token": token}), before)

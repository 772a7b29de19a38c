"""The OpenAPI file describes the API that is really served, and its answers fit it.

Schemathesis checks the same against a running server (``.ci/schemathesis.sh``);
these tests keep the description honest within pytest: every route described, the
names it refuses refused by the server, and each kind of answer fitting its schema. (The
file itself, its constants and patterns: tests/unit/test_openapi_spec.py.)
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient

from counter.services import sharing

from api_spec import fits, operations
from helpers import api_deal, api_play, api_start, key_of


def owner(client: FlaskClient) -> str:
    return str(key_of(client))


# --- the description itself, and the routes served ----------------------------------------


def test_the_spec_lists_exactly_the_api_routes(app: Flask, spec: dict[str, Any]) -> None:
    served = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods or ()
        if method not in {"HEAD", "OPTIONS"}
    }
    described = {(path, method) for path, method, _operation in operations(spec)}
    assert served == described


def test_the_spec_is_served(client: FlaskClient, spec: dict[str, Any]) -> None:
    response = client.get("/api/openapi.yaml")
    assert response.status_code == 200
    assert yaml.safe_load(response.data) == spec


# --- the names the schema refuses are those the server refuses ---------------------------


@pytest.mark.parametrize(
    ("names", "valid", "accepted"),
    [
        (["Ivan", "Maria"], True, True),
        (["", ""], True, True),  # two defaults
        ([" \t", "\u200b"], True, True),
        (["x" * 40, ""], True, True),
        (["x" * 41, ""], False, False),
        (["Ivan" + " " * 37, ""], False, False),  # too long as sent, whatever tidying makes of it
        (["Ivan", "Ivan"], False, False),
        (["a\x07", "b"], False, False),
        (["a\ue000", "b"], False, False),
        (["a\U0010fffe", "b"], False, False),
        (["a\U000e0000", "b"], True, True),  # unknown to this Python, maybe not to the phones
        # What the schema cannot say, and its description does:
        (["Ivan", "IVAN"], True, False),
        (["\u0958" * 40, ""], True, False),  # NFC writes each as two
    ],
)
def test_names_are_refused_where_the_schema_says(
    client: FlaskClient, spec: dict[str, Any], names: list[str], valid: bool, accepted: bool
) -> None:
    assert (fits(spec, "NewMatch", {"players": names}) == []) is valid
    response = client.post("/api/matches", json={"players": names})
    assert response.status_code == (201 if accepted else 422), response.json


# --- answers fit their schemas -----------------------------------------------------------


def test_matches_fit_the_match_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    match = api_start(client, target=7, players=["Иван", "Мария"], preset="sixty_six")
    assert fits(spec, "Match", match) == []
    api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    tie = client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    assert tie.status_code == 201
    client.patch(f"/api/matches/{match['id']}/deals/1", json={"outcome": "schneider"})
    played = api_play(client, match["id"], (1, "schwarz"), (1, "schwarz"))
    assert played["finished"]
    assert fits(spec, "Match", played) == []
    assert fits(spec, "Match", {**played, "extra": 1}) != []


def test_summary_pages_fit_the_page_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    api_play(client, api_start(client)["id"], (2, "wrong_claim"))
    api_start(client)
    assert fits(spec, "MatchPage", client.get("/api/matches").json) == []


def test_a_new_match_answers_with_its_location(client: FlaskClient, spec: dict[str, Any]) -> None:
    response = client.post("/api/matches", json={"uid": "a" * 32})
    pattern = spec["components"]["headers"]["Location"]["schema"]["pattern"]
    assert re.match(pattern, response.headers["Location"])
    again = client.post("/api/matches", json={"uid": "a" * 32})
    assert again.status_code == 200
    assert again.json == response.json


def test_a_deleted_match_answers_204_and_nothing(client: FlaskClient) -> None:
    match = api_start(client)
    response = client.delete(f"/api/matches/{match['id']}")
    assert response.status_code == 204
    assert response.data == b""
    assert "Content-Type" not in response.headers
    assert client.get(f"/api/matches/{match['id']}").status_code == 404


def test_a_resumed_match_fits_and_a_finished_one_is_409(
    client: FlaskClient, spec: dict[str, Any]
) -> None:
    first = api_start(client, target=7)
    api_start(client)
    resumed = client.post(f"/api/matches/{first['id']}/resume")
    assert resumed.status_code == 200
    assert fits(spec, "Match", resumed.json) == []
    assert client.get("/api/matches/current").json["id"] == first["id"]
    api_play(client, first["id"], (1, "schwarz"), (1, "schwarz"), (1, "normal"))
    refused = client.post(f"/api/matches/{first['id']}/resume")
    assert refused.status_code == 409
    assert fits(spec, "Error", refused.json) == []


def test_shared_matches_fit_the_shared_schema(
    app: Flask, client: FlaskClient, other_client: FlaskClient, spec: dict[str, Any]
) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"), (2, "schneider"))
    with app.app_context():
        token = sharing.share_match(owner=owner(client), match_id=match["id"])
    assert re.match(
        spec["paths"]["/api/shared/{token}"]["get"]["parameters"][0]["schema"]["pattern"], token
    )
    shared = other_client.get(f"/api/shared/{token}").json
    assert fits(spec, "SharedMatch", shared) == []
    assert fits(spec, "SharedMatch", match) != []  # the full match says more


def test_exports_fit_and_import_elsewhere(
    client: FlaskClient, other_client: FlaskClient, spec: dict[str, Any]
) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "failed_close"), (2, "normal"))
    client.patch(f"/api/matches/{match['id']}", json={"rules": {"failed_close": "always_3"}})
    api_play(client, match["id"], (1, "failed_close"))
    exported = client.get("/api/export").json
    assert fits(spec, "Export", exported) == []
    assert fits(spec, "ImportDocument", exported) == []
    assert "rules" in exported["matches"][0]["deals"][0]  # recorded under the rules of before
    imported = other_client.post("/api/import", json=exported)
    assert imported.status_code == 201
    assert fits(spec, "ImportReport", imported.json) == []
    assert imported.json == {"new": [match["uid"]], "present": []}
    again = other_client.post("/api/import?dry_run=true", json=exported)
    assert again.json == {"new": [], "present": [match["uid"]]}
    padded = {**exported, "comment": "mine"}
    assert fits(spec, "ImportDocument", padded) != []
    assert other_client.post("/api/import", json=padded).status_code == 422


def test_errors_fit_the_error_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    match = api_start(client)
    answers = [
        api_deal(client, match["id"], 5, "normal"),
        client.get("/api/matches?page=x"),
        client.get("/api/matches/999"),
        client.put("/api/matches"),
        client.post("/api/matches", data="x", content_type="text/plain"),
        client.post("/api/matches", json={"players": None}),
    ]
    assert [answer.status_code for answer in answers] == [422, 400, 404, 405, 415, 422]
    for answer in answers:
        assert fits(spec, "Error", answer.json) == []


# --- methods -------------------------------------------------------------------------------


def _served_path(path: str, match_id: int) -> str:
    return path.format(match_id=match_id, number=1, token="x" * 22)


def test_each_address_allows_exactly_the_methods_described(
    client: FlaskClient, spec: dict[str, Any]
) -> None:
    match = api_start(client)
    for path, item in spec["paths"].items():
        described = {method.upper() for method in item if method != "parameters"}
        if "GET" in described:
            described.add("HEAD")
        response = client.options(_served_path(path, match["id"]))
        assert set(response.headers["Allow"].split(", ")) == described | {"OPTIONS"}, path
        refused = client.open(_served_path(path, match["id"]), method="TRACE")
        assert refused.status_code == 405
        assert refused.headers["Allow"] == response.headers["Allow"]


@pytest.mark.parametrize("match_id", ["0", "2147483648", "9999999999"])
@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE", "PUT"])
def test_an_id_outside_the_range_is_nothing_whatever_the_method(
    client: FlaskClient, match_id: str, method: str
) -> None:
    api_start(client)
    for path in (f"/api/matches/{match_id}", f"/api/matches/1/deals/{match_id}"):
        response = client.open(path, method=method)
        assert response.status_code == 404, path
        assert "Allow" not in response.headers

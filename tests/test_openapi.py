"""The OpenAPI file describes the API that is really served, and its answers fit it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from helpers import api_deal, api_play, api_start

SPEC_PATH = Path(__file__).parents[1] / "counter" / "openapi.yaml"


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return yaml.safe_load(SPEC_PATH.read_text())  # type: ignore[no-any-return]


def fits(spec: dict[str, Any], schema: str, body: object) -> list[str]:
    """Why ``body`` does not fit ``#/components/schemas/<schema>``; empty when it does."""
    validator = Draft202012Validator({**spec, "$ref": f"#/components/schemas/{schema}"})
    return [error.message for error in validator.iter_errors(body)]


def test_the_spec_is_valid_openapi(spec: dict[str, Any]) -> None:
    validate(spec)


def test_the_spec_lists_exactly_the_api_routes(app: Flask, spec: dict[str, Any]) -> None:
    served = {
        (re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/")
        for method in rule.methods or ()
        if method not in {"HEAD", "OPTIONS"}
    }
    described = {
        (path, method)
        for path, operations in spec["paths"].items()
        for method in operations
        if method != "parameters"
    }
    assert served == described


def test_the_spec_is_served(client: FlaskClient, spec: dict[str, Any]) -> None:
    response = client.get("/api/openapi.yaml")
    assert response.status_code == 200
    assert yaml.safe_load(response.data) == spec


def test_matches_fit_the_match_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    match = api_start(client, target=7, players=["Иван", "Мария"])
    assert fits(spec, "Match", match) == []
    played = api_play(client, match["id"], (1, "schwarz"), (1, "schwarz"), (1, "normal"))
    assert played["finished"]
    assert fits(spec, "Match", played) == []


def test_pages_fit_the_page_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    api_play(client, api_start(client)["id"], (2, "wrong_claim"))
    api_start(client)
    assert fits(spec, "MatchPage", client.get("/api/matches").json) == []


def test_errors_fit_the_error_schema(client: FlaskClient, spec: dict[str, Any]) -> None:
    match = api_start(client)
    assert fits(spec, "Error", api_deal(client, match["id"], 5, "normal").json) == []


def test_the_schemas_catch_a_wrong_shape(spec: dict[str, Any]) -> None:
    assert fits(spec, "Match", {"id": 1}) != []

"""The OpenAPI file of the API (counter/web/openapi.yaml), read as the tests read it: whether a
body fits one of its schemas, and its operations one by one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

SPEC_PATH = Path(__file__).parents[1] / "counter" / "web" / "openapi.yaml"


def read_spec() -> dict[str, Any]:
    return yaml.safe_load(SPEC_PATH.read_text())  # type: ignore[no-any-return]


def fits(spec: dict[str, Any], schema: str, body: object) -> list[str]:
    """Why ``body`` does not fit ``#/components/schemas/<schema>``; empty when it does."""
    validator = Draft202012Validator({**spec, "$ref": f"#/components/schemas/{schema}"})
    return [error.message for error in validator.iter_errors(body)]


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
    ]

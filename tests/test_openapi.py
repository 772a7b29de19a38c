"""The OpenAPI file describes the API that is really served, and its answers fit it.

Schemathesis checks the same against a running server (``.ci/schemathesis.sh``);
these tests keep the description honest within pytest: every route described, the
patterns the same as the server's own checks, and each kind of answer fitting its schema.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from counter.game import parsing
from counter.game.names import NAME_MAX_LENGTH, parse_name
from counter.game.parsing import request_id as parse_request_id
from counter.game.refusals import Refusal
from counter.game.scoring import (
    MAX_DEALS_PER_MATCH,
    PRESETS,
    SEATS,
    TARGETS,
    HouseRules,
    NextDealer,
    Outcome,
)
from counter.services import archive, matches, sharing
from counter.storage.models import MAX_ID
from counter.storage.timestamps import iso_utc

from helpers import api_deal, api_play, api_start, key_of

SPEC_PATH = Path(__file__).parents[1] / "counter" / "web" / "openapi.yaml"
WRITES = {"post", "patch", "delete"}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
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


def owner(client: FlaskClient) -> str:
    return str(key_of(client))


# --- the description itself -------------------------------------------------------------


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
    described = {(path, method) for path, method, _operation in operations(spec)}
    assert served == described


def test_the_spec_is_served(client: FlaskClient, spec: dict[str, Any]) -> None:
    response = client.get("/api/openapi.yaml")
    assert response.status_code == 200
    assert yaml.safe_load(response.data) == spec


def test_every_operation_declares_the_statuses_it_can_answer(spec: dict[str, Any]) -> None:
    for path, method, operation in operations(spec):
        statuses = set(operation["responses"])
        if method in WRITES:  # the origin check, the rate limits, the write lock
            assert {"403", "429", "503"} <= statuses, (method, path)
        if "requestBody" in operation:
            assert {"400", "413", "415", "422"} <= statuses, (method, path)
        if "{match_id}" in path:
            assert "404" in statuses, (method, path)


def test_limited_and_busy_answers_say_when_to_try_again(spec: dict[str, Any]) -> None:
    for name in ("TooManyRequests", "Busy"):
        headers = spec["components"]["responses"][name]["headers"]
        assert headers["Retry-After"] == {"$ref": "#/components/headers/RetryAfter"}
    assert spec["components"]["headers"]["RetryAfter"]["required"] is True


# --- the numbers and names the code defines are the spec's ---------------------------------


def at(spec: dict[str, Any], pointer: str) -> Any:
    """The value at ``pointer`` ("components/schemas/Target/enum", a JSON pointer) in the spec."""
    value: Any = spec
    for key in pointer.replace("~1", "\0").split("/"):
        key = key.replace("\0", "/")
        value = value[int(key)] if isinstance(value, list) else value[key]
    return value


def mirrored_constants() -> list[tuple[str, object]]:
    """Each place in the spec that states a constant of the code, and that constant."""
    schemas = "components/schemas"
    switches = [
        (f"{schemas}/HouseRules/properties/{switch.name}/enum", [c.value for c in switch.kind])
        for switch in HouseRules.switches()
    ]
    most_points = max(
        rules.points(outcome)
        for choices in itertools.product(*(list(switch.kind) for switch in HouseRules.switches()))
        for rules in [HouseRules(*choices)]
        for outcome in rules.outcomes
    )
    names = [
        f"{schemas}/Name/maxLength",
        f"{schemas}/Player/properties/name/maxLength",
        f"{schemas}/SharedMatch/properties/players/items/properties/name/maxLength",
        f"{schemas}/Export/properties/matches/items/properties/players/items/maxLength",
    ]
    deals_per_match = [
        f"{schemas}/ImportedMatch/properties/deals/maxItems",
        f"{schemas}/ImportedDealFields/properties/number/maximum",
        f"{schemas}/Match/allOf/1/properties/deals/maxItems",
        f"{schemas}/MatchSummary/allOf/1/properties/deal_count/maximum",
        f"{schemas}/SharedMatch/properties/deals/maxItems",
        f"{schemas}/Export/properties/matches/items/properties/deals/maxItems",
    ]
    points = [
        f"{schemas}/Deal/properties/points/maximum",
        f"{schemas}/Table/properties/points/additionalProperties/maximum",
        f"{schemas}/SharedMatch/properties/deals/items/properties/points/maximum",
        f"{schemas}/Export/properties/matches/items/properties/deals/items/properties/points/maximum",
    ]
    return [
        *switches,
        (f"{schemas}/Table/properties/next_dealer/enum", [c.value for c in NextDealer]),
        (f"{schemas}/Preset/enum", list(PRESETS)),
        (f"{schemas}/Outcome/enum", [outcome.value for outcome in Outcome]),
        (f"{schemas}/WonOutcome/enum", [o.value for o in Outcome if o is not Outcome.TIE]),
        (f"{schemas}/Target/enum", list(TARGETS)),
        (f"{schemas}/Seat/enum", list(SEATS)),
        *((pointer, NAME_MAX_LENGTH) for pointer in names),
        (f"{schemas}/RequestId/maxLength", parsing.REQUEST_ID_MAX_LENGTH),
        (f"{schemas}/Deal/properties/request_id/oneOf/0/maxLength", parsing.REQUEST_ID_MAX_LENGTH),
        (f"{schemas}/Uid/pattern", f"^{parsing.UID_PATTERN}$"),
        (f"{schemas}/FileTime/maxLength", parsing.TIMESTAMP_MAX_LENGTH),
        (f"{schemas}/FileTime/pattern", f"^{parsing.TIMESTAMP_PATTERN}$"),
        (f"{schemas}/Id/maximum", MAX_ID),
        (f"{schemas}/QueryNumber/maximum", 10**parsing.NUMBER_MAX_DIGITS - 1),
        (f"{schemas}/ImportDocument/properties/version/enum", list(archive.READS)),
        (f"{schemas}/ImportDocument/properties/matches/maxItems", archive.MAX_MATCHES),
        *((pointer, MAX_DEALS_PER_MATCH) for pointer in deals_per_match),
        *((pointer, most_points) for pointer in points),
        (f"{schemas}/MatchPage/properties/matches/maxItems", matches.PAGE_SIZE),
        ("paths/~1api~1import/post/parameters/0/schema/enum", list(parsing.DRY_RUN)),
    ]


@pytest.mark.parametrize(("pointer", "constant"), mirrored_constants())
def test_the_spec_states_the_constants_of_the_code(
    spec: dict[str, Any], pointer: str, constant: object
) -> None:
    stated = at(spec, pointer)
    if isinstance(constant, list):  # the same choices; their order in the spec is free
        assert sorted(map(str, stated)) == sorted(map(str, constant)), pointer
    else:
        assert stated == constant, pointer


def test_the_timestamp_pattern_is_what_answers_write(spec: dict[str, Any]) -> None:
    written = iso_utc(datetime(2026, 11, 30, 15, 7, 42, 123456))
    assert written is not None
    assert re.fullmatch(at(spec, "components/schemas/Timestamp/pattern"), written)


# --- the patterns say what the server checks ---------------------------------------------


FILE_TIMES = [
    "2026-01-02T10:00:00Z",  # as an export writes it
    "2026-01-02",
    "2026-01-02T10:00",
    "2026-01-02T10:00:00.123456+02:00",
    "2000-01-01T00:00:00Z",
    "2099-12-31T23:59:59Z",
    "",
    "1999-12-31T23:59:59Z",
    "2100-01-01T00:00:00Z",
    "2026-01-02 10:00:00",  # Python reads these: no file of the counter writes them
    "20260102T100000",
    "2026-W01-1",
    "2026-01-02T10",
    "2026-01-02T10:00:00+0200",
    "2026-01-02T10:00:00.1234567Z",
]


@pytest.mark.parametrize("written", FILE_TIMES)
def test_a_time_in_an_import_fits_the_spec_exactly_when_the_server_takes_it(
    spec: dict[str, Any], written: str
) -> None:
    try:
        parsing.timestamp(written)
    except Refusal:
        taken = False
    else:
        taken = True
    assert (fits(spec, "FileTime", written) == []) == taken


def _code_points_to_try() -> list[int]:
    """The whole Basic Multilingual Plane, and beyond it each change of category."""
    points = list(range(0x10000))
    previous = unicodedata.category(chr(0xFFFF))
    for code in range(0x10000, 0x110000):
        category = unicodedata.category(chr(code))
        if category != previous or (code & 0xFFFE) == 0xFFFE:
            points += [code - 1, code]
        previous = category
    return sorted({code for code in points if not 0xD800 <= code <= 0xDFFF})


def _accepts_name(name: str) -> bool:
    try:
        parse_name(name, 1)
    except Refusal:
        return False
    return True


def _is_blank(name: str) -> bool:
    try:
        return parse_name(name, 1, default="\0blank") == "\0blank"
    except Refusal:
        return False


def test_the_name_pattern_is_what_the_server_accepts(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    name, blank = (
        re.compile(schemas["Name"]["pattern"]),
        re.compile(schemas["BlankName"]["pattern"]),
    )
    for code in _code_points_to_try():
        char = chr(code)
        drift = f"U+{code:04X}: counter/game/names.py and the {{}} pattern of the OpenAPI file"
        assert bool(name.fullmatch(f"a{char}")) == _accepts_name(f"a{char}"), drift.format("Name")
        assert bool(blank.fullmatch(char)) == _is_blank(char), drift.format("BlankName")


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


def test_the_request_id_pattern_is_what_the_server_accepts(spec: dict[str, Any]) -> None:
    pattern = re.compile(spec["components"]["schemas"]["RequestId"]["pattern"])
    for code in _code_points_to_try():
        try:
            parse_request_id(f"tap-{chr(code)}")
        except Refusal:
            accepted = False
        else:
            accepted = True
        assert bool(pattern.fullmatch(f"tap-{chr(code)}")) == accepted, (
            f"U+{code:04X}: parse_request_id and the RequestId pattern in counter/web/openapi.yaml"
        )


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


def test_the_schemas_catch_a_wrong_shape(spec: dict[str, Any]) -> None:
    assert fits(spec, "Match", {"id": 1}) != []
    assert fits(spec, "NewMatch", {"players": None}) != []
    assert fits(spec, "NewDeal", {"player": 1, "outcome": "tie"}) != []
    assert fits(spec, "NewDeal", {"outcome": "normal"}) != []
    assert fits(spec, "NewDeal", {"outcome": "tie", "player": None}) == []
    assert fits(spec, "DealCorrection", {}) != []


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

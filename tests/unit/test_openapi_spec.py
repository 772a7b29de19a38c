"""The OpenAPI file itself: valid OpenAPI, with the statuses each operation can answer, the
constants of the code, and patterns that accept what the server's own checks accept. (The
API served, against the file: tests/integration/test_openapi.py.)
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from datetime import datetime
from typing import Any

import pytest
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
from counter.services import archive, matches
from counter.storage.models import MAX_ID
from counter.storage.timestamps import iso_utc

from api_spec import fits, operations

WRITES = {"post", "patch", "delete"}


# --- the description itself -------------------------------------------------------------


def test_the_spec_is_valid_openapi(spec: dict[str, Any]) -> None:
    validate(spec)


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


# --- the schemas ---------------------------------------------------------------------------


def test_the_schemas_catch_a_wrong_shape(spec: dict[str, Any]) -> None:
    assert fits(spec, "Match", {"id": 1}) != []
    assert fits(spec, "NewMatch", {"players": None}) != []
    assert fits(spec, "NewDeal", {"player": 1, "outcome": "tie"}) != []
    assert fits(spec, "NewDeal", {"outcome": "normal"}) != []
    assert fits(spec, "NewDeal", {"outcome": "tie", "player": None}) == []
    assert fits(spec, "DealCorrection", {}) != []


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

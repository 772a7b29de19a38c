"""What a request sends, read into the typed values the services take, or refused with why."""

import contextlib
import dataclasses
import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, TypeGuard, TypeVar, cast

from counter.game.names import DEFAULT_NAMES, parse_names
from counter.game.refusals import N_, Invalid, Malformed, as_sent
from counter.game.scoring import (
    DEFAULT_RULES,
    MAX_DEALS_PER_MATCH,
    PRESETS,
    SEATS,
    TARGETS,
    GameName,
    HouseRules,
    Outcome,
    Preset,
    Seat,
)

UID_PATTERN = "[0-9a-f]{32}"
REQUEST_ID_MAX_LENGTH = 64
REQUEST_ID_PATTERN = f"[ -~]{{1,{REQUEST_ID_MAX_LENGTH}}}"  # printable ASCII
TIMESTAMP_MAX_LENGTH = 40  # the API's maxLength; the pattern matches 32 at most
# ISO 8601 as an export writes it, or less precise; the OpenAPI file's FileTime pattern.
TIMESTAMP_PATTERN = (
    r"20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"  # a date of 2000 to 2099,
    r"(T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]{1,6})?)?"  # perhaps a time
    r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])?)?"  # and Z or an offset
)
EARLIEST, LATEST = datetime(2000, 1, 1), datetime(2100, 1, 1)
NUMBER_MAX_DIGITS = 10
DIGITS = f"[0-9]{{1,{NUMBER_MAX_DIGITS}}}"

T = TypeVar("T")
# House rules as a request changes them: the switches it names and their new choices.
RuleChanges = Mapping[str, StrEnum]


class NotJson(Malformed):
    """A body that does not say it is JSON."""


def whole(value: object) -> TypeGuard[int | float]:
    """A JSON number without a fraction: ``7`` or ``7.0``, never ``true``."""
    if isinstance(value, float):
        return value.is_integer()
    return isinstance(value, int) and not isinstance(value, bool)


def seat(value: object) -> Seat:
    if whole(value) and value in SEATS:
        return 1 if value == 1 else 2  # 1.0 from JSON is seat 1
    raise Invalid(N_("The player must be 1 or 2, not %(value)s."), value=as_sent(value))


def receiver(outcome: Outcome, value: object) -> Seat | None:
    """The seat that receives a deal's points; a tie has none."""
    if outcome is Outcome.TIE and value is None:
        return None
    if value is None or value == "":
        raise Invalid(N_("Say which player receives the points."))
    return seat(value)


def _one_of(value: object, choices: Mapping[str, T], message: str) -> T:
    if isinstance(value, str) and value in choices:
        return choices[value]
    raise Invalid(message, value=as_sent(value), names=", ".join(choices))


def outcome(value: object) -> Outcome:
    named = {each.value: each for each in Outcome}
    return _one_of(value, named, N_("Unknown outcome %(value)s: choose one of %(names)s."))


def target(value: object) -> int:
    if whole(value) and value in TARGETS:
        return int(value)
    raise Invalid(
        N_("The target must be %(targets)s or %(last)s game points, not %(value)s."),
        targets=", ".join(str(target) for target in TARGETS[:-1]),
        last=TARGETS[-1],
        value=as_sent(value),
    )


def game(value: object) -> GameName:
    named = {each.value: each for each in GameName}
    return _one_of(value, named, N_("There is no game %(value)s: choose one of %(names)s."))


def preset(value: object) -> Preset:
    return _one_of(value, PRESETS, N_("There is no preset %(value)s: choose one of %(names)s."))


def rule_changes(value: object) -> RuleChanges:
    """Switches spelled as ``HouseRules.as_dict`` does, each checked."""
    if not isinstance(value, dict):
        raise Invalid(N_("Send the house rules as an object of switches."))
    switches = {switch.name: switch for switch in HouseRules.switches()}
    unknown = sorted(str(name) for name in set(value) - set(switches))
    if unknown:
        raise Invalid(N_("There is no house rule called %(name)s."), name=as_sent(unknown[0]))
    chosen: dict[str, StrEnum] = {}
    for name, choice in value.items():
        kind = switches[name].kind
        if not isinstance(choice, str) or choice not in kind._value2member_map_:
            raise Invalid(
                N_("The house rule %(name)s cannot be %(value)s: choose one of %(choices)s."),
                name=name,
                value=as_sent(choice),
                choices=", ".join(kind),
            )
        chosen[name] = kind(choice)
    return chosen


def house_rules(value: object, base: HouseRules = DEFAULT_RULES) -> HouseRules:
    return changed_rules(base, rule_changes(value))


def changed_rules(base: HouseRules, changes: RuleChanges) -> HouseRules:
    return dataclasses.replace(base, **cast(dict[str, Any], changes))


def players(value: object, defaults: tuple[str, str] = DEFAULT_NAMES) -> tuple[str, str]:
    """Two names sent as a list; an empty one is the default, a null one refused."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise Invalid(N_("Give exactly two player names."))
    for number, name in enumerate(value, start=1):
        if not isinstance(name, str):
            raise Invalid(N_("The name of player %(seat)s must be text."), seat=number)
    return parse_names(value[0], value[1], defaults)


def uid(value: object) -> str:
    if isinstance(value, str) and re.fullmatch(UID_PATTERN, value):
        return value
    raise Invalid(N_("A match uid is 32 lowercase hexadecimal digits."))


def request_id(value: object) -> str | None:
    if value is None or (isinstance(value, str) and re.fullmatch(REQUEST_ID_PATTERN, value)):
        return value
    raise Invalid(
        N_("A request id is 1 to %(most)s printable ASCII characters."), most=REQUEST_ID_MAX_LENGTH
    )


def deal_count(value: object) -> int:
    if whole(value) and 0 <= value <= MAX_DEALS_PER_MATCH:
        return int(value)
    raise Invalid(
        N_("after is the number of deals the match had: a whole number from 0 to %(most)s."),
        most=MAX_DEALS_PER_MATCH,
    )


def flag(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise Invalid(N_("The field %(field)s must be true or false."), field=field)
    return value


def timestamp(value: object) -> datetime:
    """A time written by an export, as naive UTC, within this century."""
    if isinstance(value, str) and re.fullmatch(TIMESTAMP_PATTERN, value):
        with contextlib.suppress(ValueError):  # a day its month has not: 2026-02-30
            parsed = datetime.fromisoformat(value)
            if parsed.tzinfo is not None:
                parsed = parsed.astimezone(UTC).replace(tzinfo=None)
            if EARLIEST <= parsed < LATEST:
                return parsed
    raise Invalid(
        N_(
            "%(value)s is not a date and time between 2000 and 2100 as an export writes one "
            "(2026-11-30T15:07:42Z)."
        ),
        value=as_sent(value),
    )


NUMBERS = {
    "page": N_("The page number must be a whole number from 1 up."),
    "number": N_("The deal number must be a whole number from 1 up."),
    "deal_number": N_("The deal number must be a whole number from 1 up."),
}


def number(raw: str, field: str, *, least: int = 1, most: int = 10**NUMBER_MAX_DIGITS) -> int:
    """At most ten ASCII digits, from ``least`` to ``most``."""
    if re.fullmatch(DIGITS, raw) and least <= int(raw) <= most:
        return int(raw)
    raise Malformed(NUMBERS.get(field, N_("A whole number from 1 up is needed here.")))


def query_number(raw: str | None, field: str) -> int | None:
    """1 up, at most ten digits after leading zeros; none when absent."""
    return None if raw is None else number(raw.lstrip("0"), field)


def form_number(raw: str, field: str, *, most: int) -> int | None:
    return None if raw == "" else number(raw, field, most=most)


def seat_text(raw: str) -> Seat:
    return seat(int(raw) if raw in ("1", "2") else raw)


def target_text(raw: str) -> int:
    return target(int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw)


DRY_RUN = {"1": True, "true": True, "0": False, "false": False}


def dry_run(raw: str | None) -> bool:
    if raw is not None and raw not in DRY_RUN:
        raise Malformed(N_("dry_run must be 1 or 0."))
    return raw is not None and DRY_RUN[raw]


# A string, and a colon after it if it is a key.
JSON_STRING = re.compile(r'("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?')


def keys_within(raw: bytes | str, most: int) -> bool:
    """Whether JSON text names at most ``most`` different keys, counted before it is parsed."""
    if isinstance(raw, bytes):
        raw = raw.decode(json.detect_encoding(raw), "replace")
    keys: set[str] = set()
    for found in JSON_STRING.finditer(raw):
        if found.start(2) >= 0:
            keys.add(found[1])
            if len(keys) > most:
                return False
    return True


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def json_value(raw: bytes | str) -> Any:
    """JSON without NaN or Infinity; ValueError if it is not JSON."""
    try:
        return json.loads(raw, parse_constant=_not_json)
    except RecursionError:
        raise ValueError("nested too deep") from None


def json_object(
    raw: bytes, *, allowed: frozenset[str], nullable: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """A JSON object of ``allowed`` fields, none null but those ``nullable``; empty is ``{}``."""
    if not raw:
        return {}
    try:
        body = json_value(raw)
    except ValueError:
        raise Malformed(N_("The request body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise Malformed(N_("The request body must be a JSON object."))
    unknown = sorted(str(field) for field in set(body) - allowed)
    if unknown:
        raise Invalid(
            N_("Unknown field %(field)s; this request takes %(expected)s."),
            field=as_sent(unknown[0]),
            expected=", ".join(sorted(allowed)),
        )
    empty = sorted(
        field for field, value in body.items() if value is None and field not in nullable
    )
    if empty:
        raise Invalid(N_("Leave %(field)s out rather than sending null."), field=empty[0])
    return body

"""The pages' forms read into typed values, and the page that asks before a step for good."""

import contextlib
import re
from collections.abc import Callable
from datetime import datetime
from typing import NotRequired, TypedDict, TypeVar, Unpack

from flask import render_template, request

from counter.game import parsing
from counter.game.names import parse_names
from counter.game.parsing import RuleChanges
from counter.game.refusals import N_, Invalid, Malformed
from counter.game.scoring import GameName, HouseRules, Outcome, Preset, Seat
from counter.storage.models import MAX_ID
from counter.storage.repository import MatchNotFound
from counter.web import i18n

T = TypeVar("T")


def number(field: str) -> int | None:
    """A positive whole number from the form, or None when the field is absent or empty."""
    return parsing.form_number(request.form.get(field, ""), field, most=MAX_ID)


def match_id() -> int | None:
    """The match a form is about; one that cannot be this browser's is not found."""
    try:
        return number("match_id")
    except Malformed:
        raise MatchNotFound(N_("There is no such match in this browser.")) from None


def outcome() -> Outcome:
    return parsing.outcome(request.form.get("outcome"))


def corrected_outcome() -> Outcome | None:
    """The outcome a correction sets; none keeps the deal's own."""
    return None if request.form.get("outcome") is None else outcome()


def receiver() -> Seat | None:
    """The seat that receives the points of a deal in the form; a tie has none."""
    if request.form.get("outcome") == Outcome.TIE.value:
        return None
    raw = request.form.get("player", "")
    if not raw.strip():
        raise Invalid(N_("Say which player receives the points (player 1 or 2)."))
    return parsing.seat_text(raw)


def target() -> int | None:
    raw = request.form.get("target")
    return None if raw is None else parsing.target_text(raw)


def _optional(field: str, parse: Callable[[str], T]) -> Callable[[], T | None]:
    return lambda: parse(raw) if (raw := request.form.get(field)) else None


game: Callable[[], GameName | None] = _optional("game", parsing.game)
preset: Callable[[], Preset | None] = _optional("preset", parsing.preset)
uid: Callable[[], str | None] = _optional("uid", parsing.uid)
request_id: Callable[[], str | None] = _optional("request_id", parsing.request_id)


def rules() -> RuleChanges | None:
    switches = [switch.name for switch in HouseRules.switches()]
    chosen = {name: request.form[name] for name in switches if name in request.form}
    return parsing.rule_changes(chosen) if chosen else None


def names() -> tuple[str, str] | None:
    first, second = request.form.get("player1"), request.form.get("player2")
    if first is None and second is None:
        return None
    return parse_names(first, second, i18n.default_names())


def first_dealer() -> Seat | None:
    raw = request.form.get("first_dealer")
    if raw is None:
        return None
    try:
        return parsing.seat_text(raw)
    except Invalid:  # said of the player who receives points; here it is the first deal
        raise Invalid(N_("The first deal goes to player 1 or 2.")) from None


RECORDED_AT = r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"


def recorded_at() -> datetime | None:
    """When the deal a form corrects or deletes was recorded, as its page wrote it (UTC)."""
    raw = request.form.get("recorded_at") or None
    if raw is None:
        return None
    if re.fullmatch(RECORDED_AT, raw):
        with contextlib.suppress(ValueError):  # a day its month has not
            return datetime.fromisoformat(raw)
    raise Malformed(N_("Reload the page and try again."))


def confirmed() -> bool:
    return request.form.get("confirmed") == "1"


def nonce() -> str:
    """The form's ``rotation`` field (a fresh one on each page), the same if it is sent twice."""
    value = request.form.get("rotation", "")
    if not (value.isascii() and value.isprintable() and 16 <= len(value) <= 64):
        raise Malformed(N_("Reload the page and try again."))
    return value


NOT_POSTED_AGAIN = {"csrf_token", "confirmed"}


class ConfirmPage(TypedDict):
    title: str
    message: str
    button: str
    fields: NotRequired[dict[str, str]]  # posted again; by default, this form's own
    back: NotRequired[str | None]  # where Cancel goes
    danger: NotRequired[bool]


def confirm_page(**page: Unpack[ConfirmPage]) -> str:
    """A page whose button posts this form again, confirmed."""
    posted = {name: value for name, value in request.form.items() if name not in NOT_POSTED_AGAIN}
    page.setdefault("fields", posted)
    return render_template("confirm.html", action=request.script_root + request.path, **page)

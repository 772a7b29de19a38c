"""The JSON API: the same service functions as the pages, JSON in and JSON out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, request, url_for

from counter import i18n, limits
from counter.browser import browser_key, ensure_browser_key, owner_of
from counter.refusals import N_, Invalid, Malformed, Refusal, not_a_number, shown
from counter.security import same_origin_only
from counter.services import archive, deals, matches, sharing
from counter.services.queries import MatchNotFound
from counter.services.views import MatchView
from counter.shapes import match_json, page_json, shared_json
from counter.web.archive import check_size

bp = limits.writes(Blueprint("api", __name__, url_prefix="/api"))
# JSON bodies cannot be sent cross-site without CORS, which this API does not
# grant; a browser's Origin header settles the rest. Forms use CSRF tokens.
bp.before_request(same_origin_only)


class NotJson(Refusal):
    """A body that is not declared as JSON."""

    status = 415


def json_body(allowed: frozenset[str]) -> dict[str, Any]:
    """The request's JSON object: 415 if not JSON, 400 if malformed, 422 for unknown fields.

    An empty body is an empty object, when it claims no other type.
    """
    raw = request.get_data(cache=True)
    if request.mimetype and not request.is_json:
        raise NotJson(N_("Send the request body as JSON (Content-Type: application/json)."))
    if not raw:
        return {}
    if not request.is_json:
        raise NotJson(N_("Send the request body as JSON (Content-Type: application/json)."))
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except (ValueError, RecursionError):
        raise Malformed(N_("The request body is not valid JSON.")) from None
    if not isinstance(body, dict):
        raise Malformed(N_("The request body must be a JSON object."))
    unknown = sorted(str(field) for field in set(body) - allowed)
    if unknown:
        raise Invalid(
            N_("Unknown field %(field)s; this request takes %(expected)s."),
            field=shown(unknown[0]),
            expected=", ".join(sorted(allowed)),
        )
    empty = sorted(
        field for field, value in body.items() if value is None and field not in NULLABLE
    )
    if empty:
        raise Invalid(N_("Leave %(field)s out rather than sending null."), field=empty[0])
    return body


# Fields whose null means something: a tied deal's player is nobody.
NULLABLE = frozenset({"player"})


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def _created(match: MatchView) -> tuple[dict[str, Any], int, dict[str, str]]:
    location = url_for("api.show_match", match_id=match.id)
    return match_json(match), 201, {"Location": location}


def _flag(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise Invalid(N_("%(field)s must be true or false."), field=name)
    return value


def _query_number(name: str) -> int | None:
    """A number in the query string: ASCII digits, at least 1, at most ten digits long."""
    raw = request.args.get(name)
    if raw is None:
        return None
    digits = raw.lstrip("0")
    if not (raw.isascii() and raw.isdigit()) or not 1 <= len(digits) <= 10:
        raise not_a_number(name)
    return int(digits)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    """The OpenAPI description of this API, as shipped in the package."""
    spec = Path(__file__).with_name("openapi.yaml").read_bytes()
    return Response(spec, mimetype="application/yaml")


@bp.get("/matches")
def list_matches() -> dict[str, Any]:
    """This browser's matches, newest first, a page at a time (``?page=N``)."""
    return page_json(matches.list_matches(owner=browser_key(), page=_query_number("page") or 1))


MATCH_SETTINGS = frozenset({"target", "players", "rules", "preset", "first_dealer"})


@bp.post("/matches")
def start_match() -> tuple[dict[str, Any], int, dict[str, str]] | dict[str, Any]:
    """Start a new match; the same ``uid`` again answers the match it started (200)."""
    body = json_body(MATCH_SETTINGS | {"uid"})
    match, started = matches.start_match(
        owner=ensure_browser_key(),
        uid=body.get("uid"),
        target=body.get("target"),
        names=body.get("players"),
        rules=body.get("rules"),
        preset=body.get("preset"),
        first_dealer=body.get("first_dealer"),
        defaults=i18n.default_names(),
    )
    return _created(match) if started else match_json(match)


@bp.get("/matches/current")
def current_match() -> dict[str, Any]:
    """The match this browser played in last."""
    match = matches.current_match(owner=browser_key())
    if match is None:
        raise MatchNotFound(N_("This browser has no match yet."))
    return match_json(match)


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> dict[str, Any]:
    """One match with all its deals."""
    return match_json(matches.get_match(owner=browser_key(), match_id=match_id))


@bp.patch("/matches/<match_id:match_id>")
def change_match(match_id: int) -> dict[str, Any]:
    """Switch the target, rename the players, change the house rules or the first dealer."""
    body = json_body(MATCH_SETTINGS | {"play_on"})
    return match_json(
        matches.change_match(
            owner=owner_of(match_id),
            match_id=match_id,
            target=body.get("target"),
            names=body.get("players"),
            rules=body.get("rules"),
            preset=body.get("preset"),
            first_dealer=body.get("first_dealer"),
            play_on=_flag(body, "play_on"),
            defaults=i18n.default_names(),
        )
    )


@bp.delete("/matches/<match_id:match_id>")
def delete_match(match_id: int) -> Response:
    """Delete a match with its deals."""
    matches.delete_match(owner=owner_of(match_id), match_id=match_id)
    return _no_content()


def _no_content() -> Response:
    response = Response(status=204)
    del response.headers["Content-Type"]  # there is no content to have a type
    return response


@bp.post("/matches/<match_id:match_id>/resume")
def resume_match(match_id: int) -> dict[str, Any]:
    """Make an unfinished match the current one again."""
    return match_json(matches.resume_match(owner=owner_of(match_id), match_id=match_id))


@bp.post("/matches/<match_id:match_id>/deals")
def record_deal(match_id: int) -> tuple[dict[str, Any], int, dict[str, str]] | dict[str, Any]:
    """Record a deal; a repeated ``request_id`` returns the match without recording again."""
    body = json_body(frozenset({"player", "outcome", "request_id"}))
    if "outcome" not in body:
        raise Invalid(N_("Say how the deal ended (outcome)."))
    if "player" not in body and body["outcome"] != "tie":
        raise Invalid(N_("Say which player receives the points (player 1 or 2)."))
    match, recorded = deals.record_deal(
        owner=owner_of(match_id),
        match_id=match_id,
        player=body.get("player"),
        outcome=body["outcome"],
        request_id=body.get("request_id"),
        defaults=i18n.default_names(),
    )
    # 200 tells a retrying client that its deal was already there.
    return _created(match) if recorded else match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/last")
def undo_last_deal(match_id: int) -> dict[str, Any]:
    """Take back the latest deal; only deal N (``?number=N``) or the deal of ``?request_id=``."""
    match, _removed = deals.undo_last_deal(
        owner=owner_of(match_id),
        match_id=match_id,
        number=_query_number("number"),
        request_id=request.args.get("request_id"),
    )
    return match_json(match)


@bp.patch("/matches/<match_id:match_id>/deals/<number:number>")
def correct_deal(match_id: int, number: int) -> dict[str, Any]:
    """Correct a past deal's player and/or outcome."""
    body = json_body(frozenset({"player", "outcome"}))
    if not body:
        raise Invalid(N_("Send the player, the outcome, or both."))
    match, _deal = deals.correct_deal(
        owner=owner_of(match_id),
        match_id=match_id,
        number=number,
        player=body.get("player"),
        outcome=body.get("outcome"),
    )
    return match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/<number:number>")
def delete_deal(match_id: int, number: int) -> dict[str, Any]:
    """Delete a past deal; the later deals move up a number."""
    match, _removed = deals.delete_deal(owner=owner_of(match_id), match_id=match_id, number=number)
    return match_json(match)


@bp.get("/shared/<token>")
def shared_match(token: str) -> dict[str, Any]:
    """The match a share link shows, read-only."""
    return shared_json(sharing.shared_match(token=token))


@bp.get("/export")
@limits.heavy_reads
def export() -> dict[str, Any]:
    """All of this browser's matches, as POST /api/import reads them."""
    return archive.export_document(owner=browser_key())


@bp.post("/import")
@limits.imports
def import_matches() -> tuple[dict[str, Any], int]:
    """Add the matches of an export this browser lacks; ``?dry_run=1`` only reports."""
    raw = request.get_data(cache=True)
    if not request.is_json:
        raise NotJson(N_("Send the request body as JSON (Content-Type: application/json)."))
    check_size(raw)
    checked = archive.read_document(raw)
    dry_run = request.args.get("dry_run")
    if dry_run not in (None, "0", "1", "false", "true"):
        raise Malformed(N_("dry_run must be 1 or 0."))
    if dry_run in ("1", "true"):
        report = archive.preview(owner=browser_key(), matches=checked)
        status = 200
    else:
        report = archive.import_matches(owner=ensure_browser_key(), matches=checked)
        status = 201 if report.new else 200
    return {
        "new": [match.uid for match in report.new],
        "present": [match.uid for match in report.present],
    }, status

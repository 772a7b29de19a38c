"""The JSON API: the same service functions as the pages, JSON in and JSON out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, request, url_for
from flask_babel import gettext

from counter import archive, i18n, matches, scoring
from counter.browser import browser_key, ensure_browser_key, owner_of
from counter.errors import error_response
from counter.matches import MatchNotFound, MatchPage, MatchView
from counter.scoring import RuleConflict, RuleError
from counter.security import same_origin_only

bp = Blueprint("api", __name__, url_prefix="/api")
# JSON bodies cannot be sent cross-site without CORS, which this API does not
# grant; a browser's Origin header settles the rest. Forms use CSRF tokens.
bp.before_request(same_origin_only)


def json_body(allowed: frozenset[str]) -> dict[str, Any]:
    """The request's JSON object: 415 if not JSON, 400 if malformed, 422 for unknown fields."""
    raw = request.get_data(cache=True)
    if not raw:
        return {}
    if not request.is_json:
        abort(415)
    try:
        body = json.loads(raw, parse_constant=_not_json)
    except (ValueError, RecursionError):
        abort(400, description=gettext("The request body is not valid JSON."))
    if not isinstance(body, dict):
        abort(400, description=gettext("The request body must be a JSON object."))
    unknown = sorted(set(body) - allowed)
    if unknown:
        expected = ", ".join(sorted(allowed))
        abort(
            422,
            description=gettext(
                "Unknown field %(field)s; this request takes %(expected)s.",
                field=scoring.shown(unknown[0]),
                expected=expected,
            ),
        )
    return body


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def match_json(match: MatchView) -> dict[str, Any]:
    """A match as the API shows it; a summary (no ``deals``) carries ``deal_count`` instead."""
    body: dict[str, Any] = {
        "id": match.id,
        "target": match.target,
        "players": [
            {"seat": player.seat, "name": player.name, "score": player.score, "games": player.games}
            for player in match.players
        ],
        "winner": match.winner,
        "finished": match.finished,
        "rules": {
            "failed_close": match.rules.failed_close.value,
            "wrong_claim": match.rules.wrong_claim.value,
            "next_dealer": match.rules.next_dealer.value,
            "ties": match.rules.ties.value,
        },
        "first_dealer": match.first_dealer,
        "created_at": _timestamp(match.created_at),
        "finished_at": _timestamp(match.finished_at),
    }
    if match.deals is None:
        body["deal_count"] = match.deal_count
    else:
        body["dealer"] = match.dealer
        body["leader"] = scoring.other(match.dealer)
        body["deals"] = [
            {
                "number": deal.number,
                "player": deal.player,
                "outcome": deal.outcome.value,
                "points": deal.points,
                "scores": list(deal.scores),
                "created_at": _timestamp(deal.created_at),
                "corrected": deal.corrected,
                "dealer": deal.dealer,
            }
            for deal in match.deals
        ]
    return body


def _timestamp(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat(timespec="seconds") + "Z"


def _page_json(page: MatchPage) -> dict[str, Any]:
    return {
        "matches": [match_json(match) for match in page.matches],
        "page": page.page,
        "pages": page.pages,
    }


def _created(match: MatchView) -> tuple[dict[str, Any], int, dict[str, str]]:
    location = url_for("api.show_match", match_id=match.id)
    return match_json(match), 201, {"Location": location}


@bp.get("/openapi.yaml")
def openapi() -> Response:
    """The OpenAPI description of this API, as shipped in the package."""
    spec = Path(__file__).with_name("openapi.yaml").read_bytes()
    return Response(spec, mimetype="application/yaml")


@bp.get("/matches")
def list_matches() -> dict[str, Any]:
    """This browser's matches, newest first, a page at a time (``?page=N``)."""
    page = request.args.get("page", "1")
    if not page.isdigit() or not page.isascii():
        abort(400, description=gettext("page must be a whole number from 1 up."))
    return _page_json(matches.list_matches(browser_key(), int(page)))


@bp.post("/matches")
def start_match() -> tuple[dict[str, Any], int, dict[str, str]]:
    """Start a new match; target and names default to 11 and the last match's names."""
    body = json_body(frozenset({"target", "players", "rules", "first_dealer"}))
    owner = ensure_browser_key()
    match, _started = matches.start_match(
        owner,
        body.get("target", 11),
        body.get("players"),
        defaults=i18n.default_names(),
        rules=body.get("rules"),
        first_dealer=body.get("first_dealer"),
    )
    return _created(match)


@bp.get("/matches/current")
def current_match() -> dict[str, Any]:
    """The match this browser started last."""
    match = matches.current_match(browser_key())
    if match is None:
        raise MatchNotFound(scoring.N_("This browser has no match yet."))
    return match_json(match)


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> dict[str, Any]:
    """One match with all its deals."""
    return match_json(matches.get_match(browser_key(), match_id))


@bp.patch("/matches/<match_id:match_id>")
def change_match(match_id: int) -> dict[str, Any]:
    """Switch the target or rename the players."""
    body = json_body(frozenset({"target", "players", "rules", "first_dealer"}))
    owner = owner_of(match_id)
    return match_json(
        matches.change_match(
            owner,
            match_id,
            body.get("target"),
            body.get("players"),
            i18n.default_names(),
            body.get("rules"),
            body.get("first_dealer"),
        )
    )


@bp.post("/matches/<match_id:match_id>/deals")
def record_deal(match_id: int) -> tuple[dict[str, Any], int, dict[str, str]] | dict[str, Any]:
    """Record a deal; a repeated ``request_id`` returns the match without recording again."""
    body = json_body(frozenset({"player", "outcome", "request_id"}))
    required = ("outcome",) if body.get("outcome") == "tie" else ("player", "outcome")
    for field in required:
        if field not in body:
            abort(422, description=gettext("Say which %(field)s the deal is for.", field=field))
    owner = owner_of(match_id)
    match, recorded = matches.record_deal(
        owner,
        match_id,
        body.get("player"),
        body["outcome"],
        body.get("request_id"),
        i18n.default_names(),
    )
    # 200 tells a retrying client that its deal was already there.
    return _created(match) if recorded else match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/last")
def undo_last_deal(match_id: int) -> dict[str, Any]:
    """Take back the latest deal; with ``?number=N`` only if deal N is still the latest."""
    number = request.args.get("number")
    if number is not None and not (number.isascii() and number.isdigit() and len(number) < 10):
        abort(400, description=gettext("number must be a whole number from 1 up."))
    match, _removed = matches.undo_last_deal(
        owner_of(match_id), match_id, None if number is None else int(number)
    )
    return match_json(match)


@bp.patch("/matches/<match_id:match_id>/deals/<number:number>")
def correct_deal(match_id: int, number: int) -> dict[str, Any]:
    """Correct a past deal's player and/or outcome."""
    body = json_body(frozenset({"player", "outcome"}))
    if not body:
        abort(422, description=gettext("Send the player, the outcome, or both."))
    match, _deal = matches.correct_deal(
        owner_of(match_id), match_id, number, body.get("player"), body.get("outcome")
    )
    return match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/<number:number>")
def delete_deal(match_id: int, number: int) -> dict[str, Any]:
    """Delete a past deal; the later deals move up a number."""
    match, _removed = matches.delete_deal(owner_of(match_id), match_id, number)
    return match_json(match)


@bp.get("/shared/<token>")
def shared_match(token: str) -> dict[str, Any]:
    """The match a share link shows, read-only."""
    return match_json(matches.shared_match(token))


@bp.get("/export")
def export() -> dict[str, Any]:
    """All of this browser's matches, as POST /api/import reads them."""
    return archive.export_document(browser_key())


@bp.post("/import")
def import_matches() -> tuple[dict[str, Any], int]:
    """Add the matches of an export this browser lacks; ``?dry_run=1`` only reports."""
    raw = request.get_data(cache=True)
    if not request.is_json:
        abort(415)
    checked = archive.read_document(raw)
    if request.args.get("dry_run") in {"1", "true"}:
        report = archive.preview(browser_key(), checked)
        status = 200
    else:
        report = archive.import_matches(ensure_browser_key(), checked)
        status = 201 if report.new else 200
    return {
        "new": [match["uid"] for match in report.new],
        "present": [match["uid"] for match in report.present],
    }, status


@bp.errorhandler(RuleError)
def _refused(error: RuleError) -> tuple[Response, int] | tuple[str, int]:
    if isinstance(error, MatchNotFound):
        status = 404
    else:
        status = 409 if isinstance(error, RuleConflict) else 422
    return error_response(i18n.explain(error), status)

"""The JSON API: the same service functions as the pages, JSON in and JSON out."""

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from flask import Blueprint, Response, g, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response as ResponseBase

from counter.game import parsing
from counter.game.match import DealsChanged
from counter.game.refusals import N_, Invalid
from counter.services import archive, deals, matches, sharing
from counter.services.read_models import MatchView
from counter.storage.repository import MatchNotFound
from counter.web import errors, i18n, import_size, limits, security, shapes
from counter.web.browser import current_owner, ensure_device, own_key, owner_of, this_device
from counter.web.export_import import streamed

bp = limits.writes(Blueprint("api", __name__, url_prefix="/api"))
bp.before_request(security.same_origin_only)

T = TypeVar("T")

JSON_ONLY = N_("Send the request body as JSON (Content-Type: application/json).")


def json_body(allowed: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The request's JSON object; an empty body, claiming no other type, is ``{}``."""
    raw = request.get_data(cache=True)
    if (request.mimetype or raw) and not request.is_json:
        raise parsing.NotJson(JSON_ONLY)
    return parsing.json_object(raw, allowed=allowed, nullable=frozenset({"player"}))


# ``Prefer: return=minimal`` (RFC 7240) or ``?since=N`` (the deals the client holds) ask for
# a deal's, an undo's or a settings change's match without its deals but those above N.
SHORTENED = frozenset({"api.record_deal", "api.undo_last_deal", "api.change_match"})
MINIMAL = "return=minimal"


@bp.before_request
def read_shortening() -> None:
    """Read ``since`` before the write, so that a malformed one changes nothing."""
    if request.endpoint not in SHORTENED:
        return
    preferences = ",".join(request.headers.getlist("Prefer")).replace(";", ",").split(",")
    g.minimal = MINIMAL in (preference.strip().lower() for preference in preferences)
    if (raw := request.args.get("since")) is not None:
        g.answer_since = 0 if set(raw) == {"0"} else parsing.query_number(raw, "since")


@bp.after_request
def mark_preference(response: Response) -> Response:
    if g.get("minimal") and response.status_code < 300 and response.is_json:
        response.headers["Preference-Applied"] = MINIMAL
    return response


def match_json(match: MatchView) -> dict[str, Any]:
    if g.get("minimal") or "answer_since" in g:
        return shapes.update_json(match, since=g.get("answer_since"))
    return shapes.match_json(match)


def _created(match: MatchView) -> tuple[dict[str, Any], int, dict[str, str]]:
    return match_json(match), 201, {"Location": url_for("api.show_match", match_id=match.id)}


def _optional(body: dict[str, Any], field: str, parse: Callable[[Any], T]) -> T | None:
    return None if field not in body else parse(body[field])


def _query_number(name: str) -> int | None:
    return parsing.query_number(request.args.get(name), name)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    spec = Path(__file__).with_name("openapi.yaml").read_bytes()
    return Response(spec, mimetype="application/yaml")


@bp.get("/matches")
def list_matches() -> dict[str, Any]:
    """This browser's matches, newest first."""
    listed = matches.list_matches(owner=current_owner(), page=_query_number("page") or 1)
    return shapes.page_json(listed)


MATCH_SETTINGS = frozenset({"game", "target", "players", "rules", "preset", "first_dealer"})


def _settings(body: dict[str, Any]) -> dict[str, Any]:
    players = partial(parsing.players, defaults=i18n.default_names())
    return {
        "names": _optional(body, "players", players),
        "preset": _optional(body, "preset", parsing.preset),
        "target": _optional(body, "target", parsing.target),
        "rules": _optional(body, "rules", parsing.rule_changes),
        "first_dealer": _optional(body, "first_dealer", parsing.seat),
        "game": _optional(body, "game", parsing.game),
    }


@bp.post("/matches")
def start_match() -> ResponseReturnValue:
    """Start a new match; the same ``uid`` again answers the match it started (200)."""
    body = json_body(MATCH_SETTINGS | {"uid"})
    uid, settings = _optional(body, "uid", parsing.uid), _settings(body)
    device = ensure_device()
    match, started = matches.start_match(
        owner=device.owner, device=device, uid=uid, default_names=i18n.default_names(), **settings
    )
    return _created(match) if started else match_json(match)


@bp.get("/matches/current")
def current_match() -> dict[str, Any]:
    match = matches.current_match(owner=current_owner(), device=this_device())
    if match is None:
        raise MatchNotFound(N_("This browser has no match yet."))
    return match_json(match)


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> dict[str, Any]:
    return match_json(matches.get_match(owner=owner_of(match_id, reading=True), match_id=match_id))


@bp.patch("/matches/<match_id:match_id>")
def change_match(match_id: int) -> dict[str, Any]:
    body = json_body(MATCH_SETTINGS | {"play_on"})
    match = matches.change_match(
        owner=owner_of(match_id),
        match_id=match_id,
        play_on=parsing.flag(body.get("play_on", False), "play_on"),
        **_settings(body),
        device=this_device(),
    )
    return match_json(match)


@bp.delete("/matches/<match_id:match_id>")
def delete_match(match_id: int) -> Response:
    json_body()
    matches.delete_match(owner=owner_of(match_id), match_id=match_id)
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response


@bp.post("/matches/<match_id:match_id>/resume")
def resume_match(match_id: int) -> dict[str, Any]:
    json_body()
    owner = own_key(match_id)
    return match_json(matches.resume_match(owner=owner, match_id=match_id, device=this_device()))


@bp.post("/matches/<match_id:match_id>/deals")
def record_deal(match_id: int) -> ResponseReturnValue:
    """Record a deal once per ``request_id``; with ``after``, 409 if the deals changed since."""
    body = json_body(frozenset({"player", "outcome", "request_id", "after"}))
    if "outcome" not in body:
        raise Invalid(N_("Say how the deal ended (outcome)."))
    if "player" not in body and body["outcome"] != "tie":
        raise Invalid(N_("Say which player receives the points (player 1 or 2)."))
    owner = owner_of(match_id)
    outcome = parsing.outcome(body["outcome"])
    seat = parsing.receiver(outcome, body.get("player"))
    request_id = parsing.request_id(body.get("request_id"))
    after = _optional(body, "after", parsing.deal_count)
    try:
        match, recorded = deals.record_deal(
            owner=owner,
            match_id=match_id,
            seat=seat,
            outcome=outcome,
            request_id=request_id,
            after=after,
            device=this_device(),
        )
    except DealsChanged as changed:
        now = matches.get_match(owner=owner, match_id=match_id)
        ask = shapes.ask_json(match=now, after=after or 0, seat=seat, outcome=outcome)
        body = {"error": i18n.explain(changed), "match": shapes.match_json(now), "ask": ask}
        return body, errors.status_of(changed)
    return _created(match) if recorded else match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/last")
def undo_last_deal(match_id: int) -> dict[str, Any]:
    """Take back the latest deal: only if it is ``?number=`` or the deal of ``?request_id=``."""
    json_body()
    match, _removed = deals.undo_last_deal(
        owner=owner_of(match_id),
        match_id=match_id,
        number=_query_number("number"),
        request_id=parsing.request_id(request.args.get("request_id")),
        device=this_device(),
    )
    return match_json(match)


@bp.patch("/matches/<match_id:match_id>/deals/<number:number>")
def correct_deal(match_id: int, number: int) -> dict[str, Any]:
    body = json_body(frozenset({"player", "outcome"}))
    if not body:
        raise Invalid(N_("Send the player, the outcome, or both."))
    owner = owner_of(match_id)
    outcome = _optional(body, "outcome", parsing.outcome)
    seat = None if body.get("player") is None else parsing.seat(body["player"])
    match, _deal = deals.correct_deal(
        owner=owner, match_id=match_id, number=number, seat=seat, outcome=outcome
    )
    return match_json(match)


@bp.delete("/matches/<match_id:match_id>/deals/<number:number>")
def delete_deal(match_id: int, number: int) -> dict[str, Any]:
    json_body()
    match, _removed = deals.delete_deal(owner=owner_of(match_id), match_id=match_id, number=number)
    return match_json(match)


@bp.get("/shared/<token>")
def shared_match(token: str) -> dict[str, Any]:
    return shapes.shared_json(sharing.shared_match(token=token))


@bp.get("/export")
@limits.heavy_reads
def export() -> ResponseBase:
    return streamed(archive.export_document(owner=current_owner()), mimetype="application/json")


@bp.post("/import")
@limits.imports
def import_matches() -> tuple[dict[str, Any], int]:
    raw = request.get_data(cache=True)
    if not request.is_json:
        raise parsing.NotJson(JSON_ONLY)
    import_size.check_size(raw)
    checked = archive.read_document(raw)
    if dry_run := parsing.dry_run(request.args.get("dry_run")):
        report = archive.preview(owner=current_owner(), matches=checked)
    else:
        device = ensure_device()
        report = archive.import_matches(owner=device.owner, matches=checked, device_id=device.id)
    answer = {"new": [m.uid for m in report.new], "present": [m.uid for m in report.present]}
    return answer, 201 if report.new and not dry_run else 200

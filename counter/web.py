"""The HTML pages: plain forms that post, redirect and get, so no JavaScript is needed."""

from __future__ import annotations

import secrets

from flask import Blueprint, Flask, abort, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from counter import matches, scoring
from counter.browser import browser_key, ensure_browser_key
from counter.errors import error_response
from counter.matches import DealView, MatchNotFound, MatchView
from counter.scoring import TARGETS, Outcome, RuleConflict, RuleError

bp = Blueprint("web", __name__)

MAX_FORM_ID = 2**31 - 1

# What each outcome is called on its button, and when to tap it, seen from
# the player who receives the points.
OUTCOME_NAMES: dict[Outcome, str] = {
    Outcome.NORMAL: "Win",
    Outcome.SCHNEIDER: "Schneider",
    Outcome.SCHWARZ: "Schwarz",
    Outcome.FAILED_CLOSE: "Close failed",
    Outcome.FAILED_CLOSE_NO_TRICK: "Close failed, no trick",
    Outcome.WRONG_CLAIM: "Wrong 66",
}
OUTCOME_HINTS: dict[Outcome, str] = {
    Outcome.NORMAL: "opponent has 33 or more",
    Outcome.SCHNEIDER: "opponent under 33",
    Outcome.SCHWARZ: "opponent took no trick",
    Outcome.FAILED_CLOSE: "opponent closed, missed 66",
    Outcome.FAILED_CLOSE_NO_TRICK: "you had no trick at closing",
    Outcome.WRONG_CLAIM: "opponent called 66 wrongly",
}


def init_app(app: Flask) -> None:
    """Make the game's words available to every template, imported macros included."""
    app.jinja_env.globals.update(
        outcomes=list(Outcome),
        outcome_names=OUTCOME_NAMES,
        outcome_hints=OUTCOME_HINTS,
        targets=TARGETS,
    )


def _render_home(match: MatchView, error: str | None = None, status: int = 200) -> tuple[str, int]:
    # One fresh request id per rendered page: resubmitting this page's form
    # (double tap, back button, retry) records its deal once.
    request_id = secrets.token_urlsafe(16)
    page = render_template("home.html", match=match, request_id=request_id, error=error)
    return page, status


@bp.get("/")
def home() -> tuple[str, int]:
    """The current match, or a blank one before this browser has recorded anything."""
    return _render_home(matches.current_match(browser_key()) or matches.blank_match())


@bp.post("/deals")
def record_deal() -> Response:
    """Record one deal for the player who receives the game points."""
    player = _form_seat()
    outcome = scoring.parse_outcome(request.form.get("outcome"))
    match_id = _form_match_id()
    match, recorded = matches.record_deal(
        ensure_browser_key(), match_id, player, outcome, request.form.get("request_id") or None
    )
    if recorded and match.deals:
        flash(_deal_note(match, match.deals[-1]))
    return redirect(url_for("web.home"))


@bp.post("/undo")
def undo_last_deal() -> Response:
    """Take back the latest deal of the match on screen."""
    match_id = _form_match_id()
    owner = browser_key()
    if match_id is None or owner is None:
        raise matches.NothingToUndo("There is no deal to undo yet.")
    match, removed = matches.undo_last_deal(owner, match_id, _form_number("deal_number"))
    flash(f"Deal {removed.number} undone: {_deal_note(match, removed)}.")
    return redirect(url_for("web.home"))


@bp.post("/settings")
def change_match() -> Response:
    """Switch the target and/or rename the players of the match on screen."""
    target = _form_target()
    names = _form_names()
    if target is None and names is None:
        abort(400, description="Choose a target or enter the players' names.")
    matches.change_match(ensure_browser_key(), _form_match_id(), target, names)
    flash(f"The match is now played to {target}." if target else "Names saved.")
    return redirect(url_for("web.home"))


@bp.post("/new")
def start_match() -> Response:
    """Start a new match with the same two players, to the target chosen."""
    target = _form_target() or scoring.DEFAULT_TARGET
    match, started = matches.start_match(ensure_browser_key(), target, replacing=_form_match_id())
    flash(
        f"New match to {match.target} started."
        if started
        else "A new match had already been started; here it is."
    )
    return redirect(url_for("web.home"))


@bp.get("/matches")
def history() -> str:
    """This browser's matches, newest first."""
    page = request.args.get("page", "1")
    if not page.isdigit() or not page.isascii():
        abort(400, description="The page number must be a whole number from 1 up.")
    return render_template("history.html", page=matches.list_matches(browser_key(), int(page)))


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> str:
    """One match with all its deals and running totals."""
    match = matches.get_match(browser_key(), match_id)
    is_current = match.id == matches.current_match_id(browser_key())
    return render_template("match.html", match=match, is_current=is_current)


@bp.get("/robots.txt")
def robots() -> Response:
    """Crawlers have nothing to index here but the rules."""
    return Response("User-agent: *\nAllow: /rules\nDisallow: /\n", mimetype="text/plain")


@bp.get("/rules")
def rules() -> str:
    """How Santase is scored, in the counter's words."""
    return render_template("rules.html")


def _deal_note(match: MatchView, deal: DealView) -> str:
    name = match.players[deal.player - 1].name
    return f"+{deal.points} {name} · {OUTCOME_NAMES[deal.outcome]}"


def _form_match_id() -> int | None:
    try:
        return _form_number("match_id")
    except RuleError:
        raise MatchNotFound("There is no such match in this browser.") from None


def _form_number(field: str) -> int | None:
    """A positive whole number from the form, or None when the field is absent or empty."""
    raw = request.form.get(field, "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_FORM_ID:
        raise RuleError(f"{field} must be a whole number from 1 up.")
    return int(raw)


def _form_seat() -> int:
    raw = request.form.get("player", "")
    seat: object = int(raw) if raw in ("1", "2") else raw
    return scoring.parse_seat(seat)


def _form_target() -> int | None:
    raw = request.form.get("target")
    if raw is None:
        return None
    value: object = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw
    return scoring.parse_target(value)


def _form_names() -> tuple[str, str] | None:
    if "player1" not in request.form and "player2" not in request.form:
        return None
    return scoring.parse_names(request.form.get("player1"), request.form.get("player2"))


@bp.errorhandler(RuleError)
def _refused(error: RuleError) -> tuple[str, int]:
    """Show the page again with what was wrong; nothing was changed."""
    status = 409 if isinstance(error, RuleConflict) else 422
    shown: MatchView | None = None
    owner = browser_key()
    try:
        match_id = _form_match_id()
    except MatchNotFound:
        match_id = None
    if owner is not None and match_id is not None:
        try:
            shown = matches.get_match(owner, match_id)
        except MatchNotFound:
            shown = None
    shown = shown or matches.current_match(owner) or matches.blank_match()
    return _render_home(shown, error=str(error), status=status)


@bp.errorhandler(MatchNotFound)
def _not_found(error: MatchNotFound) -> tuple[Response, int] | tuple[str, int]:
    return error_response(str(error), 404)

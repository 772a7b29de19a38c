"""The HTML pages: plain forms that post, redirect and get, so no JavaScript is needed."""

from __future__ import annotations

import csv
import io
import json
import secrets
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext, lazy_gettext
from markupsafe import Markup
from werkzeug.wrappers import Response

from counter import archive, devices, i18n, matches, scoring, statistics
from counter.browser import SESSION_KEY, browser_key, ensure_browser_key, owner_of
from counter.errors import error_response
from counter.matches import DealView, MatchNotFound, MatchView
from counter.models import MAX_ID
from counter.scoring import TARGETS, Outcome, RuleConflict, RuleError

bp = Blueprint("web", __name__)


# What each outcome is called on its button, and when to tap it, seen from
# the player who receives the points.
OUTCOME_NAMES = {
    Outcome.NORMAL: lazy_gettext("Win"),
    Outcome.SCHNEIDER: lazy_gettext("Schneider"),
    Outcome.SCHWARZ: lazy_gettext("Schwarz"),
    Outcome.FAILED_CLOSE: lazy_gettext("Close failed"),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_gettext("Close failed, no trick"),
    Outcome.WRONG_CLAIM: lazy_gettext("Wrong 66"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_gettext("Wrong 66, no trick"),
    Outcome.TIE: lazy_gettext("Tie"),
}
OUTCOME_HINTS = {
    Outcome.NORMAL: lazy_gettext("opponent has 33 or more"),
    Outcome.SCHNEIDER: lazy_gettext("opponent took a trick, under 33"),
    Outcome.SCHWARZ: lazy_gettext("opponent took no trick"),
    Outcome.FAILED_CLOSE: lazy_gettext("opponent closed, missed 66"),
    Outcome.FAILED_CLOSE_NO_TRICK: lazy_gettext("you had no trick at closing"),
    Outcome.WRONG_CLAIM: lazy_gettext("opponent claimed 66 wrongly"),
    Outcome.WRONG_CLAIM_NO_TRICK: lazy_gettext("same, you had no trick yet"),
    Outcome.TIE: lazy_gettext("65:65: no points, the same dealer deals again"),
}
# The house rules' switches, as the settings and the match page name them.
RULE_CHOICES = {
    "failed_close": {
        scoring.FailedClose.BY_TRICKS: lazy_gettext("2, or 3 if you had no trick at closing"),
        scoring.FailedClose.ALWAYS_3: lazy_gettext("always 3"),
        scoring.FailedClose.ALWAYS_2: lazy_gettext("always 2"),
    },
    "wrong_claim": {
        scoring.WrongClaim.ALWAYS_2: lazy_gettext("always 2"),
        scoring.WrongClaim.BY_TRICKS: lazy_gettext("2, or 3 if you had no trick yet"),
    },
    "next_dealer": {
        scoring.NextDealer.WINNER: lazy_gettext("the winner of the deal"),
        scoring.NextDealer.ALTERNATE: lazy_gettext("each player in turn"),
    },
    "ties": {
        scoring.Ties.NOT_RECORDED: lazy_gettext("not recorded"),
        scoring.Ties.NO_POINTS: lazy_gettext("recorded: no points, same dealer"),
    },
}
RULE_NAMES = {
    "failed_close": lazy_gettext("Failed close pays"),
    "wrong_claim": lazy_gettext("Wrong 66 claim pays"),
    "next_dealer": lazy_gettext("Next deal is dealt by"),
    "ties": lazy_gettext("A tied deal (65:65) is"),
}
PRESET_NAMES = {
    "santase": lazy_gettext("Santase (to 11)"),
    "pagat66": lazy_gettext("Pagat 66 (to 7)"),
}


IMPORT_LIMIT_BYTES = 8 * 1024 * 1024  # years of matches; every other request stays at 64 KB


def init_app(app: Flask) -> None:
    """Make the game's words available to every template, imported macros included."""
    app.before_request(_allow_large_imports)
    app.jinja_env.globals.update(
        outcomes=list(Outcome),
        outcome_name=outcome_name,
        outcome_hint=outcome_hint,
        targets=TARGETS,
        languages=i18n.LANGUAGE_NAMES,
        rule_choices=RULE_CHOICES,
        rule_names=RULE_NAMES,
        preset_names=PRESET_NAMES,
    )


def _allow_large_imports() -> None:
    # Registered before CSRF protection reads the form, so the limit applies to it.
    if request.endpoint in {"web.import_preview", "web.import_confirm"}:
        request.max_content_length = IMPORT_LIMIT_BYTES
        request.max_form_memory_size = IMPORT_LIMIT_BYTES


def _translated(table: dict[Outcome, Any], key: str) -> dict[Outcome, str]:
    """``table`` in this request's language, translated once per request, not per use."""
    words: dict[Outcome, str] | None = g.get(key)
    if words is None:
        words = {outcome: str(text) for outcome, text in table.items()}
        setattr(g, key, words)
    return words


def outcome_name(outcome: Outcome) -> str:
    return _translated(OUTCOME_NAMES, "outcome_names")[outcome]


def outcome_hint(outcome: Outcome) -> str:
    return _translated(OUTCOME_HINTS, "outcome_hints")[outcome]


def _render_home(match: MatchView, error: str | None = None, status: int = 200) -> tuple[str, int]:
    # One fresh request id per rendered page: resubmitting this page's form
    # (double tap, back button, retry) records its deal once.
    request_id = secrets.token_urlsafe(16)
    page = render_template(
        "home.html", match=match, request_id=request_id, error=error, words=_script_words()
    )
    return page, status


def _script_words() -> dict[str, object]:
    """What the page's script says, in the page's language."""
    return {
        "outcomes": {outcome.value: outcome_name(outcome) for outcome in Outcome},
        "note": "+%(points)s %(name)s · %(outcome)s",
        "undo": gettext("Undo"),
        "undone": gettext("Deal %(number)s undone: %(note)s."),
        "wins": gettext("%(name)s wins the match %(score)s"),
        "newMatch": gettext("New match to %(target)s"),
        "started": gettext("New match to %(target)s started."),
        "targetNow": gettext("The match is now played to %(target)s."),
        "namesSaved": gettext("Names saved."),
        "correctDeal": gettext("Correct deal %(number)s"),
        "presets": {
            name: {
                "target": target,
                "rules": {switch: getattr(rules, switch).value for switch in RULE_CHOICES},
            }
            for name, (rules, target) in scoring.PRESETS.items()
        },
        "corrected": gettext("corrected"),
        "score": gettext("%(name1)s %(score1)s, %(name2)s %(score2)s"),
        "offline": gettext(
            "No connection to the server: nothing was recorded. Tap again once you are online."
        ),
        "failed": gettext("The server could not do that; nothing was changed."),
        "offlinePage": gettext(
            "You are offline: this is the last score this phone saw. "
            "Taps will not count until the connection is back."
        ),
    }


@bp.get("/")
def home() -> tuple[str, int]:
    """The current match, or a blank one before this browser has recorded anything."""
    match = matches.current_match(browser_key())
    return _render_home(match or matches.blank_match(i18n.default_names()))


@bp.post("/deals")
def record_deal() -> Response:
    """Record one deal for the player who receives the game points (nobody, for a tie)."""
    player = _form_receiver()  # the seat, or none for a tie
    outcome = scoring.parse_outcome(request.form.get("outcome"))
    match, recorded = matches.record_deal(
        ensure_browser_key(),
        _form_match_id(),
        player,
        outcome,
        request.form.get("request_id") or None,
        i18n.default_names(),
    )
    if recorded and match.deals:
        flash(deal_note(match, match.deals[-1]))
    return redirect(url_for("web.home"))


@bp.post("/undo")
def undo_last_deal() -> Response:
    """Take back the latest deal of the match on screen."""
    match_id = _form_match_id()
    owner = browser_key()
    if match_id is None or owner is None:
        raise matches.NothingToUndo(scoring.N_("There is no deal to undo yet."))
    match, removed = matches.undo_last_deal(owner, match_id, _form_number("deal_number"))
    flash(
        gettext(
            "Deal %(number)s undone: %(note)s.",
            number=removed.number,
            note=deal_note(match, removed),
        )
    )
    return redirect(url_for("web.home"))


@bp.post("/settings")
def change_match() -> Response:
    """Switch the target, rename the players or change the house rules of the match on screen."""
    target = _form_target()
    names = _form_names()
    rules = _form_rules()
    preset = _form_preset()
    if preset is not None:
        rules, target = preset
    first_dealer = _form_seat("first_dealer") if "first_dealer" in request.form else None
    if target is None and names is None and rules is None and first_dealer is None:
        abort(400, description=gettext("Choose a target or enter the players' names."))
    matches.change_match(
        ensure_browser_key(),
        _form_match_id(),
        target,
        names,
        i18n.default_names(),
        rules,
        first_dealer,
    )
    if rules is not None or first_dealer is not None:
        flash(
            gettext(
                "House rules saved. They count from the next deal; "
                "the deals recorded keep their points."
            )
        )
    if target is not None:
        flash(gettext("The match is now played to %(target)s.", target=target))
    if names is not None:
        flash(gettext("Names saved."))
    return redirect(url_for("web.home"))


@bp.post("/new")
def start_match() -> Response:
    """Start a new match with the same two players, to the target chosen."""
    target = _form_target() or scoring.DEFAULT_TARGET
    rules = _form_rules()
    preset = _form_preset()
    if preset is not None:
        rules, target = preset
    first_dealer = _form_seat("first_dealer") if "first_dealer" in request.form else None
    match, started = matches.start_match(
        ensure_browser_key(),
        target,
        replacing=_form_match_id(),
        defaults=i18n.default_names(),
        rules=rules,
        first_dealer=first_dealer,
    )
    if started:
        flash(gettext("New match to %(target)s started.", target=match.target))
    else:
        flash(gettext("A new match had already been started; here it is."))
    return redirect(url_for("web.home"))


@bp.post("/language")
def choose_language() -> Response:
    """Switch the language of every page on this device, and remember it for a year."""
    language = request.form.get("language")
    if language not in i18n.LANGUAGES:
        abort(400, description=gettext("Choose Bulgarian or English."))
    response = redirect(_local_path(request.form.get("next")))
    response.set_cookie(
        i18n.COOKIE,
        language,
        max_age=i18n.COOKIE_AGE,
        httponly=True,
        samesite="Lax",
        secure=request.is_secure,
    )
    return response


@bp.get("/matches")
def history() -> str:
    """This browser's matches, newest first."""
    page = request.args.get("page", "1")
    if not page.isdigit() or not page.isascii():
        abort(400, description=gettext("The page number must be a whole number from 1 up."))
    return render_template("history.html", page=matches.list_matches(browser_key(), int(page)))


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> str:
    """One match with all its deals and running totals."""
    match = matches.get_match(browser_key(), match_id)
    owner = browser_key()
    is_current = match.id == matches.current_match_id(owner)
    token = matches.share_token(owner, match_id)
    share_url = None if token is None else url_for("web.shared", token=token, _external=True)
    return render_template(
        "match.html",
        match=match,
        is_current=is_current,
        share_url=share_url,
        qr=None if share_url is None else qr_svg(share_url),
    )


@bp.get("/matches/<match_id:match_id>/deals/<number:number>")
def edit_deal(match_id: int, number: int) -> tuple[str, int]:
    """A form to correct or delete one past deal."""
    return _render_edit(matches.get_match(browser_key(), match_id), number)


@bp.post("/matches/<match_id:match_id>/deals/<number:number>")
def correct_deal(match_id: int, number: int) -> Response | tuple[str, int]:
    """Save the corrected player and outcome of a past deal."""
    owner = owner_of(match_id)
    try:
        match, deal = matches.correct_deal(
            owner, match_id, number, _form_receiver(), request.form.get("outcome")
        )
    except MatchNotFound:
        raise
    except RuleError as error:
        return _render_edit(matches.get_match(owner, match_id), number, error)
    flash(
        gettext("Deal %(number)s corrected: %(note)s.", number=number, note=deal_note(match, deal))
    )
    return redirect(_match_page(match))


@bp.post("/matches/<match_id:match_id>/deals/<number:number>/delete")
def delete_deal(match_id: int, number: int) -> Response | tuple[str, int]:
    """Delete a past deal; the later deals move up a number."""
    owner = owner_of(match_id)
    try:
        match, removed = matches.delete_deal(owner, match_id, number)
    except MatchNotFound:
        raise
    except RuleError as error:
        return _render_edit(matches.get_match(owner, match_id), number, error)
    flash(
        gettext("Deal %(number)s deleted: %(note)s.", number=number, note=deal_note(match, removed))
    )
    return redirect(_match_page(match))


def _render_edit(match: MatchView, number: int, error: RuleError | None = None) -> tuple[str, int]:
    deals = match.deals or ()
    if not 1 <= number <= len(deals):
        raise matches.DealNotFound.with_number(match.id, number)
    page = render_template(
        "deal.html",
        match=match,
        deal=deals[number - 1],
        error=None if error is None else i18n.explain(error),
        back=_match_page(match),
    )
    status = 200 if error is None else 409 if isinstance(error, RuleConflict) else 422
    return page, status


def _match_page(match: MatchView) -> str:
    """The counter for the browser's current match, the match's own page for older ones."""
    if match.id == matches.current_match_id(browser_key()):
        return url_for("web.home")
    return url_for("web.show_match", match_id=match.id)


@bp.get("/statistics")
def statistics_page() -> str:
    """Each pair of players' record in this browser, with a small chart of how deals were won."""
    return render_template("statistics.html", pairs=statistics.statistics(browser_key()))


@bp.post("/device-link")
def device_link() -> str:
    """A one-time link (and its QR code) that moves this browser's matches to another device."""
    token = devices.create_device_link(ensure_browser_key())
    url = url_for("web.continue_here", token=token, _external=True)
    return render_template("device.html", url=url, qr=qr_svg(url))


@bp.get("/continue/<token>")
def continue_here(token: str) -> tuple[str, int]:
    """Ask before taking over the other device's matches (a GET writes nothing)."""
    try:
        devices.check_device_link(token)
    except RuleError as error:
        return render_template("continue.html", token=None, error=i18n.explain(error)), 410
    return render_template("continue.html", token=token, error=None), 200


@bp.post("/continue/<token>")
def take_over(token: str) -> Response | tuple[str, int]:
    """Spend the link: this device now holds the other's key, and so its matches."""
    try:
        owner = devices.use_device_link(token)
    except RuleError as error:
        return render_template("continue.html", token=None, error=i18n.explain(error)), 410
    session[SESSION_KEY] = owner
    session.permanent = True
    flash(gettext("This device now continues the matches of the other one."))
    return redirect(url_for("web.home"))


@bp.post("/matches/<match_id:match_id>/share")
def share_match(match_id: int) -> Response:
    """Make (or keep) the read-only link to this match."""
    owner = owner_of(match_id)
    matches.share_match(owner, match_id)
    return redirect(url_for("web.show_match", match_id=match_id))


@bp.post("/matches/<match_id:match_id>/share/stop")
def stop_sharing(match_id: int) -> Response:
    """Revoke the read-only link: it shows nothing from now on."""
    owner = owner_of(match_id)
    matches.stop_sharing(owner, match_id)
    flash(gettext("The share link no longer works."))
    return redirect(url_for("web.show_match", match_id=match_id))


@bp.get("/shared/<token>")
def shared(token: str) -> str:
    """One match, read-only, for the other player's phone; it refreshes itself."""
    return render_template("shared.html", match=matches.shared_match(token))


def qr_svg(text: str) -> Markup:
    """``text`` as a QR code in inline SVG, drawn here: no image service is asked."""
    code = segno.make(text, error="m")
    return Markup(code.svg_inline(scale=4, dark="#000", light="#fff", omitsize=True))


@bp.get("/export.csv")
def export_csv() -> Response:
    """Every deal of this browser's matches, one row each, for a spreadsheet."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(archive.export_rows(browser_key()))
    return _download(buffer.getvalue(), "csv", "text/csv")


@bp.get("/export.json")
def export_json() -> Response:
    """This browser's matches, to import into another browser."""
    body = json.dumps(archive.export_document(browser_key()), ensure_ascii=False, indent=1)
    return _download(body, "json", "application/json")


def _download(body: str, extension: str, mimetype: str) -> Response:
    response = Response(body, mimetype=mimetype)
    name = f"santase-matches-{datetime.now(UTC):%Y-%m-%d}.{extension}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/import")
def import_form() -> str:
    """Choose an exported file to bring its matches into this browser."""
    return render_template("import.html", report=None, payload=None, error=None)


@bp.post("/import")
def import_preview() -> tuple[str, int]:
    """Check the file and show what it would add; nothing is stored yet."""
    upload = request.files.get("archive")
    try:
        if upload is None or not upload.filename:
            raise RuleError(scoring.N_("Choose the exported file first."))
        raw = upload.read()
        checked = archive.read_document(raw)
    except RuleError as error:
        page = render_template("import.html", report=None, payload=None, error=i18n.explain(error))
        return page, 422
    report = archive.preview(browser_key(), checked)
    page = render_template("import.html", report=report, payload=raw.decode("utf-8"), error=None)
    return page, 200


@bp.post("/import/confirm")
def import_confirm() -> Response | tuple[str, int]:
    """Store the previewed matches; those already here are skipped."""
    try:
        checked = archive.read_document(request.form.get("payload", ""))
    except RuleError as error:
        page = render_template("import.html", report=None, payload=None, error=i18n.explain(error))
        return page, 422
    report = archive.import_matches(ensure_browser_key(), checked)
    flash(
        gettext(
            "Imported %(new)s matches; %(present)s were already here.",
            new=len(report.new),
            present=len(report.present),
        )
    )
    return redirect(url_for("web.history"))


@bp.get("/robots.txt")
def robots() -> Response:
    """Crawlers have nothing to index here but the rules."""
    return Response("User-agent: *\nAllow: /rules\nDisallow: /\n", mimetype="text/plain")


@bp.get("/rules")
def rules() -> str:
    """How Santase is scored, in the counter's words."""
    return render_template(f"rules/{i18n.select_language()}.html")


def deal_note(match: MatchView, deal: DealView) -> str:
    """Like "+2 Иван · Schneider": what a deal gave whom ("Tie" for a tie)."""
    if deal.player is None:
        return outcome_name(deal.outcome)
    name = match.players[deal.player - 1].name
    return f"+{deal.points} {name} · {outcome_name(deal.outcome)}"


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """What a phone needs to add the counter to its home screen."""
    body = {
        "name": gettext("Santase Counter"),
        "short_name": gettext("Santase"),
        "description": gettext("Keep the score of Santase (66) at the card table."),
        "lang": i18n.select_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#f6f4ef",
        "theme_color": "#1f6f43",
        "icons": [
            {
                "src": url_for("static", filename=f"icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "any maskable",
            }
            for size in (192, 512)
        ]
        + [
            {"src": url_for("static", filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"}
        ],
    }
    return Response(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so that it may look after every page."""
    response = current_app.send_static_file("sw.js")
    response.headers["Cache-Control"] = "no-cache"
    return response


def _local_path(target: str | None) -> str:
    """Where to go back to: a path on this site only, never another site."""
    if not target or not target.startswith("/") or target.startswith("//"):
        return url_for("web.home")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or "\\" in target:
        return url_for("web.home")
    return target


def _form_match_id() -> int | None:
    try:
        return _form_number("match_id")
    except RuleError:
        raise MatchNotFound(scoring.N_("There is no such match in this browser.")) from None


def _form_number(field: str) -> int | None:
    """A positive whole number from the form, or None when the field is absent or empty."""
    raw = request.form.get(field, "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_ID:
        raise RuleError(scoring.N_("%(field)s must be a whole number from 1 up."), field=field)
    return int(raw)


def _form_seat(field: str = "player") -> int:
    raw = request.form.get(field, "")
    seat: object = int(raw) if raw in ("1", "2") else raw
    return scoring.parse_seat(seat)


def _form_receiver() -> int | None:
    """The seat that receives the points of a deal in the form; a tie has none."""
    return None if request.form.get("outcome") == Outcome.TIE.value else _form_seat()


def _form_target() -> int | None:
    raw = request.form.get("target")
    if raw is None:
        return None
    value: object = int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw
    return scoring.parse_target(value)


def _form_preset() -> tuple[dict[str, str], int] | None:
    """The rules and target of the preset chosen in the form, if one was."""
    name = request.form.get("preset", "")
    if not name:
        return None
    if name not in scoring.PRESETS:
        abort(400, description=gettext("There is no such set of house rules."))
    rules, target = scoring.PRESETS[name]
    return {switch: getattr(rules, switch).value for switch in RULE_CHOICES}, target


def _form_rules() -> dict[str, str] | None:
    chosen = {name: request.form[name] for name in RULE_CHOICES if name in request.form}
    return chosen or None


def _form_names() -> tuple[str, str] | None:
    if "player1" not in request.form and "player2" not in request.form:
        return None
    return scoring.parse_names(
        request.form.get("player1"), request.form.get("player2"), i18n.default_names()
    )


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
    shown = shown or matches.current_match(owner) or matches.blank_match(i18n.default_names())
    return _render_home(shown, error=i18n.explain(error), status=status)


@bp.errorhandler(MatchNotFound)
def _not_found(error: MatchNotFound) -> tuple[Response, int] | tuple[str, int]:
    return error_response(i18n.explain(error), 404)

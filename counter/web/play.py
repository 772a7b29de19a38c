"""The counter: the match on the table, its deal buttons and its settings, as plain forms.

Every form posts, redirects and gets, so no JavaScript is needed; the page's
script (static/counter.js) takes over the same forms when it runs.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable, Hashable
from typing import Any

from flask import (
    Blueprint,
    abort,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import force_locale, gettext
from markupsafe import Markup
from werkzeug.wrappers import Response

from counter.game import rulebook
from counter.game.refusals import N_, Malformed, Refusal
from counter.game.scoring import TargetWouldReopenMatch
from counter.services import deals, matches, queries
from counter.services.devices import Holder
from counter.services.read_models import MatchView, blank_match
from counter.storage.transactions import one_snapshot
from counter.web import browser, forms, i18n, kept_pages, limits, shapes, site, words
from counter.web.browser import browser_key, ensure_device, this_device
from counter.web.errors import shows_again
from counter.web.forms import confirm_page

bp = limits.writes(Blueprint("play", __name__))


def shown_match() -> MatchView:
    """The match on the counter: the one this browser played last, or a blank one."""
    current = matches.current_match(owner=browser_key(), device=this_device())
    return current or blank_match()


REQUEST_ID, NEW_UID = Markup("<request-id>"), Markup("<new-uid>")  # see kept_pages


def render_home(match: MatchView | None = None, error: Refusal | None = None) -> str:
    """The counter page, with the refusal's message when a form was refused."""
    match = match or _match_of_form() or shown_match()
    return _home_page(None, lambda: _render_home(match, error))


def _home_page(shows: Hashable | None, render: Callable[[], str]) -> str:
    """The page ``render`` makes, kept under ``shows`` (what it shows; None: not kept)
    with the language and display it is in, unless it has a message of its own
    (counter/web/kept_pages.py): a reload, another phone at the table, gets it again."""
    return kept_pages.page(_home_key(shows), render, _home_values())


def _kept_home(shows: Hashable) -> str | None:
    """The counter page kept for what it shows, if one is."""
    return kept_pages.kept(_home_key(shows), _home_values())


def _home_key(shows: Hashable | None) -> Hashable | None:
    """What a counter page showing ``shows`` is kept under: also its language, display
    and kind of host; None (not kept) with a message of this request on it."""
    if shows is None or "_flashes" in session or request.method != "GET":
        return None
    looks = (i18n.current_language(), *site.display().values(), plain_http())
    return ("home", shows, request.script_root, request.full_path, *looks)


def _home_values() -> dict[str, str]:
    # One fresh id per page: resubmitting its forms (double tap, back button, retry)
    # records its deal, or starts its new match, once.
    return {REQUEST_ID: secrets.token_urlsafe(16), NEW_UID: uuid.uuid4().hex}


def _render_home(match: MatchView, error: Refusal | None) -> str:
    state = {
        "match": _for_the_script(match),
        "rules": rulebook.for_the_script(),  # the rules as data for the script
    }
    return render_template(
        "home.html",
        match=match,
        request_id=REQUEST_ID,
        new_uid=NEW_UID,
        error=None if error is None else words.explain(error),
        words=words.script_words(),
        state=state,
        plain_http=plain_http(),
    )


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def plain_http() -> bool:
    """Whether a browser takes this page for no secure context, as it does a phone at
    ``http://<the computer's address>`` on the home Wi-Fi: plain http at a name that is
    not this computer's own. There it cannot install the counter or keep it for offline use.
    """
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    return request.scheme == "http" and not (
        host in LOOPBACK_NAMES or host.endswith(".localhost") or host.startswith("127.")
    )


# What the page's script does not read of a match: the times, and the points of the
# match's rules (it has every rule as data).
NOT_FOR_THE_SCRIPT = ("table", "created_at", "finished_at", "played_at")


def _for_the_script(match: MatchView) -> dict[str, Any]:
    shape = shapes.match_json(match)
    for key in NOT_FOR_THE_SCRIPT:
        del shape[key]
    for deal in shape["deals"]:
        del deal["created_at"]
        # What most deals say by saying nothing: not corrected, recorded without a request id.
        for key, unsaid in (("corrected", False), ("request_id", None)):
            if deal[key] is unsaid:
                del deal[key]
    return shape


def _match_of_form() -> MatchView | None:
    """The match the refused form was about, if it is this browser's."""
    try:
        match_id = forms.match_id()
    except Refusal:
        return None
    if match_id is None:
        return None
    try:
        return matches.get_match(owner=browser_key(), match_id=match_id)
    except queries.MatchNotFound:
        return None


def _refused_form(error: Refusal) -> str:
    return render_home(error=error)


@bp.get("/")
def home() -> str:
    """The current match, or a blank one before this browser has recorded anything.

    Rendered again only when the match changed: one light query says which match it
    is and whether it changed (``matches.shown_version``), and a page kept under that
    is sent again. Otherwise the page is rendered from the match as one snapshot shows
    it, with its version read in that snapshot too, never another, so it is kept only
    under what it shows."""
    device, version = _device_and_version()
    owner = None if device is None else device.owner
    kept = _kept_home(("blank",) if version is None else version)
    if kept is not None:
        return kept
    one_snapshot()
    version = matches.shown_version(owner=owner, device=device, snapshot=True)
    try:
        return _home_page(
            ("blank",) if version is None else version,
            lambda: _render_home(
                blank_match()
                if version is None
                else matches.get_match(owner=owner, match_id=version[0]),
                None,
            ),
        )
    except queries.MatchNotFound:  # deleted or handed over a moment ago: as it is now
        return render_home(shown_match())


def _device_and_version() -> tuple[Holder | None, tuple[Any, ...] | None]:
    """The device asking and the version of the match it shows: in one read when its
    cookie names it (the device may note, in a write of its own, that it was seen)."""
    token = browser.device_token()
    if token is None:
        device = this_device()
        owner = None if device is None else device.owner
        return device, matches.shown_version(owner=owner, device=device)
    device, version = matches.shown_on(token=token)
    browser.found(device)
    return device, version


@bp.get("/words/<language>.json")
def later_words(language: str) -> Response:
    """What the counter's script says only sometimes (settings, refusals), in ``language``
    (the page's): loaded with the first use. The language is in the address, so that a
    kept copy (static/sw.js) never answers in the other one."""
    if language not in i18n.LANGUAGES:
        abort(404)
    with force_locale(language):
        g.pop("catalogue", None)  # i18n keeps the request's own catalogue
        # With the counter a browser sees before its first match: what the page shows once
        # its match is gone (static/outbox.js), which it learns only from the server.
        response = jsonify({**words.later_words(), "blank": _for_the_script(blank_match())})
    g.pop("catalogue", None)
    response.cache_control.no_cache = True
    return response


@bp.post("/deals")
@shows_again(_refused_form)
def record_deal() -> Response:
    """Record one deal for the player who receives the game points (nobody, for a tie)."""
    match_id = forms.match_id()
    outcome = forms.outcome()
    seat, request_id = forms.receiver(), forms.request_id()
    device = ensure_device()
    match, recorded = deals.record_deal(
        owner=device.owner,
        device=device,
        match_id=match_id,
        seat=seat,
        outcome=outcome,
        request_id=request_id,
    )
    if recorded and match.deals:
        deal = match.deals[-1]
        flash(words.deal_note(match.names, deal.player, deal.points, deal.outcome))
    return redirect(url_for("play.home"))


@bp.post("/undo")
@shows_again(_refused_form)
def undo_last_deal() -> Response:
    """Take back the latest deal of the match on screen."""
    match_id = forms.match_id()
    owner = browser_key()
    if match_id is None or owner is None:
        raise deals.NothingToUndo(N_("There is no deal to undo yet."))
    match, removed = deals.undo_last_deal(
        owner=owner, match_id=match_id, number=forms.number("deal_number"), device=this_device()
    )
    if removed is not None:
        note = words.deal_note(match.names, removed.player, removed.points, removed.outcome)
        flash(gettext("Deal %(number)s undone: %(note)s.", number=removed.number, note=note))
    return redirect(url_for("play.home"))


@bp.post("/settings")
@shows_again(_refused_form)
def change_match() -> Response | str:
    """Switch the target, rename the players, or change the house rules or the first dealer."""
    names, match_id, preset = forms.names(), forms.match_id(), forms.preset()
    target, rules, first_dealer = forms.target(), forms.rules(), forms.first_dealer()
    if all(value is None for value in (target, names, rules, preset, first_dealer)):
        raise Malformed(N_("Choose a target, the players' names or the house rules."))
    device = ensure_device()
    try:
        match = matches.change_match(
            owner=device.owner,
            device=device,
            match_id=match_id,
            target=target,
            names=names,
            rules=rules,
            preset=preset,
            first_dealer=first_dealer,
            play_on=forms.confirmed(),
        )
    except TargetWouldReopenMatch as refusal:
        return confirm_page(
            title=gettext("Play on to %(target)s?", target=target),
            message=i18n.explain(refusal),
            action=url_for("play.change_match"),
            fields={"match_id": str(match_id or ""), "target": str(target)},
            button=gettext("Play on to %(target)s", target=target),
        )
    if names is not None:
        flash(gettext("Names saved: %(first)s and %(second)s.", first=names[0], second=names[1]))
    if target is not None or preset is not None:
        flash(gettext("The match is now played to %(target)s.", target=match.target))
    if rules is not None or preset is not None:
        flash(words.rules_saved(match.rules))
    if first_dealer is not None:
        flash(gettext("%(name)s deals first.", name=match.players[match.first_dealer - 1].name))
    return redirect(url_for("play.home"))


@bp.post("/new")
@shows_again(_refused_form)
def start_match() -> Response | str:
    """Start a new match with the same two players; asks first while one is open."""
    device = ensure_device()
    owner = device.owner
    open_match = matches.current_match(owner=owner, device=device)
    if (
        open_match is not None
        and open_match.deals
        and not open_match.finished
        and not forms.confirmed()
    ):
        return confirm_page(
            title=gettext("Start a new match?"),
            message=gettext(
                "The match %(names)s, %(score)s, is not finished. It stays in the history, "
                "where you can continue it later.",
                names=" – ".join(open_match.names),
                score=open_match.score,
            ),
            action=url_for("play.start_match"),
            fields=forms.posted_fields(),
            button=gettext("Start a new match"),
        )
    names, uid, preset, rules = forms.names(), forms.uid(), forms.preset(), forms.rules()
    target = None if preset else forms.target()  # a preset comes with its target
    first_dealer = forms.first_dealer()
    match, started = matches.start_match(
        owner=owner,
        device=device,
        uid=uid,
        target=target,
        names=names,
        rules=rules,
        preset=preset,
        first_dealer=first_dealer,
    )
    if started:
        flash(gettext("New match to %(target)s started.", target=match.target))
    else:
        flash(gettext("This new match was started already; here it is."))
    return redirect(url_for("play.home"))

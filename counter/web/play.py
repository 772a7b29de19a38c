"""The counter page and its forms (post, redirect, get); static/counter.js takes them over."""

import contextlib
import secrets
import uuid
from typing import Any

from flask import Blueprint, flash, jsonify, redirect, render_template, request, url_for
from flask_babel import force_locale, gettext
from werkzeug.wrappers import Response

from counter.game import rulebook
from counter.game.games import GAMES
from counter.game.match import NothingToUndo
from counter.game.refusals import N_, Malformed, Refusal
from counter.game.scoring import TargetWouldReopenMatch
from counter.services import deals, matches
from counter.services.read_models import MatchView, blank_match
from counter.storage.repository import MatchNotFound
from counter.web import forms, i18n, limits, shapes, words
from counter.web.browser import (
    counter_of,
    current_owner,
    ensure_device,
    owner_of,
    table_of,
    this_device,
)
from counter.web.errors import shows_again

bp = limits.writes(Blueprint("play", __name__))


@bp.get("/", endpoint="home")
def render_home(match: MatchView | None = None, error: Refusal | None = None) -> str:
    match = (
        match
        or _match_of_form()
        or matches.current_match(owner=current_owner(), device=this_device())
        or blank_match(i18n.default_names())
    )
    return render_template(
        "home.html",
        match=match,
        # Fresh per page: its form resubmitted (double tap, back, retry) records once.
        request_id=secrets.token_urlsafe(16),
        new_uid=uuid.uuid4().hex,
        error=None if error is None else words.explain(error),
        words=words.script_words(),
        state={"match": _for_the_script(match), "rules": rulebook.for_the_script()},
        plain_http=plain_http(),
        table=table_of(match.id),  # a club evening's: its next match is the host's next round
    )


def plain_http() -> bool:
    """Whether a browser takes this page for no secure context, as a phone on the Wi-Fi does."""
    host = request.host if request.host.endswith("]") else request.host.rsplit(":", 1)[0]
    local = host in ("localhost", "[::1]") or host.endswith(".localhost") or host.startswith("127.")
    return request.scheme == "http" and not local


# Never shown, or worked out by the page's fold (static/standing.js): finished, leader, marks.
LEFT_OUT = {"table", "created_at", "finished_at", "played_at", "finished", "leader", "marks"}
UNSAID = {"corrected": False, "request_id": None}  # a deal's fields left at their default


def _for_the_script(match: MatchView) -> dict[str, Any]:
    shape = {k: v for k, v in shapes.match_json(match).items() if _said(k, v)}
    shape["deals"] = [{k: v for k, v in deal.items() if _said(k, v)} for deal in shape["deals"]]
    return shape


def _said(key: str, value: object) -> bool:
    return key not in LEFT_OUT and not (key in UNSAID and value is UNSAID[key])


def _match_of_form() -> MatchView | None:
    with contextlib.suppress(Refusal):  # a form about no match of this browser's
        if (match_id := forms.match_id()) is not None:
            return matches.get_match(owner=owner_of(match_id, reading=True), match_id=match_id)
    return None


@bp.get(f"/words/<any({', '.join(i18n.LANGUAGES)}):language>.json")
def later_words(language: str) -> Response:
    """The language is in the address so that static/sw.js's copy is never the other's."""
    with force_locale(language):
        # What the page shows once its match is gone (static/outbox.js).
        blank = _for_the_script(blank_match(i18n.default_names()))
        response = jsonify({**words.later_words(), "blank": blank})
    response.cache_control.no_cache = True
    return response


@bp.post("/deals")
@shows_again(render_home)
def record_deal() -> Response:
    match_id = forms.match_id()
    outcome = forms.outcome()
    seat, request_id = forms.receiver(), forms.request_id()
    # A table link's match refused before this browser is given a key for nothing.
    owner = None if match_id is None else owner_of(match_id)
    device = ensure_device()
    match, recorded = deals.record_deal(
        owner=owner or device.owner,
        device=device,
        match_id=match_id,
        seat=seat,
        outcome=outcome,
        request_id=request_id,
        default_names=i18n.default_names(),
    )
    if recorded and match.deals:
        flash(words.note_of(match, match.deals[-1]))
    return redirect(counter_of(match.id))


@bp.post("/undo")
@shows_again(render_home)
def undo_last_deal() -> Response:
    match_id = forms.match_id()
    if match_id is None:
        raise NothingToUndo(N_("There is no deal to undo yet."))
    try:
        owner = owner_of(match_id)
    except MatchNotFound:  # a browser without a key has recorded nothing
        raise NothingToUndo(N_("There is no deal to undo yet.")) from None
    match, removed = deals.undo_last_deal(
        owner=owner, match_id=match_id, number=forms.number("deal_number"), device=this_device()
    )
    if removed is not None:
        flash(gettext("Undone: %(note)s.", note=words.note_of(match, removed)))
    return redirect(counter_of(match.id))


@bp.post("/settings")
@shows_again(render_home)
def change_match() -> Response | str:
    names, match_id, preset = forms.names(), forms.match_id(), forms.preset()
    target, rules, first_dealer = forms.target(), forms.rules(), forms.first_dealer()
    if all(value is None for value in (target, names, rules, preset, first_dealer)):
        raise Malformed(N_("Choose a target, the players' names or the house rules."))
    owner = None if match_id is None else owner_of(match_id)  # as for a deal
    device = ensure_device()
    owner = owner or device.owner
    if preset is not None and rules is not None and match_id is not None:
        # The form sends every rule's select: those left as the match had them give way to
        # the preset, a rule chosen otherwise beside it is kept.
        now = matches.get_match(owner=owner, match_id=match_id).rules.as_dict()
        rules = {name: choice for name, choice in rules.items() if now.get(name) != choice}
    try:
        match = matches.change_match(
            owner=owner,
            device=device,
            match_id=match_id,
            target=target,
            names=names,
            rules=rules,
            preset=preset,
            first_dealer=first_dealer,
            play_on=forms.confirmed(),
            default_names=i18n.default_names(),
        )
    except TargetWouldReopenMatch as refusal:
        return forms.confirm_page(
            title=gettext("Play on to %(target)s?", target=target),
            message=i18n.explain(refusal),
            fields={"match_id": str(match_id or ""), "target": str(target)},
            button=gettext("Play on to %(target)s", target=target),
        )
    if names is not None:
        first, second = (player.name for player in match.players)  # an emptied name's default
        flash(gettext("Names saved: %(first)s and %(second)s.", first=first, second=second))
    if target is not None or preset is not None:
        flash(gettext("The match is now played to %(target)s.", target=match.target))
    if rules is not None or preset is not None:
        flash(
            gettext(
                "House rules saved (%(rules)s). They count from the next deal; "
                "the deals recorded keep their points.",
                rules=words.rules_summary(match.rules, match.game.name),
            )
        )
    if first_dealer is not None:
        flash(gettext("%(name)s deals first.", name=match.players[match.first_dealer - 1].name))
    return redirect(counter_of(match.id))


@bp.post("/new")
@shows_again(render_home)
def start_match() -> Response | str:
    """Start a new match with the same two players; asks first while one is open."""
    names, uid, preset, rules = forms.names(), forms.uid(), forms.preset(), forms.rules()
    target = None if preset else forms.target()  # a preset comes with its target
    first_dealer, game = forms.first_dealer(), forms.game()
    if game is not None and target not in GAMES[game].targets:
        target = None  # the form offers every game's targets; this game has its own
    device = ensure_device()
    open_match = matches.current_match(owner=device.owner, device=device)
    if open_match and open_match.deals and not open_match.finished and not forms.confirmed():
        return forms.confirm_page(
            title=gettext("Start a new match?"),
            message=gettext(
                "The match %(names)s, %(score)s, is not finished. It stays in the history, "
                "where you can continue it later.",
                names=" – ".join(open_match.names),
                score=open_match.score,
            ),
            button=gettext("Start a new match"),
        )
    match, started = matches.start_match(
        owner=device.owner,
        device=device,
        uid=uid,
        target=target,
        names=names,
        rules=rules,
        preset=preset,
        first_dealer=first_dealer,
        default_names=i18n.default_names(),
        game=game,
    )
    if started:
        flash(words.match_word("startedTo", match.game.name, target=match.target))
    else:
        flash(gettext("This new match was started already; here it is."))
    return redirect(url_for("play.home"))

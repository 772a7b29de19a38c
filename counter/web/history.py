"""This browser's matches: the history, one match, corrections, continuing and deleting."""

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext, ngettext
from werkzeug.wrappers import Response

from counter.game import parsing
from counter.game.match import DealNotFound
from counter.game.refusals import Refusal
from counter.services import deals, matches, sharing
from counter.services.read_models import MatchView
from counter.web import forms, i18n, limits, words
from counter.web.browser import counter_of, current_owner, own_key, owner_of, this_device
from counter.web.errors import shows_again, status_of
from counter.web.qr import qr_svg

bp = limits.writes(Blueprint("history", __name__))


@bp.get("/matches")
def history() -> str:
    # Page 0, or one past the last, is refused by the history in its own words.
    page = parsing.number(request.args.get("page", "1"), "page", least=0)
    listed = matches.list_matches(owner=current_owner(), page=page)
    current_id = matches.shown_id(owner=current_owner(), device=this_device())
    return render_template("history.html", page=listed, current_id=current_id)


@bp.get("/matches/<match_id:match_id>")
def show_match(match_id: int) -> str:
    owner = current_owner()  # the share link is the host's own, even at a table
    match = matches.get_match(owner=owner_of(match_id, reading=True), match_id=match_id)
    token = sharing.share_token(owner=owner, match_id=match_id)
    share_url = None if token is None else url_for("sharing.shared", token=token, _external=True)
    return render_template(
        "match.html",
        match=match,
        is_current=match.id == matches.shown_id(owner=owner, device=this_device()),
        share_url=share_url,
        qr=None if share_url is None else qr_svg(share_url),
    )


def described(match: MatchView) -> str:
    """How a confirmation names a match: "Иван - Мария 8:5, 14 deals"."""
    return str(
        ngettext(
            "%(names)s %(score)s, %(num)s deal",
            "%(names)s %(score)s, %(num)s deals",
            match.deal_count,
            names=" – ".join(match.names),
            score=match.score,
        )
    )


@bp.post("/matches/<match_id:match_id>/resume")
def resume_match(match_id: int) -> Response:
    match = matches.resume_match(owner=own_key(match_id), match_id=match_id, device=this_device())
    flash(gettext("Back to %(match)s.", match=described(match)))
    return redirect(url_for("play.home"))


@bp.post("/matches/<match_id:match_id>/delete")
def delete_match(match_id: int) -> Response | str:
    owner = owner_of(match_id)
    if not forms.confirmed():
        match = matches.get_match(owner=owner, match_id=match_id)
        return forms.confirm_page(
            title=gettext("Delete this match?"),
            message=gettext(
                "%(match)s will be deleted for good, with its deals; games and "
                "statistics will no longer count it, and its share link stops working.",
                match=described(match),
            ),
            button=gettext("Delete the match"),
            back=url_for("history.show_match", match_id=match_id),
            danger=True,
        )
    deleted = matches.delete_match(owner=owner, match_id=match_id)
    flash(gettext("Deleted: %(match)s.", match=described(deleted)))
    return redirect(url_for("history.history"))


def _edit_again(error: Refusal) -> str:
    try:
        return edit_deal(**(request.view_args or {}), error=error)
    except DealNotFound:  # taken back by another phone since its page was opened
        return render_template("error.html", message=i18n.explain(error), status=status_of(error))


@bp.get("/matches/<match_id:match_id>/deals/<number:number>")
def edit_deal(match_id: int, number: int, error: Refusal | None = None) -> str:
    owner = owner_of(match_id, reading=True)
    match, deal = deals.find_deal(owner=owner, match_id=match_id, number=number)
    return render_template(
        "deal.html",
        match=match,
        deal=deal,
        error=None if error is None else i18n.explain(error),
        back=_back_to(match),
    )


def _back_to(match: MatchView) -> str:
    counter = counter_of(match.id)
    table = counter != url_for("play.home")  # a table link's
    if table or match.id == matches.shown_id(owner=current_owner(), device=this_device()):
        return counter
    return url_for("history.show_match", match_id=match.id)


@bp.post("/matches/<match_id:match_id>/deals/<number:number>")
@shows_again(_edit_again)
def correct_deal(match_id: int, number: int) -> Response:
    owner = owner_of(match_id)
    match, deal = deals.correct_deal(
        owner=owner,
        match_id=match_id,
        number=number,
        seat=forms.receiver(),
        outcome=forms.corrected_outcome(),
        recorded_at=forms.recorded_at(),
    )
    note = words.note_of(match, deal)
    flash(gettext("Deal %(number)s corrected: %(note)s.", number=number, note=note))
    return redirect(_back_to(match))


@bp.post("/matches/<match_id:match_id>/deals/<number:number>/delete")
@shows_again(_edit_again)
def delete_deal(match_id: int, number: int) -> Response | str:
    owner = owner_of(match_id)
    if not forms.confirmed():
        match, deal = deals.find_deal(
            owner=owner, match_id=match_id, number=number, recorded_at=forms.recorded_at()
        )
        return forms.confirm_page(
            title=gettext("Delete deal %(number)s?", number=number),
            message=gettext(
                "Deal %(number)s (%(note)s) will be deleted for good; the deals after it "
                "move up a number.",
                number=number,
                note=words.note_of(match, deal),
            ),
            button=gettext("Delete the deal"),
            back=url_for("history.edit_deal", match_id=match_id, number=number),
            danger=True,
        )
    match, removed = deals.delete_deal(
        owner=owner, match_id=match_id, number=number, recorded_at=forms.recorded_at()
    )
    note = words.note_of(match, removed)
    flash(gettext("Deal %(number)s deleted: %(note)s.", number=number, note=note))
    return redirect(_back_to(match))

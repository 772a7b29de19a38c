"""Read-only links that show one match, live, on the other player's phone."""

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response

from counter.services import sharing
from counter.web import limits, live
from counter.web.browser import own_key
from counter.web.shapes import shared_json

bp = limits.writes(Blueprint("sharing", __name__))


@bp.post("/matches/<match_id:match_id>/share")
@limits.links
def share_match(match_id: int) -> Response:
    sharing.share_match(owner=own_key(match_id), match_id=match_id)
    return redirect(url_for("history.show_match", match_id=match_id))


@bp.post("/matches/<match_id:match_id>/share/stop")
def stop_sharing(match_id: int) -> Response:
    sharing.stop_sharing(owner=own_key(match_id), match_id=match_id)
    flash(gettext("The share link no longer works."))
    return redirect(url_for("history.show_match", match_id=match_id))


@bp.get("/shared/<token>")
def shared(token: str) -> str:
    """One match, read-only; it reloads at any event but the one of this very state."""
    match = sharing.shared_match(token=token)
    return render_template("shared.html", match=match, event=live.digest(shared_json(match)))

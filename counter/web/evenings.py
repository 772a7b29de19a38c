"""Club evenings: the host's pages, the room's live board, and each table's link to its match."""

import secrets
from functools import partial
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, session, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as ResponseBase

from counter.game.evening import Format
from counter.game.refusals import N_, NotFound, Refusal
from counter.game.scoring import DEFAULT_TARGET
from counter.services import evenings
from counter.storage import push
from counter.web import forms, i18n, limits, live, play
from counter.web.browser import SESSION_TABLES, current_owner, ensure_owner
from counter.web.errors import shows_again
from counter.web.export_import import download, write_csv
from counter.web.qr import qr_svg

bp = limits.writes(Blueprint("evenings", __name__))
FORMATS = {
    Format.ROUND_ROBIN: N_("Everyone plays everyone"),
    Format.SWISS: N_("Rounds with fresh pairings (Swiss)"),
    Format.LIVES: N_("Three lives: out after three lost matches"),
}
CSV_HEADS = (N_("place"), N_("player"), N_("played"), N_("won"), N_("difference"), N_("lives"))


@bp.get("/evenings")
def list_evenings(error: Refusal | None = None) -> str:
    return render_template(
        "evenings.html",
        evenings=evenings.list_evenings(owner=current_owner()),
        formats={fmt: gettext(label) for fmt, label in FORMATS.items()},
        default_target=DEFAULT_TARGET,
        error=None if error is None else i18n.explain(error),
    )


@bp.post("/evenings")
@shows_again(list_evenings)
def create_evening() -> ResponseBase:
    evening_id = evenings.create_evening(
        name=request.form.get("name", ""),
        fmt=request.form.get("format", ""),
        names=request.form.get("players", "").splitlines(),
        rounds=forms.number("rounds") or 0,
        target=forms.target() or DEFAULT_TARGET,
        preset=request.form.get("preset", ""),
        owner=ensure_owner(),  # last: a form refused while read makes no device
    )
    return _back(evening_id)


@bp.get("/evenings/<id:evening_id>")
def show(evening_id: int, error: Refusal | None = None) -> str:
    shown = evenings.get_evening(owner=current_owner(), evening_id=evening_id)
    return render_template(
        "evening.html",
        evening=shown,
        qr_svg=qr_svg,
        format_name=gettext(FORMATS[shown.format]),
        error=None if error is None else i18n.explain(error),
    )


def _again(error: Refusal) -> str:
    return show(int((request.view_args or {})["evening_id"]), error)


def _back(evening_id: int) -> ResponseBase:
    return redirect(url_for("evenings.show", evening_id=evening_id))


@bp.post("/evenings/<id:evening_id>/rounds")
@shows_again(_again)
def start_round(evening_id: int) -> ResponseBase:
    number = forms.number("round") or 0
    evenings.start_round(owner=ensure_owner(), evening_id=evening_id, number=number)
    return _back(evening_id)


@bp.post("/evenings/<id:evening_id>/players")
@shows_again(_again)
def add_player(evening_id: int) -> ResponseBase:
    name = request.form.get("name", "")
    evenings.add_player(owner=ensure_owner(), evening_id=evening_id, name=name)
    return _back(evening_id)


@bp.post("/evenings/<id:evening_id>/players/<id:player_id>/withdraw")
@shows_again(_again)
def withdraw(evening_id: int, player_id: int) -> ResponseBase:
    evenings.withdraw(owner=ensure_owner(), evening_id=evening_id, player_id=player_id)
    return _back(evening_id)


@bp.post("/evenings/<id:evening_id>/tables/<id:table_id>/award")
@shows_again(_again)
def award(evening_id: int, table_id: int) -> ResponseBase:
    player_id = forms.number("player") or 0
    owner = ensure_owner()
    evenings.award(owner=owner, evening_id=evening_id, table_id=table_id, player_id=player_id)
    return _back(evening_id)


@bp.post("/evenings/<id:evening_id>/end")
@shows_again(_again)
def end(evening_id: int) -> ResponseBase | str:
    if not forms.confirmed():
        shown = evenings.get_evening(owner=current_owner(), evening_id=evening_id)
        if not shown.ended:  # ended already: end_evening says so
            return _confirm_end(shown)
    evenings.end_evening(owner=ensure_owner(), evening_id=evening_id)
    return _back(evening_id)


def _confirm_end(shown: evenings.EveningView) -> str:
    said = [] if shown.done else [gettext("Not every round has been played.")]
    said += [
        gettext("The standings stay as they are, and the tables record nothing more."),
        gettext("An ended evening cannot be reopened."),
    ]
    return forms.confirm_page(
        title=gettext("End the evening?"),
        message=" ".join(said),
        button=gettext("End the evening"),
        danger=True,
        back=url_for("evenings.show", evening_id=shown.id),
    )


@bp.get("/evenings/<id:evening_id>/standings")
def standings(evening_id: int) -> str:
    shown = evenings.get_evening(owner=current_owner(), evening_id=evening_id)
    return render_template("evening_print.html", evening=shown)


@bp.get("/evenings/<id:evening_id>/standings.csv")
@limits.heavy_reads
def standings_csv(evening_id: int) -> ResponseBase:
    shown = evenings.get_evening(owner=current_owner(), evening_id=evening_id)
    rows: list[list[object]] = [[gettext(head) for head in CSV_HEADS]]
    for row in shown.standings:
        lives = "" if row.lives is None else row.lives
        rows.append([row.place, row.player.name, row.played, row.won, row.difference, lives])
    csv = write_csv(rows)
    return download(csv, extension="csv", mimetype="text/csv", stem=f"evening-{shown.id}")


@bp.get("/board/<token>")
def board(token: str) -> str:
    return render_template("board.html", evening=evenings.board(token=token))


@bp.get("/api/board/<token>/events")
def board_events(token: str) -> Response:
    """The board's body at every change; a new round ends it (the page opens the next)."""
    first = evenings.board(token=token)
    watched = tuple(t.match_id for t in first.tables if t.match_id is not None)

    def now() -> dict[str, Any]:
        shown = evenings.board(token=token)
        if shown.round != first.round:
            raise NotFound(N_("A new round has started."))
        return {"html": render_template("board_body.html", evening=shown)}

    # Each stream its own holder: a room's phones read one board.
    holder = f"board:{secrets.token_hex(8)}"
    allowed = partial(evenings.shows_board, token=token)
    return live.stream(push.evening_key(first.id), now, holder, allowed, also=watched)


@bp.get("/table/<token>")
def table(token: str) -> str:
    """A table's match, which this phone may record in until the evening ends."""
    match = evenings.table_match(token=token)
    held = [each for each in session.get(SESSION_TABLES, []) if each != token]
    session[SESSION_TABLES] = [token, *held][: evenings.TABLES_KEPT]
    return play.render_home(match)

"""The export and import pages: CSV for a spreadsheet, JSON for another browser."""

import csv
import io
import json
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from functools import cache

from flask import Blueprint, flash, redirect, render_template, request, stream_with_context, url_for
from flask_babel import lazy_gettext, lazy_pgettext, ngettext
from werkzeug.wrappers import Response

from counter.game.refusals import N_, Busy, Invalid, Refusal
from counter.services import archive
from counter.storage.timestamps import iso_utc
from counter.web import i18n, limits, words
from counter.web.browser import current_owner, ensure_device
from counter.web.errors import shows_again
from counter.web.import_size import MEGABYTE, check_size, import_limit

bp = limits.writes(Blueprint("archive", __name__))

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
EXPORTS_AT_ONCE = 2  # per process: each holds a database connection while it is read
EXPORT_WAIT_SECONDS = 10
_exports = threading.BoundedSemaphore(EXPORTS_AT_ONCE)
CSV_COLUMNS = [
    lazy_gettext("match"),
    lazy_gettext("started"),
    lazy_gettext("game"),
    lazy_gettext("target"),
    lazy_gettext("player 1"),
    lazy_gettext("player 2"),
]
CSV_DEAL_COLUMNS = [
    lazy_gettext("first to deal"),
    lazy_gettext("deal"),
    lazy_gettext("points to"),
    lazy_gettext("outcome"),
    lazy_gettext("points"),
    lazy_gettext("total 1"),
    lazy_gettext("total 2"),
    lazy_gettext("recorded"),
    lazy_pgettext("csv", "corrected"),  # capitalised as a column head, where a language does
]


def csv_rows(owner: str | None) -> Iterator[list[object]]:
    """The spreadsheet: a header, then one row per deal, in this request's language."""
    rules = words.house_rules()
    yield [*map(str, CSV_COLUMNS), *(rule["label"] for rule in rules), *map(str, CSV_DEAL_COLUMNS)]
    for match, number, deal, scores in archive.export_rows(owner=owner):
        chosen = deal.rules.as_dict()
        yield [
            match.uid,
            iso_utc(match.created_at),
            words.games()[match.game.name],
            match.target,
            *match.names,
            *(rule["choices"][chosen[rule["name"]]] for rule in rules),
            match.names[match.first_dealer - 1],
            number,
            "" if deal.player is None else match.names[deal.player - 1],
            words.outcome_name(deal.outcome, received=True, game=match.game.name),
            deal.points,
            *(match.game.shown(score, match.target) for score in scores),
            iso_utc(deal.created_at),
            iso_utc(deal.corrected_at) or "",
        ]


def write_csv(rows: Iterable[list[object]]) -> Iterator[str]:
    """The rows as CSV text, a row at a time, no cell a formula (OWASP: CSV injection)."""
    yield "\ufeff"  # a byte order mark, so that spreadsheets read the names as UTF-8
    buffer = io.StringIO()
    # Where a decimal takes a comma (bg, de), spreadsheets split a row at semicolons.
    writer = csv.writer(buffer, delimiter=";" if "," in i18n.decimal(0.5) else ",")
    for row in rows:
        writer.writerow(
            ["'" + v if isinstance(v, str) and v.startswith(FORMULA_STARTS) else v for v in row]
        )
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


@bp.get("/export.csv")
@limits.heavy_reads
def export_csv() -> Response:
    return download(write_csv(csv_rows(current_owner())), extension="csv", mimetype="text/csv")


@bp.get("/export.json")
@limits.heavy_reads
def export_json() -> Response:
    chunks = archive.export_document(owner=current_owner())
    return download(chunks, extension="json", mimetype="application/json")


def streamed(chunks: Iterable[str], *, mimetype: str) -> Response:
    """An export sent as it is read, so a worker's memory stays flat; a few at a time."""
    if not _exports.acquire(timeout=EXPORT_WAIT_SECONDS):
        raise Busy(N_("Other exports are under way; try again in a moment."))
    done = cache(_exports.release)  # once: the last chunk sent, or the answer closed first

    def sent() -> Iterator[str]:
        try:
            yield from chunks
        finally:
            done()

    response = Response(stream_with_context(sent()), mimetype=mimetype)
    response.call_on_close(done)
    return response


def download(
    chunks: Iterable[str], *, extension: str, mimetype: str, stem: str = "santase-matches"
) -> Response:
    response = streamed(chunks, mimetype=mimetype)
    name = f"{stem}-{datetime.now(UTC):%Y-%m-%d}.{extension}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@bp.get("/import")
def import_form(
    error: Refusal | None = None,
    *,
    report: archive.ImportReport | None = None,
    payload: str | None = None,
) -> str:
    return render_template(
        "import.html",
        report=report,
        payload=payload,
        error=None if error is None else words.explain(error),
        limit_mb=import_limit() // MEGABYTE,
    )


@bp.post("/import")
@shows_again(import_form)
@limits.imports
def import_preview() -> str:
    """Check the file and show what it would add; nothing is stored yet."""
    upload = request.files.get("archive")
    if upload is None or not upload.filename:
        raise Invalid(N_("Choose the exported file first."))
    raw = upload.read(import_limit() + 1)
    check_size(raw)
    report = archive.preview(owner=current_owner(), matches=archive.read_document(raw))
    # The checked file goes back with the confirmation, compact, in a multipart form.
    payload = json.dumps(json.loads(raw), separators=(",", ":"))  # ASCII: any text survives
    return import_form(report=report, payload=payload)


@bp.post("/import/confirm")
@shows_again(import_form)
@limits.imports
def import_confirm() -> Response:
    """Store the previewed matches; those already here are skipped."""
    payload = request.form.get("payload", "")
    check_size(payload)
    checked = archive.read_document(payload)
    device = ensure_device()
    report = archive.import_matches(owner=device.owner, matches=checked, device_id=device.id)
    flash(ngettext("Imported %(num)s match.", "Imported %(num)s matches.", len(report.new)))
    if report.present:
        flash(
            ngettext(
                "%(num)s match was already here.",
                "%(num)s matches were already here.",
                len(report.present),
            )
        )
    return redirect(url_for("history.history"))

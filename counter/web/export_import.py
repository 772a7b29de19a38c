"""The export and import pages: CSV for a spreadsheet, JSON for another browser, and an
import that shows what it would add before it adds it."""

from __future__ import annotations

import csv
import io
import itertools
import json
import threading
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime

from flask import Blueprint, flash, redirect, render_template, request, stream_with_context, url_for
from flask_babel import lazy_gettext, lazy_pgettext, ngettext
from werkzeug.wrappers import Response

from counter.game.refusals import N_, Busy, Invalid, Refusal
from counter.services import archive
from counter.storage.timestamps import iso_utc
from counter.web import limits, words
from counter.web.browser import current_owner, ensure_device
from counter.web.errors import status_of
from counter.web.import_size import MEGABYTE, check_size, import_limit

bp = limits.writes(Blueprint("archive", __name__))

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
EXPORTS_AT_ONCE = 2  # per process: each holds a database connection while it is read
EXPORT_WAIT_SECONDS = 10
_exports = threading.BoundedSemaphore(EXPORTS_AT_ONCE)


def cell(value: object) -> object:
    """A CSV cell that no spreadsheet runs as a formula (OWASP: CSV injection)."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


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
    yield (
        [str(name) for name in CSV_COLUMNS]
        + [rule["label"] for rule in rules]
        + [str(name) for name in CSV_DEAL_COLUMNS]
    )
    for row in archive.export_rows(owner=owner):
        match, deal = row.match, row.deal
        chosen = deal.rules.as_dict()
        yield [
            match.uid,
            iso_utc(match.created_at),
            words.games()[match.game.name],
            match.target,
            match.names[0],
            match.names[1],
            *(rule["choices"][chosen[rule["name"]]] for rule in rules),
            match.names[match.first_dealer - 1],
            row.number,
            "" if deal.player is None else match.names[deal.player - 1],
            words.outcome_name(deal.outcome, game=match.game.name),
            deal.points,
            match.game.shown(row.scores[0], match.target),
            match.game.shown(row.scores[1], match.target),
            iso_utc(deal.created_at),
            iso_utc(deal.corrected_at) or "",
        ]


def write_csv(rows: Iterable[list[object]]) -> Iterator[str]:
    """The rows as CSV text, a row at a time."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow([cell(value) for value in row])
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


@bp.get("/export.csv")
@limits.heavy_reads
def export_csv() -> Response:
    """Every deal of this browser's matches, one row each, for a spreadsheet."""
    # A byte order mark, so that spreadsheets read the names as UTF-8.
    rows = write_csv(csv_rows(current_owner()))
    return download(itertools.chain(["\ufeff"], rows), extension="csv", mimetype="text/csv")


@bp.get("/export.json")
@limits.heavy_reads
def export_json() -> Response:
    """This browser's matches, to import into another browser."""
    chunks = archive.export_document(owner=current_owner())
    return download(chunks, extension="json", mimetype="application/json")


def streamed(chunks: Iterable[str], *, mimetype: str) -> Response:
    """An export sent as it is read from the database, a batch of matches at a time, so a
    worker's memory stays flat however large it is; a few at a time per process (the rest
    wait, then are told to try again)."""
    if not _exports.acquire(timeout=EXPORT_WAIT_SECONDS):
        raise Busy(N_("Other exports are under way; try again in a moment."))
    released = False

    def done() -> None:  # once: when the last chunk is sent, or the answer is closed first
        nonlocal released
        if not released:
            released = True
            _exports.release()

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


def _import_page(
    *,
    report: archive.ImportReport | None = None,
    payload: str | None = None,
    error: Refusal | None = None,
) -> str:
    return render_template(
        "import.html",
        report=report,
        payload=payload,
        error=None if error is None else words.explain(error),
        limit_mb=import_limit() // MEGABYTE,
    )


@bp.get("/import")
def import_form() -> str:
    """Choose an exported file to bring its matches into this browser."""
    return _import_page()


def _import_again(error: Refusal) -> str:
    return _import_page(error=error)


@bp.post("/import")
@limits.imports
def import_preview() -> tuple[str, int]:
    """Check the file and show what it would add; nothing is stored yet."""
    upload = request.files.get("archive")
    try:
        if upload is None or not upload.filename:
            raise Invalid(N_("Choose the exported file first."))
        raw = upload.read(import_limit() + 1)
        check_size(raw)
        checked = archive.read_document(raw)
    except Refusal as error:
        return _import_again(error), status_of(error)
    report = archive.preview(owner=current_owner(), matches=checked)
    # The checked file goes back with the confirmation, compact, in a multipart form.
    payload = json.dumps(json.loads(raw), separators=(",", ":"))  # ASCII: any text survives
    return _import_page(report=report, payload=payload), 200


@bp.post("/import/confirm")
@limits.imports
def import_confirm() -> Response | tuple[str, int]:
    """Store the previewed matches; those already here are skipped."""
    payload = request.form.get("payload", "")
    try:
        check_size(payload)
        checked = archive.read_document(payload)
    except Refusal as error:
        return _import_again(error), status_of(error)
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

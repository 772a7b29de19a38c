"""Request bodies: an import's size, one import at a time per process, no body left unread."""

import threading

from flask import Flask, Response, current_app, g, request
from werkzeug.wsgi import LimitedStream

from counter.game.refusals import N_, Busy, TooLarge
from counter.web import i18n

IMPORT_ENDPOINTS = {"archive.import_preview", "archive.import_confirm", "api.import_matches"}
FORM_OVERHEAD = 64 * 1024  # a multipart form's boundaries and its other fields
MEGABYTE = 1_048_576
# The largest file costs a worker some 60 MB: one at a time bounds a worker's memory.
_one_import = threading.BoundedSemaphore(1)
IMPORT_WAIT_SECONDS = 25  # within gunicorn's timeout (deploy/gunicorn.conf.py)


def import_limit() -> int:
    return int(current_app.config["IMPORT_MAX_BYTES"])


def check_size(raw: bytes | str) -> None:
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > import_limit():
        raise TooLarge(
            N_("The file is %(size)s MB; one import takes at most %(most)s MB."),
            size=i18n.decimal(size / MEGABYTE),
            most=import_limit() // MEGABYTE,
        )


def _allow_large_imports() -> None:
    if request.endpoint in IMPORT_ENDPOINTS:
        request.max_content_length = request.max_form_memory_size = import_limit() + FORM_OVERHEAD
        if not _one_import.acquire(timeout=IMPORT_WAIT_SECONDS):
            raise Busy(N_("Other imports are under way; nothing was changed. Try again."))
        g.importing = True


def _next_import(_error: BaseException | None) -> None:
    if g.pop("importing", False):
        _one_import.release()


def _finish_body(response: Response) -> Response:
    """Drop a body's unread rest, or close the connection, lest it be read as a next request."""
    length = request.content_length or 0
    stream = request.__dict__.get("stream")  # the body as far as the app read it, if at all
    if not length or (stream is not None and stream.is_exhausted):
        return response
    if length > max(MEGABYTE, request.max_content_length or 0):
        response.headers["Connection"] = "close"
    elif stream is not None:
        stream.exhaust()
    else:
        LimitedStream(request.environ["wsgi.input"], length).exhaust()
    return response


def init_app(app: Flask) -> None:
    # Registered before CSRF protection reads the form, so the limit applies to it.
    app.before_request(_allow_large_imports)
    app.teardown_request(_next_import)
    app.after_request(_finish_body)

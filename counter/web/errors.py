"""Error responses, mapped in one place: JSON under /api, a page elsewhere, never a bare 500."""

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_babel import lazy_gettext
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed, NotFound

from counter.game import parsing, refusals
from counter.game.refusals import N_, Busy, Refusal
from counter.storage.models import db
from counter.web import i18n

View = TypeVar("View", bound=Callable[..., Any])

MESSAGES = {
    400: lazy_gettext("The request could not be understood."),
    403: lazy_gettext("This is not allowed."),
    404: lazy_gettext("There is nothing at this address."),
    405: lazy_gettext("This address does not accept that method."),
    413: lazy_gettext("The request is too large."),
    415: lazy_gettext("Send the request body as JSON (Content-Type: application/json)."),
    429: lazy_gettext("Too many requests from here; wait a little and try again."),
    500: lazy_gettext("Something went wrong on our side; nothing was changed."),
}

STATUSES: dict[type[Refusal], int] = {
    parsing.NotJson: 415,
    refusals.Malformed: 400,
    refusals.Invalid: 422,
    refusals.Forbidden: 403,
    refusals.NotFound: 404,
    refusals.Conflict: 409,
    refusals.Gone: 410,
    refusals.TooLarge: 413,
    refusals.TooMany: 429,
    Busy: 503,
    Refusal: 422,
}


def status_of(refusal: Refusal) -> int:
    return next(STATUSES[kind] for kind in type(refusal).__mro__ if kind in STATUSES)


def retry_headers(refusal: Refusal) -> dict[str, str]:
    return {"Retry-After": "2"} if isinstance(refusal, Busy) else {}


def shows_again(render: Callable[..., Any]) -> Callable[[View], View]:
    """Declare the page (``render(error=refusal)``) that shows a refused form again."""

    def register(view: View) -> View:
        view.__dict__["form_page"] = render
        return view

    return register


def error_response(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    if request.path.startswith("/api/"):
        body: Response | str = jsonify(error=message)
    else:
        body = render_template("error.html", message=message, status=status)
    return current_app.make_response((body, status, headers or {}))


def _refused(refusal: Refusal) -> Response:
    status, headers = status_of(refusal), retry_headers(refusal)
    show_again = getattr(current_app.view_functions.get(request.endpoint or ""), "form_page", None)
    # A form refused for its values is shown again; one about nothing here gets the error page.
    if show_again and request.method == "POST" and not isinstance(refusal, refusals.NotFound):
        return current_app.make_response((show_again(error=refusal), status, headers))
    return error_response(i18n.explain(refusal), status, headers)


def _http_error(error: HTTPException) -> Response:
    if isinstance(error, InternalServerError):  # Flask has logged the cause
        roll_back()  # leave no half-done transaction behind
    elif isinstance(error, MethodNotAllowed):
        # Only the methods that reach something here, not a route refusing it (an id of 0).
        adapter = current_app.create_url_adapter(request)
        assert adapter is not None  # there is one in a request
        tried = error.valid_methods or []
        error.valid_methods = [method for method in tried if adapter.test(request.path, method)]
        if not error.valid_methods:
            error = NotFound()
    status = error.code or 500
    # A description of our own (abort(403, description=...)), else ours for the status.
    own = error.description if error.description != type(error).description else None
    # A 405 says what is allowed, a 429 when to retry.
    headers = {key: value for key, value in error.get_headers() if key in ("Allow", "Retry-After")}
    return error_response(str(own or MESSAGES.get(status, f"{error.name}.")), status, headers)


def roll_back() -> None:
    """End the session's transaction, even when the connection under it is gone."""
    try:
        db.session.rollback()
    except SQLAlchemyError:
        db.session().invalidate()


def _database_not_answering(error: OperationalError | PoolTimeout) -> Response:
    # The cause (refused, cut off, timed out), not the statement with the players' names.
    cause = error.orig if isinstance(error, OperationalError) else error
    current_app.logger.warning("The database is not answering: %s", cause)
    roll_back()
    wait = Busy(N_("The counter's database is not answering just now; try again in a moment."))
    return error_response(i18n.explain(wait), status_of(wait), retry_headers(wait))


def init_app(app: Flask) -> None:
    app.register_error_handler(Refusal, _refused)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OperationalError, _database_not_answering)
    app.register_error_handler(PoolTimeout, _database_not_answering)

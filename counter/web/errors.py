"""Error responses, mapped in one place: JSON under /api, a page elsewhere, never a bare 500."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask_babel import gettext, lazy_gettext
from sqlalchemy.exc import OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException, InternalServerError, MethodNotAllowed, NotFound
from werkzeug.routing import RequestRedirect

from counter.game import refusals
from counter.game.parsing import NotJson
from counter.game.refusals import N_, Busy, Refusal
from counter.storage.models import db
from counter.web import i18n

API_PREFIX = "/api/"

View = TypeVar("View", bound=Callable[..., Any])

MESSAGES = {
    400: lazy_gettext("The request could not be understood."),
    403: lazy_gettext("This is not allowed."),
    404: lazy_gettext("There is nothing at this address."),
    405: lazy_gettext("This address does not accept that method."),
    413: lazy_gettext("The request is too large."),
    415: lazy_gettext("Send the request body as JSON (Content-Type: application/json)."),
    429: lazy_gettext("Too many requests from here; wait a little and try again."),
}


STATUSES: dict[type[Refusal], int] = {
    NotJson: 415,
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


def shows_again(render: Callable[[Refusal], Any]) -> Callable[[View], View]:
    """Declare the page that shows a form view's form again when it is refused."""

    def register(view: View) -> View:
        view.__dict__["form_page"] = render
        return view

    return register


def error_response(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    if request.path.startswith(API_PREFIX):
        response = jsonify(error=message)
    else:
        response = Response(render_template("error.html", message=message, status=status))
    response.status_code = status
    response.headers.update(headers or {})
    return response


def _refused(refusal: Refusal) -> Response:
    message = i18n.explain(refusal)
    status, headers = status_of(refusal), retry_headers(refusal)
    # A form refused for its values is shown again; one about nothing here gets the error page.
    if (
        not request.path.startswith(API_PREFIX)
        and request.method == "POST"
        and not isinstance(refusal, refusals.NotFound)
    ):
        view = current_app.view_functions.get(request.endpoint or "")
        show_again = getattr(view, "form_page", None)
        if show_again is not None:
            response = current_app.make_response(show_again(refusal))
            response.status_code = status
            response.headers.update(headers)
            return response
    return error_response(message, status, headers)


def _http_error(error: HTTPException) -> Response:
    if isinstance(error, MethodNotAllowed):
        allowed = _allowed_methods(error)
        if not allowed:
            error = NotFound()
        else:
            error.valid_methods = allowed
    status = error.code or 500
    described = error.description != type(error).description  # set by our own abort()
    message = error.description if described and error.description else None
    response = error_response(str(message or MESSAGES.get(status, f"{error.name}.")), status)
    for name, value in error.get_headers():
        if name in ("Allow", "Retry-After"):  # a 405 says what is allowed, a 429 when to retry
            response.headers[name] = value
    return response


def _allowed_methods(error: MethodNotAllowed) -> list[str]:
    """The methods that reach something here: Werkzeug names a route's methods even when a
    converter refuses the path (an id of 0) for all of them."""
    adapter = current_app.create_url_adapter(request)
    if adapter is None:
        return list(error.valid_methods or [])
    allowed = []
    for method in error.valid_methods or []:
        try:
            adapter.match(request.path, method=method)
        except RequestRedirect:
            allowed.append(method)
        except HTTPException:
            continue
        else:
            allowed.append(method)
    return allowed


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


def _unexpected(_error: InternalServerError) -> Response:
    # Flask has logged the cause; leave no half-done transaction behind.
    roll_back()
    return error_response(gettext("Something went wrong on our side; nothing was changed."), 500)


def init_app(app: Flask) -> None:
    app.register_error_handler(Refusal, _refused)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OperationalError, _database_not_answering)
    app.register_error_handler(PoolTimeout, _database_not_answering)
    app.register_error_handler(InternalServerError, _unexpected)

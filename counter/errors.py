"""Error responses: JSON under /api, an HTML page elsewhere, and never a bare 500."""

from __future__ import annotations

from flask import Flask, Response, jsonify, render_template, request
from flask_babel import gettext, lazy_gettext
from werkzeug.exceptions import HTTPException, InternalServerError

from counter.models import db

API_PREFIX = "/api/"

MESSAGES = {
    400: lazy_gettext("The request could not be understood."),
    403: lazy_gettext("This is not allowed."),
    404: lazy_gettext("There is nothing at this address."),
    405: lazy_gettext("This address does not accept that method."),
    413: lazy_gettext("The request is too large."),
    415: lazy_gettext("Send the request body as JSON (Content-Type: application/json)."),
}


def error_response(message: str, status: int) -> tuple[Response, int] | tuple[str, int]:
    """The one shape every error takes: ``{"error": ...}`` for the API, a page for people."""
    if request.path.startswith(API_PREFIX):
        return jsonify(error=message), status
    return render_template("error.html", message=message, status=status), status


def _http_error(error: HTTPException) -> tuple[Response, int] | tuple[str, int]:
    status = error.code or 500
    described = error.description != type(error).description  # set by our own abort()
    if described and error.description:
        return error_response(error.description, status)
    return error_response(str(MESSAGES.get(status, f"{error.name}.")), status)


def _unexpected(_error: InternalServerError) -> tuple[Response, int] | tuple[str, int]:
    # Flask has logged the cause; leave no half-done transaction behind.
    db.session.rollback()
    return error_response(gettext("Something went wrong on our side; nothing was changed."), 500)


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(InternalServerError, _unexpected)

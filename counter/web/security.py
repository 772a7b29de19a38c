"""CSRF on forms, same-origin API calls, security headers, the session cookie, the host."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from flask import Blueprint, Flask, Response, abort, request
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from flask_babel import gettext
from flask_wtf.csrf import CSRFError, CSRFProtect
from werkzeug.exceptions import SecurityError
from werkzeug.middleware.proxy_fix import ProxyFix

from counter.web import browser, errors

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

csrf = CSRFProtect()

# media-src: static/awake.js plays NoSleep.js's video over plain http.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The same for everyone; any other answer may carry a browser's matches: no cache keeps it.
PUBLIC_ENDPOINTS = {"static", "site.robots", "site.manifest", "site.service_worker", "api.openapi"}
DEFAULT_PORTS = {"http": "80", "https": "443"}


class SessionCookies(SecureCookieSessionInterface):
    """Secure on HTTPS requests, and never sent back naming a replaced device token."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        return super().should_set_cookie(app, session) and not browser.stale_cookie()


def reached_host(app: WSGIApplication, proxies: int) -> WSGIApplication:
    """WSGI middleware, inside ProxyFix: ``Host`` in lower case, with the port truly reached."""

    def middleware(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if host := environ.get("HTTP_HOST"):
            name = host.partition("]")[0] + "]" if host.startswith("[") else host.rsplit(":", 1)[0]
            port = environ.get("SERVER_PORT")
            if proxies:  # the server's own port is the one the proxy reached
                told = environ.get("HTTP_X_FORWARDED_PORT", "").split(",")
                port = told[-proxies].strip() if len(told) >= proxies else None
            reached = port and port.isdigit() and 1 <= int(port) <= 65535
            if reached and port != DEFAULT_PORTS.get(environ.get("wsgi.url_scheme", "http")):
                name = f"{name}:{port}"
            environ["HTTP_HOST"] = name.lower()
        return app(environ, start_response)

    return middleware


def init_app(app: Flask, *, exempt: list[Blueprint]) -> None:
    """Blueprints in ``exempt`` are JSON-only: checked by origin instead of CSRF tokens."""
    # A page left open on the card table for hours must still accept a tap.
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    csrf.init_app(app)
    for blueprint in exempt:
        csrf.exempt(blueprint)
    app.session_interface = SessionCookies()
    if app.config.get("TRUSTED_HOSTS"):
        app.config["TRUSTED_HOSTS"] = [name.lower() for name in app.config["TRUSTED_HOSTS"]]
    proxies = int(app.config.get("TRUSTED_PROXIES", 0))
    app.wsgi_app = reached_host(app.wsgi_app, proxies)  # type: ignore[method-assign,assignment]
    if proxies:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )
    app.after_request(_add_headers)
    app.register_error_handler(CSRFError, _csrf_failed)
    app.register_error_handler(SecurityError, _untrusted_host)


def same_origin_only() -> None:
    """Refuse a changing request that a browser says comes from another site."""
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is not None and origin != f"{request.scheme}://{request.host}":
        abort(403, description=gettext("Requests from other sites are not accepted."))


def _add_headers(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.endpoint not in PUBLIC_ENDPOINTS:
        response.headers["Cache-Control"] = "no-store"
    if request.is_secure:
        # Over plain http a browser ignores the opener policy, and says so in the console.
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    return response


def _untrusted_host(error: SecurityError) -> Response:
    return Response(
        "This site does not answer to that host name.\n", status=400, mimetype="text/plain"
    )


def _csrf_failed(_error: CSRFError) -> Response:
    return errors.error_response(
        gettext(
            "This form has expired or did not come from this site. "
            "Reload the page and tap again; nothing was recorded."
        ),
        400,
    )

"""What keeps one browser's matches its own: CSRF on forms, same-origin API calls,
security headers, and a session cookie that is Secure whenever the site is HTTPS."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, Flask, Request, Response, abort, current_app, g, request, session
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from flask_babel import gettext
from flask_wtf.csrf import CSRFError, CSRFProtect, generate_csrf
from itsdangerous import BadSignature
from werkzeug.exceptions import SecurityError
from werkzeug.middleware.proxy_fix import ProxyFix

from counter.web.errors import error_response
from counter.web.recent import Recent

csrf = CSRFProtect()

SESSION_SENT_AGAIN_AFTER = timedelta(days=1)  # an unchanged session cookie: see SessionCookies

CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "manifest-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}
OPENED_COOKIES = 4096  # checked session cookies a process keeps: one a phone, a few KB in all
CSRF_TOKENS = 1024  # signed CSRF tokens a process keeps: one a phone
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Pages and files the same for everyone; every other answer carries a browser's
# matches, names or links, and no cache (a shared proxy, the back button on a
# borrowed phone) may keep it.
PUBLIC_ENDPOINTS = frozenset(
    {"static", "site.robots", "site.manifest", "site.service_worker", "api.openapi"}
)


class SessionCookies(SecureCookieSessionInterface):
    """Mark the session cookie Secure on HTTPS requests (behind a proxy too, via ProxyFix),
    and send an unchanged one again once a day, not with every answer.

    The cookie lives a year from when it was last sent, so a phone in use keeps it;
    signing it again for each request (Flask's way) cost every answer a signature
    and a Set-Cookie header for nothing.
    """

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure

    def __init__(self) -> None:
        # Cookies whose signature was checked, with what they hold: a phone sends the
        # same cookie with every request, and checking it again costs each request a
        # signature. Only a cookie of plain values (a device token, a CSRF secret) is
        # kept, so each request gets a session of its own to change.
        self._opened = Recent[str, tuple[dict[str, Any], datetime]](OPENED_COOKIES)

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        signer = self.get_signing_serializer(app)
        cookie = request.cookies.get(self.get_cookie_name(app))
        if signer is None or not cookie:
            return super().open_session(app, request)
        lifetime = int(app.permanent_session_lifetime.total_seconds())
        opened = self._opened.get(cookie)
        if opened is None:
            try:
                data, signed_at = signer.loads(cookie, max_age=lifetime, return_timestamp=True)
            except BadSignature:
                return self.session_class()
            if all(isinstance(value, str | bool | int) for value in data.values()):
                self._opened.keep(cookie, (data, signed_at))
        else:
            data, signed_at = opened
            if time.time() - signed_at.timestamp() > lifetime:  # as loads() would refuse it
                return self.session_class()
        session = self.session_class(data)
        session.signed_at = signed_at  # type: ignore[attr-defined]
        return session

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        if session.modified or not session.permanent:
            return bool(session.modified)
        signed_at: datetime | None = getattr(session, "signed_at", None)
        if signed_at is None:
            return True
        return time.time() - signed_at.timestamp() > SESSION_SENT_AGAIN_AFTER.total_seconds()


def init_app(app: Flask, *, exempt: list[Blueprint]) -> None:
    """Protect ``app``; blueprints named in ``exempt`` are JSON-only and checked by origin."""
    # A page left open on the card table for hours must still accept a tap.
    app.config.setdefault("WTF_CSRF_TIME_LIMIT", None)
    csrf.init_app(app)
    for blueprint in exempt:
        csrf.exempt(blueprint)
    app.session_interface = SessionCookies()
    app.extensions["csrf_tokens"] = Recent[str, str](CSRF_TOKENS)
    proxies = int(app.config.get("TRUSTED_PROXIES", 0))
    if proxies:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies
        )
    app.after_request(_add_headers)
    app.register_error_handler(CSRFError, _csrf_failed)
    app.register_error_handler(SecurityError, _untrusted_host)


def csrf_token() -> str:
    """This session's CSRF token for a page's forms, signed once per session and process.

    Flask-WTF signs the session's secret anew for every page, with the time in it; that
    time is checked only under ``WTF_CSRF_TIME_LIMIT``, which is off here (a page left
    open on the card table for hours must still accept a tap), so a token signed
    before is the same token. With a time limit set, every page gets a new one."""
    if current_app.config["WTF_CSRF_TIME_LIMIT"] is not None:
        return str(generate_csrf())
    field = current_app.config["WTF_CSRF_FIELD_NAME"]
    signed: Recent[str, str] = current_app.extensions["csrf_tokens"]
    secret = session.get(field)
    token = signed.get(secret) if isinstance(secret, str) else None
    if token is None:
        token = str(generate_csrf())  # which gives a new session its secret
        signed.keep(session[field], token)
    elif field not in g:
        setattr(g, field, token)  # where Flask-WTF keeps it for the rest of the request
    return str(g.get(field, token))


def same_origin_only() -> None:
    """Refuse a changing request that a browser says comes from another site."""
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is not None and origin != _own_origin(request):
        abort(403, description=gettext("Requests from other sites are not accepted."))


def _own_origin(incoming: Request) -> str:
    return f"{incoming.scheme}://{incoming.host}"


def _add_headers(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    if request.endpoint not in PUBLIC_ENDPOINTS:
        response.headers["Cache-Control"] = "no-store"
    if request.is_secure:
        # Both mean something only over HTTPS; at a plain-http LAN address a browser
        # ignores the opener policy and says so in the console of every page.
        response.headers.setdefault("Strict-Transport-Security", "max-age=31536000")
        response.headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    return response


def _untrusted_host(error: SecurityError) -> Response:
    """A Host the site does not answer to: plain text, since no link can be built for it."""
    return Response(
        "This site does not answer to that host name.\n", status=400, mimetype="text/plain"
    )


def _csrf_failed(_error: CSRFError) -> Response:
    return error_response(
        gettext(
            "This form has expired or did not come from this site. "
            "Reload the page and tap again; nothing was recorded."
        ),
        400,
    )

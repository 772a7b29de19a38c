"""The host a request is answered for: its name in lower case, and the port it truly reached."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

DEFAULT_PORTS = {"http": "80", "https": "443"}


def reached_port(environ: WSGIEnvironment, proxies: int) -> str | None:
    port = environ.get("SERVER_PORT")
    if proxies:  # the server's own port is the one the proxy reached
        told = [part.strip() for part in environ.get("HTTP_X_FORWARDED_PORT", "").split(",")]
        port = told[-proxies] if len(told) >= proxies else None
    return port if port and port.isdigit() and 1 <= int(port) <= 65535 else None


def site_host(host: str, *, scheme: str, port: str | None) -> str:
    if host.startswith("["):  # an IPv6 address
        name = host.partition("]")[0] + "]"
    else:
        before, colon, _claimed = host.rpartition(":")
        name = before if colon else host
    if port is None or port == DEFAULT_PORTS.get(scheme):
        return name.lower()
    return f"{name.lower()}:{port}"


class ReachedHost:
    """WSGI middleware, inside ProxyFix, that rewrites ``Host`` as :func:`site_host`."""

    def __init__(self, app: WSGIApplication, *, proxies: int) -> None:
        self.app = app
        self.proxies = proxies

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if host := environ.get("HTTP_HOST"):
            scheme = environ.get("wsgi.url_scheme", "http")
            port = reached_port(environ, self.proxies)
            environ["HTTP_HOST"] = site_host(host, scheme=scheme, port=port)
        return self.app(environ, start_response)

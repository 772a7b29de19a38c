"""The host a request is answered for: its name in lower case, with the port the site was
reached on (``X-Forwarded-Port`` behind a proxy), never one the ``Host`` header made up."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

DEFAULT_PORTS = {"http": "80", "https": "443"}


def split_host(host: str) -> tuple[str, str | None]:
    if host.startswith("["):
        name, _bracket, rest = host.partition("]")
        return f"{name}]", rest.removeprefix(":") or None
    name, colon, port = host.rpartition(":")
    return (name, port) if colon else (host, None)


def _port(value: str | None) -> str | None:
    return value if value and value.isdigit() and 1 <= int(value) <= 65535 else None


def reached_port(environ: WSGIEnvironment, proxies: int) -> str | None:
    if proxies:  # the server's own port is the one the proxy reached
        told = [part.strip() for part in environ.get("HTTP_X_FORWARDED_PORT", "").split(",")]
        return _port(told[-proxies]) if len(told) >= proxies else None
    return _port(environ.get("SERVER_PORT"))


def site_host(host: str, *, scheme: str, port: str | None) -> str:
    name, _claimed = split_host(host)
    if port is None or port == DEFAULT_PORTS.get(scheme):
        return name.lower()
    return f"{name.lower()}:{port}"


class ReachedHost:
    """WSGI middleware, inside ProxyFix, that rewrites ``Host`` as :func:`site_host`."""

    def __init__(self, app: WSGIApplication, *, proxies: int) -> None:
        self.app = app
        self.proxies = proxies

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        host = environ.get("HTTP_HOST")
        if host:
            environ["HTTP_HOST"] = site_host(
                host,
                scheme=environ.get("wsgi.url_scheme", "http"),
                port=reached_port(environ, self.proxies),
            )
        return self.app(environ, start_response)

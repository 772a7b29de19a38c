"""Rate limits: a browser with a key is counted by a hash of it, one without by its address."""

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from contextlib import suppress
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, request
from flask_babel import ngettext
from flask_limiter import Limiter, RateLimitExceeded, RouteLimit
from limits.storage import MemoryStorage, RedisStorage

from counter.web.browser import current_owner, made_device
from counter.web.errors import error_response

WRITE_METHODS = ["POST", "PATCH", "DELETE"]
# A Redis that hangs costs one request half a second, then counts go to memory.
REDIS_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}


def client_address() -> str:
    """The client's address as every limit counts it: an IPv6 address by its /64."""
    address = request.remote_addr or "127.0.0.1"
    with suppress(ValueError):  # an IPv4 address, or none at all
        ipv6 = ipaddress.IPv6Address(address)
        if ipv6.ipv4_mapped is not None:
            return str(ipv6.ipv4_mapped)
        return f"{ipaddress.IPv6Address(int(ipv6) >> 64 << 64)}/64"
    return address


limiter = Limiter(key_func=client_address, strategy="fixed-window")


def per_browser() -> str:
    key = current_owner()
    if key is None:
        return f"address:{client_address()}"
    return "browser:" + hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def _rate(with_key: str, without_key: str | None = None) -> Callable[[], str]:
    """The setting that bounds this request: ``without_key`` for a browser without a key."""
    return lambda: str(
        current_app.config[without_key if without_key and not current_owner() else with_key]
    )


def writes(blueprint: Blueprint) -> Blueprint:
    """Count ``blueprint``'s writes per browser, and those that make a device per address."""
    limiter.shared_limit(
        _rate("RATELIMIT_WRITES_PER_BROWSER"),
        scope="writes",
        key_func=per_browser,
        methods=WRITE_METHODS,
        exempt_when=lambda: current_owner() is None,
    )(blueprint)
    limiter.shared_limit(
        _rate("RATELIMIT_WRITES_PER_ADDRESS"),
        scope="new-devices",
        key_func=per_browser,
        methods=WRITE_METHODS,
        exempt_when=lambda: current_owner() is not None,
        deduct_when=made_device,  # checked before the write, counted after it
    )(blueprint)
    return blueprint


def _counted(setting: str, scope: str) -> RouteLimit:
    rate = _rate(setting, f"{setting}_PER_ADDRESS")
    return limiter.shared_limit(rate, scope=scope, key_func=per_browser)


imports = _counted("RATELIMIT_IMPORTS", "imports")
links = _counted("RATELIMIT_LINKS", "links")
heavy_reads = _counted("RATELIMIT_HEAVY_READS", "heavy-reads")


def init_app(app: Flask) -> None:
    if urlsplit(app.config["RATELIMIT_STORAGE_URI"]).scheme in RedisStorage.STORAGE_SCHEME:
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", REDIS_OPTIONS)
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _too_many)


# So that polling /health while Redis hangs costs no one half a second each time.
DOWN_FOR_SECONDS = 5.0
_found_down = {"at": -math.inf}


def storage_state() -> tuple[str, bool]:
    """Where the counts are kept, and whether as configured (while Redis is down, in memory)."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return "off", True
    if isinstance(limiter.storage, MemoryStorage):
        return "memory", True
    kind = (limiter.storage.STORAGE_SCHEME or ["storage"])[0]
    if time.monotonic() - _found_down["at"] >= DOWN_FOR_SECONDS:
        if limiter.storage.check():
            return f"{kind} ok", True
        _found_down["at"] = time.monotonic()
    return f"{kind} down, limits kept in memory", False


def _too_many(_error: RateLimitExceeded) -> Response:
    current = limiter.current_limit
    # The rest of the window, rounded up: Flask-Limiter's reset_at adds a second more.
    retry = 60 if current is None else max(1, math.ceil(current.window[0] - time.time()))
    return error_response(
        ngettext(
            "Too many requests from here; wait %(num)s second and try again.",
            "Too many requests from here; wait %(num)s seconds and try again.",
            retry,
        ),
        429,
        {"Retry-After": str(retry)},
    )

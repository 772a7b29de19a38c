"""Rate limits: bounded work for anyone, and more than any real table ever needs.

A browser with a key (its cookie) is counted by that key alone, so that the
neighbours behind one address (a café, a carrier's NAT, an IPv6 /64) never use
up its limits. A browser without a key yet is counted by its address. Its write
counts only when it makes a device (a key): one refused for its input before
that costs the address nothing, and the window is ten seconds, so a flood of
writes without a cookie keeps a new phone behind the same address out for
seconds, not a minute. Devices that such writes made and whose cookie never came
back are forgotten after an hour (:mod:`counter.services.devices`), so the flood
leaves no more than an hour's allowance behind. Imports, the links that reach
another device, and the reads whose work grows with a whole history (exports,
statistics) are counted on their own, lower. Other reads are never limited. The
key is counted under a one-way hash of it, never as itself: the store of counts
holds no key that could reach a browser's matches.

Counts are kept in memory (one process, the quick start) or in Redis when
``RATELIMIT_STORAGE_URI`` names one, so that every worker and server shares
them. A request over a limit answers 429 with ``Retry-After``, in the language
of the page.

The limits are a safety net and never take the counter down with them: while
Redis does not answer, each process counts in its own memory. Flask-Limiter tries
Redis again on a request after 1 s, then after 2, 4, ... up to 32 s, and counts
there again as soon as it answers.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, request
from flask_babel import ngettext
from flask_limiter import Limiter, RateLimitExceeded
from limits.storage import MemoryStorage, RedisStorage

from counter.web.browser import current_owner, made_device
from counter.web.errors import error_response

WRITE_METHODS = ["POST", "PATCH", "DELETE"]
# The defaults, each a setting of its own (config.py). A phone that was offline for
# an evening sends its taps in one burst; a café's tables may share one address.
# Each *_PER_ADDRESS limit counts the browsers without a key at one address together.
DEFAULTS = {
    "RATELIMIT_WRITES_PER_BROWSER": "600 per minute;6000 per hour",
    # The writes without a key that make one (a device): a café's new arrivals, not a flood.
    "RATELIMIT_WRITES_PER_ADDRESS": "10 per 10 seconds",
    "RATELIMIT_IMPORTS": "20 per hour",
    "RATELIMIT_IMPORTS_PER_ADDRESS": "10 per minute",
    "RATELIMIT_LINKS": "30 per hour",  # device links made and used, share links made
    "RATELIMIT_LINKS_PER_ADDRESS": "10 per minute",
    # Reads that cost in proportion to a whole history: exports and statistics.
    "RATELIMIT_HEAVY_READS": "60 per hour",
    "RATELIMIT_HEAVY_READS_PER_ADDRESS": "30 per minute",
    # A store that does not answer (Redis down) means counting in memory, not refusing taps;
    # and a store that stops answering between a request's check and its count (a write that
    # made a device is counted after it) costs that count, never the request a 500.
    "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
    "RATELIMIT_SWALLOW_ERRORS": True,
}
# A Redis that hangs rather than refuses costs a request half a second, once: then
# the counts are kept in memory until it answers again.
REDIS_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}


def client_address() -> str:
    """The client's address, the one definition every limit counts by (live streams too):
    an IPv4 address itself, an IPv6 address by its /64, which one household or phone holds
    whole (an IPv4 client of a dual-stack socket, ``::ffff:a.b.c.d``, by its IPv4 address)."""
    address = request.remote_addr or "127.0.0.1"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return f"{ipaddress.IPv6Address(int(parsed) >> 64 << 64)}/64"
    return address


limiter = Limiter(key_func=client_address, strategy="fixed-window")
View = TypeVar("View", bound=Callable[..., Any])


def per_browser() -> str:
    """What a request is counted by: a one-way hash of the browser's key, or its address
    before it has one (never empty: that would mean no limit)."""
    key = current_owner()
    if key is None:
        return f"address:{client_address()}"
    return "browser:" + hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()


def _rate(with_key: str, without_key: str) -> Callable[[], str]:
    """The setting that bounds this request: ``with_key`` for a browser with a key, else
    ``without_key`` (all browsers without one at this address together)."""
    return lambda: str(current_app.config[with_key if current_owner() else without_key])


def writes(blueprint: Blueprint) -> Blueprint:
    """Count every write of ``blueprint`` against the browser's limit, and each one without
    a key that makes a device against its address's.

    Called once per blueprint, where it is made: the limiter keeps what it is given.
    """
    limiter.shared_limit(
        _setting("RATELIMIT_WRITES_PER_BROWSER"),
        scope="writes",
        key_func=per_browser,
        methods=WRITE_METHODS,
        exempt_when=lambda: current_owner() is None,
    )(blueprint)
    limiter.shared_limit(
        _setting("RATELIMIT_WRITES_PER_ADDRESS"),
        scope="new-devices",
        key_func=per_browser,
        methods=WRITE_METHODS,
        exempt_when=lambda: current_owner() is not None,
        deduct_when=made_device,  # checked before the write, counted after it
    )(blueprint)
    return blueprint


def _setting(name: str) -> Callable[[], str]:
    return lambda: str(current_app.config[name])


def _counted(setting: str, scope: str) -> Callable[[View], View]:
    return cast(
        Callable[[View], View],
        limiter.shared_limit(
            _rate(setting, f"{setting}_PER_ADDRESS"), scope=scope, key_func=per_browser
        ),
    )


imports = _counted("RATELIMIT_IMPORTS", "imports")
"""Bound a view that reads an import (a file of up to 16 MB)."""
links = _counted("RATELIMIT_LINKS", "links")
"""Bound a view that makes or spends a link to another device or phone."""
heavy_reads = _counted("RATELIMIT_HEAVY_READS", "heavy-reads")
"""Bound a view whose work grows with a browser's whole history (exports, statistics)."""


def init_app(app: Flask) -> None:
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)
    if urlsplit(app.config["RATELIMIT_STORAGE_URI"]).scheme in RedisStorage.STORAGE_SCHEME:
        app.config.setdefault("RATELIMIT_STORAGE_OPTIONS", REDIS_OPTIONS)
    limiter.init_app(app)
    app.register_error_handler(RateLimitExceeded, _too_many)


def storage_kind() -> str:
    """Where the limits are counted: "memory" (each process its own), "redis", or "off"."""
    if not current_app.config["RATELIMIT_ENABLED"]:
        return "off"
    if isinstance(limiter.storage, MemoryStorage):
        return "memory"
    return (limiter.storage.STORAGE_SCHEME or ["storage"])[0]


# A store found not answering is taken as down for this long without asking it again,
# so that polling /health while Redis hangs costs no one half a second a time.
DOWN_FOR_SECONDS = 5.0
_found_down = {"at": -math.inf}


def storage_answers() -> bool:
    """Whether the store answers: for Redis one PING, within the short timeout above."""
    if time.monotonic() - _found_down["at"] < DOWN_FOR_SECONDS:
        return False
    answers = bool(limiter.storage.check())
    if not answers:
        _found_down["at"] = time.monotonic()
    return answers


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

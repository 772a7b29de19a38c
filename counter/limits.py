"""Rate limits: bounded work for anyone, and more than any real table ever needs.

Writes are counted per browser key and per client address; imports and the
links that reach another device are counted on their own, lower. Reads are
never limited. Counts are kept in memory (one process, the quick start) or in
Redis when ``RATELIMIT_STORAGE_URI`` names one, so that every worker and server
shares them. A request over a limit answers 429 with ``Retry-After``, in the
language of the page.

The limits are a safety net and never take the counter down with them: while
Redis does not answer, each process counts in its own memory. Flask-Limiter tries
Redis again on a request after 1 s, then after 2, 4, ... up to 32 s, and counts
there again as soon as it answers.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app
from flask_babel import ngettext
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage, RedisStorage

from counter.browser import browser_key
from counter.errors import error_response

WRITE_METHODS = ["POST", "PATCH", "DELETE"]
# The defaults, each a setting of its own (config.py). A phone that was offline for
# an evening sends its taps in one burst; a café's tables may share one address.
DEFAULTS = {
    "RATELIMIT_WRITES_PER_BROWSER": "600 per minute;6000 per hour",
    "RATELIMIT_WRITES_PER_ADDRESS": "1200 per minute;20000 per hour",
    "RATELIMIT_IMPORTS": "20 per hour",
    "RATELIMIT_LINKS": "30 per hour",  # device links made and used, share links made
    # Reads that cost in proportion to a whole history: exports and statistics.
    "RATELIMIT_HEAVY_READS": "60 per hour",
    # A store that does not answer (Redis down) means counting in memory, not refusing taps.
    "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
}
# A Redis that hangs rather than refuses costs a request half a second, once: then
# the counts are kept in memory until it answers again.
REDIS_OPTIONS = {"socket_connect_timeout": 0.5, "socket_timeout": 0.5}


def per_address() -> str:
    """The client's address; for IPv6 its /64, which one household or phone holds whole."""
    address = get_remote_address()
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False).network_address)
    return address


limiter = Limiter(key_func=per_address, strategy="fixed-window")
View = TypeVar("View", bound=Callable[..., Any])


def per_browser() -> str:
    """The browser's key, or its address before it has one (never empty: that means no limit)."""
    key = browser_key()
    return f"browser:{key}" if key else f"address:{per_address()}"


def _setting(name: str) -> Callable[[], str]:
    return lambda: str(current_app.config[name])


def writes(blueprint: Blueprint) -> Blueprint:
    """Count every write of ``blueprint`` against the browser's and the address's limits.

    Called once per blueprint, where it is made: the limiter keeps what it is given.
    """
    limiter.shared_limit(
        _setting("RATELIMIT_WRITES_PER_BROWSER"),
        scope="writes-browser",
        key_func=per_browser,
        methods=WRITE_METHODS,
    )(blueprint)
    limiter.shared_limit(
        _setting("RATELIMIT_WRITES_PER_ADDRESS"), scope="writes-address", methods=WRITE_METHODS
    )(blueprint)
    return blueprint


def _both(setting: str, scope: str) -> Callable[[View], View]:
    rate = _setting(setting)

    def limited(view: View) -> View:
        by_address = limiter.shared_limit(rate, scope=f"{scope}-address")
        by_browser = limiter.shared_limit(rate, scope=f"{scope}-browser", key_func=per_browser)
        return cast(View, by_browser(by_address(view)))

    return limited


imports = _both("RATELIMIT_IMPORTS", "imports")
"""Bound a view that reads an import (a file of up to 16 MB)."""
links = _both("RATELIMIT_LINKS", "links")
"""Bound a view that makes or spends a link to another device or phone."""
heavy_reads = _both("RATELIMIT_HEAVY_READS", "heavy-reads")
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
    retry = 60 if current is None else max(1, math.ceil(current.reset_at - time.time()))
    return error_response(
        ngettext(
            "Too many requests from here; wait %(num)s second and try again.",
            "Too many requests from here; wait %(num)s seconds and try again.",
            retry,
        ),
        429,
        {"Retry-After": str(retry)},
    )

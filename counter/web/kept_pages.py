"""Pages rendered once and kept, with the few values that differ per request put in
each time.

A page holds three values of its own request: the CSRF token, and on the counter
a fresh request id and match uid. Everything else follows from what the page shows
(the match, the language, the display choices): a page is rendered with markers
where those values go, kept under what it shows, and served again with this
request's values in place of the markers. A marker holds ``<``, which no rendered
text can (the templates escape it, and JSON in an attribute writes it ``\\u003c``),
so only a marker is ever replaced.

A process keeps :data:`KEPT` pages, the ones used last. The pages are rendered
each time while templates reload (``flask run --debug``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

from flask import Flask, current_app, g
from markupsafe import Markup

from counter.web.recent import Recent
from counter.web.security import csrf_token

KEPT = 32  # pages, each of a few dozen KB: a table's match in both languages, and more

CSRF = Markup("<csrf>")
"""Where the page's CSRF token goes; the other markers are the caller's."""


def init_app(app: Flask) -> None:
    app.extensions["kept_pages"] = Recent[Hashable, str](KEPT)


def kept(key: Hashable | None, values: Mapping[str, str]) -> str | None:
    """The page kept under ``key``, with ``values`` and this request's CSRF token in
    place of their markers; None if none is kept (or ``key`` is None)."""
    pages: Recent[Hashable, str] = current_app.extensions["kept_pages"]
    found = None if key is None or current_app.jinja_env.auto_reload else pages.get(key)
    return None if found is None else _filled(found, values, csrf_token())


def page(key: Hashable | None, render: Callable[[], str], values: Mapping[str, str]) -> str:
    """The page ``render`` makes, with ``values`` (marker: value) and this request's CSRF
    token in place of their markers. Kept under ``key``, unless it is None: a page
    with something of this request alone on it (a message, an error)."""
    token = csrf_token()  # before the page is rendered with its marker in its place
    pages: Recent[Hashable, str] = current_app.extensions["kept_pages"]
    if current_app.jinja_env.auto_reload:
        key = None  # templates may change under a running process: render each time
    found = None if key is None else pages.get(key)
    if found is None:
        found = _with_markers(render)
        if key is not None:
            pages.keep(key, found)
    return _filled(found, values, token)


def _filled(page: str, values: Mapping[str, str], token: str) -> str:
    for marker, value in {**values, CSRF: token}.items():
        page = page.replace(marker, value)
    return page


def _with_markers(render: Callable[[], str]) -> str:
    """What ``render`` makes while the CSRF token of this request is its marker."""
    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    token = g.get(field)
    setattr(g, field, CSRF)  # csrf_token() answers what the request already has
    try:
        return render()
    finally:
        setattr(g, field, token)

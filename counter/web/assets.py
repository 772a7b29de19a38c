"""The stylesheets and scripts as they travel: minified, without what was written for people.

There is no build step: the files in static/ are the source. A phone needs none of
their comments, indentation or spaces, so each is sent minified (rjsmin and rcssmin,
which know strings and regular expressions from comments), worked out once per
version of the file. Every other file is sent as it is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import rcssmin
import rjsmin
from flask import Flask, Response, abort, current_app, request, send_from_directory
from markupsafe import Markup

MIMETYPES = {".js": "text/javascript", ".css": "text/css"}
MINIFIERS: dict[str, Callable[[str], str]] = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}


@lru_cache(maxsize=32)
def minified(path: Path, _version: float) -> bytes:
    """``path`` minified (cached per modification time)."""
    return MINIFIERS[path.suffix](path.read_text(encoding="utf-8")).encode()


@lru_cache(maxsize=1)
def icon_uri(folder: str) -> Markup:
    """static/icon.svg as a data: address: the tab's icon comes with the page, no request.

    Safe in a double-quoted attribute as it is: quote() leaves no '"', '<', '>' or '&'.
    """
    svg = (Path(folder) / "icon.svg").read_text(encoding="utf-8").strip().replace('"', "'")
    return Markup("data:image/svg+xml," + quote(svg, safe=" =:/,'()-."))


def static(filename: str) -> Response:
    """A file of static/: scripts and stylesheets without their comments, the rest as they are."""
    folder = Path(current_app.static_folder or "")
    try:
        path = (folder / filename).resolve()
        inside = path.is_relative_to(folder.resolve()) and path.is_file()
    except (ValueError, OSError):  # a NUL in the name, a name too long for the disk
        abort(404)
    if path.suffix not in MIMETYPES or not inside:
        return send_from_directory(folder, filename)
    body = minified(path, path.stat().st_mtime)
    response = Response(body, mimetype=MIMETYPES[path.suffix])
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.cache_control.no_cache = True  # revalidate: a 304 costs a round trip, no bytes
    response.make_conditional(request)
    return response


def init_app(app: Flask) -> None:
    """Serve static/ through :func:`static`, under the endpoint templates already use."""
    app.view_functions["static"] = static
    app.jinja_env.globals["icon_uri"] = lambda: icon_uri(app.static_folder or "")

"""static/ as it travels: scripts and stylesheets minified (rjsmin, rcssmin), no build step."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import rcssmin
import rjsmin
from flask import Flask, Response, abort, current_app, request, send_from_directory
from markupsafe import Markup

MIMETYPES = {".js": "text/javascript", ".css": "text/css"}
MINIFIERS: dict[str, Callable[[str], str]] = {
    ".js": lambda text: rjsmin.jsmin(text, keep_bang_comments=True),  # a licence's /*! */
    ".css": rcssmin.cssmin,
}
# A static import of a module beside it: `from "./x.js"` (a dynamic import() loads later).
IMPORT = re.compile(r'from\s*"\./([\w-]+\.js)"')


@lru_cache(maxsize=64)
def minified(path: Path, _version: float) -> bytes:
    return MINIFIERS[path.suffix](path.read_text(encoding="utf-8")).encode()


def imported(folder: Path, entry: str) -> list[str]:
    """The modules ``entry`` imports, and theirs, in the order they are first named."""
    found: list[str] = []
    waiting = [entry]
    while waiting:
        text = (folder / waiting.pop(0)).read_text(encoding="utf-8")
        for name in IMPORT.findall(text):
            if name not in found and name != entry:
                found.append(name)
                waiting.append(name)
    return found


@lru_cache(maxsize=1)
def icon_uri(folder: str) -> Markup:
    """static/icon.svg as a data: address, safe in a double-quoted attribute."""
    svg = (Path(folder) / "icon.svg").read_text(encoding="utf-8").strip().replace('"', "'")
    return Markup("data:image/svg+xml," + quote(svg, safe=" =:/,'()-."))


def static(filename: str) -> Response:
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
    app.view_functions["static"] = static
    folder = Path(app.static_folder or "")
    app.jinja_env.globals["icon_uri"] = lambda: icon_uri(str(folder))
    app.jinja_env.globals["preloads"] = lambda entry: imported(folder, entry)

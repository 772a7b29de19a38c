"""static/ as it travels: scripts and stylesheets minified (rjsmin, rcssmin), no build step."""

import hashlib
import os
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote

import rcssmin
import rjsmin
from flask import Flask, Response, current_app, request, send_from_directory
from markupsafe import Markup
from werkzeug.security import safe_join

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
    found = [entry]
    for module in found:  # read as it grows: each module once
        text = (folder / module).read_text(encoding="utf-8")
        found += [name for name in dict.fromkeys(IMPORT.findall(text)) if name not in found]
    return found[1:]


@lru_cache(maxsize=1)
def icon_uri(folder: str) -> Markup:
    """static/icon.svg as a data: address, safe in a double-quoted attribute."""
    svg = (Path(folder) / "icon.svg").read_text(encoding="utf-8").strip().replace('"', "'")
    return Markup("data:image/svg+xml," + quote(svg, safe=" =:/,'()-."))


def static(filename: str) -> Response:
    folder = current_app.static_folder or ""
    path = safe_join(folder, filename)
    suffix = Path(filename).suffix
    if suffix not in MIMETYPES or path is None or not os.path.isfile(path):
        return send_from_directory(folder, filename)  # any other file as it is, or a 404
    body = minified(Path(path), os.path.getmtime(path))
    response = Response(body, mimetype=MIMETYPES[suffix])
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.cache_control.no_cache = True  # revalidate: a 304 costs a round trip, no bytes
    response.make_conditional(request)
    return response


def init_app(app: Flask) -> None:
    app.view_functions["static"] = static
    folder = Path(app.static_folder or "")
    app.jinja_env.globals["icon_uri"] = lambda: icon_uri(str(folder))
    app.jinja_env.globals["preloads"] = lambda entry: imported(folder, entry)

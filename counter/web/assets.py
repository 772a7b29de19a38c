"""The stylesheets and scripts as they travel: without the comments written for people.

There is no build step: the files in static/ are the source. A phone needs none of
their comments or indentation, so each is sent without them, worked out once per
version of the file. Left out: whole-line comments and comments after code that
start with " // " in scripts (the scripts hold no such text in a string), ``/* … */``
in stylesheets, and leading spaces. Every other file is sent as it is.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from pathlib import Path

from flask import Flask, Response, abort, current_app, request, send_from_directory

SCRIPT_COMMENT = re.compile(r"^[ \t]*//[^\n]*\n|[ \t]+// [^\n]*$", re.MULTILINE)
STYLE_COMMENT = re.compile(r"/\*.*?\*/\n?", re.DOTALL)
INDENT = re.compile(r"^[ \t]+", re.MULTILINE)
MIMETYPES = {".js": "text/javascript", ".css": "text/css"}


@lru_cache(maxsize=32)
def without_comments(path: Path, _version: float) -> bytes:
    """``path`` without whole-line comments and indentation (cached per modification time)."""
    text = path.read_text(encoding="utf-8")
    comment = SCRIPT_COMMENT if path.suffix == ".js" else STYLE_COMMENT
    return INDENT.sub("", comment.sub("", text)).encode()


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
    body = without_comments(path, path.stat().st_mtime)
    response = Response(body, mimetype=MIMETYPES[path.suffix])
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    response.cache_control.no_cache = True  # revalidate: a 304 costs a round trip, no bytes
    response.make_conditional(request)
    return response


def init_app(app: Flask) -> None:
    """Serve static/ through :func:`static`, under the endpoint templates already use."""
    app.view_functions["static"] = static

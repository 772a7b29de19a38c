"""The stylesheets and scripts as they travel: minified, without what was written for people.

There is no build step: the files in static/ are the source. A phone needs none of
their comments, indentation or spaces, so each is sent minified (rjsmin and rcssmin,
which know strings and regular expressions from comments), worked out once per
version of the files. Every other file is sent as it is.

The counter page's script (``static/counter.js``) travels as one file with the modules it
imports: gzip then compresses them with one dictionary: 6,939 bytes, against 8,009
as four files (bench/NOTES.md). They stay files of their own in static/, one concern
each. A module of that bundle asked for alone (a module loaded later imports it) is
answered with the bundle itself, so that every script of the page shares one state.
"""

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
MINIFIERS: dict[str, Callable[[str], str]] = {".js": rjsmin.jsmin, ".css": rcssmin.cssmin}


ENTRY = "counter.js"  # the counter page's script
# What the bundle can join: ``import { a, b } from "./x.js";`` on a line of its own.
# A name declared twice by the modules joined is said at once by name (the browser would
# refuse the whole file); this finds the plain declarations, which is how they are written.
NAMED_IMPORT = re.compile(r'^import\s*\{([^}]*)\}\s*from\s*"\./([\w-]+\.js)";?[ \t]*\n?', re.M)
# Any other static import, or a re-export from another file: none can be joined.
IMPORT = re.compile(
    r"^\s*(?:import(?:\s+[\w$]|\s*[{*\"'])|export\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\b)",
    re.M,
)
DECLARED = re.compile(
    r"^(?:export\s+)?(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)", re.M
)


class CannotBundle(ValueError):
    """A module the bundle cannot join as it is written (said when the file is served)."""


def bundle(folder: Path, entry: str = ENTRY) -> dict[str, str]:
    """``entry`` and the modules it imports, the imports first (the order a browser runs
    them in), each without its imports: joined, they are one module."""
    modules: dict[str, str] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise CannotBundle(f"{' -> '.join((*path, name))}: modules that import each other")
        if name in modules:
            return
        text = (folder / name).read_text(encoding="utf-8")
        for names, imported in NAMED_IMPORT.findall(text):
            if " as " in names:
                raise CannotBundle(f"{name}: an import renamed with `as` cannot be joined")
            visit(imported, (*path, name))
        body = NAMED_IMPORT.sub("", text)
        if IMPORT.search(body):
            raise CannotBundle(f'{name}: only `import {{ … }} from "./x.js";` can be joined')
        modules[name] = body

    visit(entry, ())
    declared: dict[str, str] = {}
    for name, body in modules.items():
        for each in DECLARED.findall(body):
            if each in declared:
                raise CannotBundle(f"{each} is declared in {declared[each]} and in {name}")
            declared[each] = name
    return modules


def _versions(folder: Path) -> tuple[tuple[str, float], ...]:
    """The scripts of ``folder`` and when each last changed (an editor's lock or backup
    file, hidden, is none of them)."""
    found = []
    for path in folder.glob("*.js"):
        try:
            if not path.name.startswith(".") and path.is_file():
                found.append((path.name, path.stat().st_mtime))
        except OSError:  # gone meanwhile
            continue
    return tuple(sorted(found))


@lru_cache(maxsize=32)
def minified(path: Path, _version: float) -> bytes:
    """``path`` minified (cached per modification time)."""
    return MINIFIERS[path.suffix](path.read_text(encoding="utf-8")).encode()


@lru_cache(maxsize=32)
def script(path: Path, _version: tuple[tuple[str, float], ...]) -> bytes:
    """A script of static/ as it travels (cached per version of all of them): the page's
    script joined with its modules, one of those modules as that script, any other one
    minified. A bundle that cannot be made fails the page's script alone."""
    try:
        joined = bundle(path.parent)
    except CannotBundle:
        if path.name == ENTRY:
            raise
        joined = {}
    if path.name == ENTRY:
        return MINIFIERS[".js"]("\n".join(joined.values())).encode()
    if path.name in joined:  # the bundle, as the one instance of this module
        return f'export * from "./{ENTRY}";'.encode()
    return MINIFIERS[".js"](path.read_text(encoding="utf-8")).encode()


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
    scripts = path.parent == folder.resolve() and (path.parent / ENTRY).is_file()
    if path.suffix == ".js" and scripts:  # one of static/'s own: it may be in the bundle
        body = script(path, _versions(path.parent))
    else:
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

"""The rest of the site: rules, statistics, the language and display switches, installing."""

import json

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response

from counter.game.refusals import N_, Malformed
from counter.services import statistics
from counter.web import assets, i18n, limits
from counter.web.browser import current_owner

bp = limits.writes(Blueprint("site", __name__))


@bp.get("/rules")
@bp.get("/rules/<any(sixty_six, schnapsen):game>")
def rules(game: str = "santase") -> str:
    folder = "rules" if game == "santase" else f"rules/{game}"
    return render_template(f"{folder}/{i18n.select_language()}.html")


@bp.get("/statistics")
@limits.heavy_reads
def statistics_page() -> str:
    return render_template("statistics.html", pairs=statistics.statistics(owner=current_owner()))


@bp.post("/language")
def choose_language() -> Response:
    language = request.form.get("language")
    if language not in i18n.LANGUAGES:
        raise Malformed(N_("Choose Bulgarian, English or German."))
    return _back_with({i18n.COOKIE: language}, httponly=True)


def _back_with(cookies: dict[str, str], *, httponly: bool = False) -> Response:
    """Back to the form's ``next`` page on this site, with ``cookies`` set."""
    back = request.form.get("next") or ""
    # On this site only: a browser reads "//" and "/\\" as another site's.
    local = back.startswith("/") and not back.startswith("//") and "\\" not in back
    response = redirect(back if local and back.isprintable() else url_for("play.home"))
    for name, value in cookies.items():
        response.set_cookie(
            name,
            value,
            max_age=i18n.COOKIE_AGE,
            httponly=httponly,
            samesite="Lax",
            secure=request.is_secure,
        )
    return response


# Display switches, each a cookie (the script writes them too): its values, "on" first.
DISPLAY: dict[str, tuple[str, str]] = {"theme": ("dark", "light"), "facing": ("on", "off")}


def display() -> dict[str, str | None]:
    return {
        name: value if (value := request.cookies.get(name)) in values else None
        for name, values in DISPLAY.items()
    }


@bp.post("/display")
def choose_display() -> Response:
    chosen = {name: request.form[name] for name in DISPLAY if name in request.form}
    if not chosen or any(value not in DISPLAY[name] for name, value in chosen.items()):
        raise Malformed(N_("Choose the theme (dark or light) or face to face (on or off)."))
    return _back_with(chosen)


@bp.get("/robots.txt")
def robots() -> Response:
    return Response("User-agent: *\nAllow: /rules\nDisallow: /\n", mimetype="text/plain")


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    body = {
        "name": gettext("Santase Counter"),
        "short_name": gettext("Santase"),
        "lang": i18n.select_language(),
        "start_url": "/",
        "display": "standalone",
        "background_color": "#f6f4ef",
        "theme_color": "#1f6f43",
        "icons": [
            {
                "src": url_for("static", filename=f"icon-{size}.png"),
                "sizes": f"{size}x{size}",
                "type": "image/png",
                "purpose": "maskable",  # full-bleed; for "any", the SVG (rounded) below
            }
            for size in (192, 512)
        ]
        + [
            {"src": url_for("static", filename="icon.svg"), "sizes": "any", "type": "image/svg+xml"}
        ],
    }
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    response = Response(text, mimetype="application/manifest+json")
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")  # the language switch
    return response


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so that it may look after every page."""
    response = assets.static("sw.js")
    response.headers["Cache-Control"] = "no-cache"
    return response

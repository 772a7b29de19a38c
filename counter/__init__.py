"""Santase Counter: a Flask app that keeps the score of Santase (66) matches."""

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from jinja2.ext import Extension
from werkzeug.routing import IntegerConverter

from counter import config, web
from counter.storage import migrating, push
from counter.storage.models import MAX_ID, db, tune_engine
from counter.web import api, errors, health, i18n, import_size, limits, live, security

PACKAGE_DIR = Path(__file__).resolve().parent


class PositiveIdConverter(IntegerConverter):
    """1 to :data:`MAX_ID`, at most ten digits, so that no address costs a huge int."""

    regex = r"\d{1,10}"

    def __init__(self, map: Any) -> None:  # noqa: A002 - Werkzeug's parameter name
        super().__init__(map, min=1, max=MAX_ID)


def _shipped_folder(name: str) -> str:
    """``counter/<name>`` in an installed wheel, else the checkout's top-level folder."""
    inside = PACKAGE_DIR / name
    return str(inside if inside.is_dir() else PACKAGE_DIR.parent / name)


class Unindented(Extension):
    """Strip templates' indentation: bytes phones need not download (no <pre> or <textarea>)."""

    INDENT = re.compile(r"^[ \t]+", re.MULTILINE)

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return self.INDENT.sub("", source)


def create_app(test_config: Mapping[str, Any] | None = None, *, production: bool = False) -> Flask:
    """``test_config`` replaces the environment; ``production`` refuses local-only settings."""
    app = Flask(
        __name__,
        template_folder=_shipped_folder("templates"),
        static_folder=_shipped_folder("static"),
    )
    config.configure(app, test_config, production=production)
    app.jinja_options = {"trim_blocks": True, "lstrip_blocks": True, "extensions": [Unindented]}
    # Compact JSON for the scripts, Cyrillic unescaped (tojson still escapes what HTML reads).
    app.jinja_env.policies["json.dumps_kwargs"] = dict(
        sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    db.init_app(app)
    for converter in ("match_id", "number", "id"):
        app.url_map.converters[converter] = PositiveIdConverter

    i18n.init_app(app, str(PACKAGE_DIR / "translations"))
    import_size.init_app(app)
    web.init_app(app)
    push.init_app(app)
    for blueprint in (api.bp, live.bp, health.bp):
        app.register_blueprint(blueprint)
    errors.init_app(app)
    limits.init_app(app)
    security.init_app(app, exempt=[api.bp, live.bp, health.bp])

    if os.environ.get("FLASK_RUN_FROM_CLI") == "true":
        migrating.register(app)
    with app.app_context():
        tune_engine(db.engine, lock_timeout_ms=app.config["WRITE_LOCK_TIMEOUT_MS"])
        if app.config["AUTO_MIGRATE"] and not migrating.up_to_date(db.engine):
            migrating.upgrade_in_own_process(db.engine.url.render_as_string(hide_password=False))
    return app

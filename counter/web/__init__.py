"""The HTML pages, one blueprint per feature; every page works without JavaScript."""

from __future__ import annotations

from flask import Flask

from counter import i18n
from counter.scoring import TARGETS, Outcome
from counter.services.views import moment
from counter.web import archive, assets, devices, history, play, privacy, sharing, site, words

BLUEPRINTS = (play.bp, history.bp, sharing.bp, devices.bp, archive.bp, privacy.bp, site.bp)


def init_app(app: Flask) -> None:
    """Register the pages, and make the game's words available to every template."""
    archive.init_app(app)
    assets.init_app(app)
    for blueprint in BLUEPRINTS:
        app.register_blueprint(blueprint)
    app.jinja_env.globals.update(
        outcomes=list(Outcome),
        outcome_name=words.outcome_name,
        outcome_hint=words.outcome_hint,
        receives=words.receives,
        no_points=words.NO_POINTS,
        house_rules=words.house_rules,
        presets=words.presets,
        rules_summary=words.rules_summary,
        targets=TARGETS,
        languages=i18n.LANGUAGE_NAMES,
        display=site.display,
        display_switches=site.DISPLAY,
        cookie_age=i18n.COOKIE_AGE,
    )
    app.jinja_env.filters["moment"] = moment
    app.jinja_env.globals["decimal"] = words.decimal

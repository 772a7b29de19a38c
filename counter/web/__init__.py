"""The HTML pages, one blueprint per feature; every page works without JavaScript."""

from flask import Flask

from counter.game.names import NAME_MAX_LENGTH
from counter.game.scoring import TARGETS, Outcome
from counter.storage.timestamps import iso_utc
from counter.web import (
    assets,
    browser,
    devices,
    evenings,
    export_import,
    history,
    i18n,
    play,
    privacy,
    share_pages,
    site,
    words,
)


def init_app(app: Flask) -> None:
    """Register the pages, and give every template the game's words and numbers."""
    assets.init_app(app)
    for pages in (play, history, share_pages, devices, evenings, export_import, privacy, site):
        app.register_blueprint(pages.bp)
    app.after_request(browser.forget_unused_device)
    app.jinja_env.globals.update(
        outcomes=list(Outcome),
        outcome_name=words.outcome_name,
        outcome_hint=words.outcome_hint,
        receives=words.receives,
        no_points=words.NO_POINTS,
        house_rules=words.house_rules,
        presets=words.presets,
        game_names=words.games,
        tally_label=words.tally_label,
        match_word=words.match_word,
        rules_summary=words.rules_summary,
        session_line=words.session_line,
        targets=TARGETS,
        name_max_length=NAME_MAX_LENGTH,
        languages=i18n.LANGUAGE_NAMES,
        default_names=i18n.default_names,
        display=site.display,
        display_switches=site.DISPLAY,
        cookie_age=i18n.COOKIE_AGE,
    )
    app.jinja_env.filters["iso_utc"] = iso_utc

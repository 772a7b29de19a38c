"""What the site keeps about a browser, and erasing all of it."""

from __future__ import annotations

import secrets

from flask import Blueprint, flash, redirect, render_template, url_for
from flask_babel import gettext, ngettext
from werkzeug.wrappers import Response

from counter.services import devices, keys, matches
from counter.web import forms, i18n, limits
from counter.web.browser import changed, current_owner, device_id, ensure_device
from counter.web.forms import confirm_page

bp = limits.writes(Blueprint("privacy", __name__))


@bp.get("/privacy")
def privacy() -> str:
    """What is stored, for how long, and how to erase it; in the page's language."""
    owner = current_owner()
    count = matches.count(owner=owner)
    return render_template(
        f"privacy/{i18n.select_language()}.html",
        match_count=count,
        devices=[] if owner is None else devices.list_devices(owner=owner, this_device=device_id()),
        rotation=secrets.token_urlsafe(16),  # the same form twice gives the same new key
    )


@bp.post("/privacy/erase")
def erase() -> Response | str:
    """Erase every match of this browser, its links and its key, after the player confirms."""
    owner = current_owner()
    if not forms.confirmed():
        count = matches.count(owner=owner)
        return confirm_page(
            title=gettext("Erase everything?"),
            message=ngettext(
                "%(num)s match with all its deals, its share link and device links, and this "
                "browser's key will be deleted for good. Other devices that continue these "
                "matches lose them too.",
                "%(num)s matches with all their deals, their share links and device links, and "
                "this browser's key will be deleted for good. Other devices that continue these "
                "matches lose them too.",
                count,
            ),
            action=url_for("privacy.erase"),
            fields={},
            button=gettext("Erase everything"),
            back=url_for("privacy.privacy"),
            danger=True,
        )
    erased = None if owner is None else keys.erase_everything(device=ensure_device())
    changed()
    flash(
        ngettext(
            "Erased: %(num)s match. This browser starts afresh.",
            "Erased: %(num)s matches. This browser starts afresh.",
            0 if erased is None else erased.matches,
        )
    )
    response = redirect(url_for("play.home"))
    # And what this browser kept of them: the counter page's stored copy and outbox
    # (static/outbox.js) and the service worker's cache. Browsers do this over HTTPS and at
    # localhost; over plain http the page asks the server, which no longer has them.
    response.headers["Clear-Site-Data"] = '"storage"'
    return response

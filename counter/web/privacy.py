"""What the site keeps about a browser, and erasing all of it."""

import secrets

from flask import Blueprint, current_app, flash, redirect, render_template, url_for
from flask_babel import gettext, ngettext
from werkzeug.wrappers import Response

from counter.services import devices, forgetting, keys, matches
from counter.services.devices import Device
from counter.web import forms, i18n, limits
from counter.web.browser import current_owner, new_token, this_device

bp = limits.writes(Blueprint("privacy", __name__))


@bp.get("/privacy")
def privacy() -> str:
    device = this_device()
    return render_template(
        f"privacy/{i18n.select_language()}.html",
        match_count=matches.count(owner=current_owner()),
        devices=devices.list_devices(owner=device.owner, this_device=device.id) if device else [],
        brought=device is not None and devices.has_maker(owner=device.owner, device_id=device.id),
        own_count=_own_count(device),
        rotation=secrets.token_urlsafe(16),
    )


def _own_count(device: Device | None) -> int:
    own = None if device is None else keys.own_key(device)
    return matches.count(owner=own)


@bp.post("/privacy/erase")
def erase() -> Response | str:
    device = this_device()
    nonce = forms.nonce()
    if not forms.confirmed():
        return forms.confirm_page(
            title=gettext("Erase everything?"),
            message=_what_goes(device),
            button=gettext("Erase everything"),
            back=url_for("privacy.privacy"),
            danger=True,
        )
    erased: int | None = 0
    if device is not None:
        token, erased = forgetting.erase_everything(
            token=device.token, nonce=nonce, secret=current_app.config["SECRET_KEY"]
        )
        new_token(token)
    if erased is None:
        flash(gettext("Everything was erased already. This browser starts afresh."))
    else:
        flash(
            ngettext(
                "Erased: %(num)s match. This browser starts afresh.",
                "Erased: %(num)s matches. This browser starts afresh.",
                erased,
            )
        )
    response = redirect(url_for("play.home"))
    # The page's stored copy, outbox and the service worker's cache (not over plain http).
    response.headers["Clear-Site-Data"] = '"storage"'
    return response


def _what_goes(device: Device | None) -> str:
    count = _own_count(device)
    if device is not None and devices.has_maker(owner=device.owner, device_id=device.id):
        guest: str = ngettext(
            "This device stops continuing the other device's matches, which stay there. Its "
            "own %(num)s match from before it joined, its links and its key are deleted for good.",
            "This device stops continuing the other device's matches, which stay there. Its "
            "own %(num)s matches from before it joined, its links and its key are deleted for "
            "good.",
            count,
        )
        return guest
    first: str = ngettext(
        "%(num)s match with all its deals, its share link and device links, and this "
        "browser's key will be deleted for good. Other devices that continue these "
        "matches lose them too.",
        "%(num)s matches with all their deals, their share links and device links, and "
        "this browser's key will be deleted for good. Other devices that continue these "
        "matches lose them too.",
        count,
    )
    return first

"""Which device is asking, and the key it holds.

The signed, permanent session cookie names the device by a random token; the key,
which owns the matches, is the device's row (:mod:`counter.services.devices`). The
token changes only when the player forgets other devices or erases everything, and an
answer that did not change it sends it back only when the device is back after a while
(good for another year), never with every answer; and no answer sends back a token that
was replaced, even one read before it was (:func:`stale_cookie`). A cookie from before
devices were kept carries the key itself: its device is registered the first time it is
seen.
"""

from __future__ import annotations

import re
from contextlib import suppress
from http import HTTPStatus

from flask import Response, g, request, session
from sqlalchemy.exc import SQLAlchemyError

from counter.game.refusals import Busy
from counter.services import devices, evenings, newcomers
from counter.services.devices import Device
from counter.storage.repository import MatchNotFound

SESSION_DEVICE = "device"
SESSION_TABLES = "tables"  # the table links of club evenings this browser opened
LEGACY_KEY = "browser"  # what older cookies carried: the key itself

# The first name that matches is the device's, so Edge and Opera come before Chrome.
BROWSERS = (
    ("Firefox", "Firefox"),
    ("Edg", "Edge"),
    ("OPR", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Chrome", "Chrome"),
    ("Safari", "Safari"),
)
SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Windows", "Windows"),
    ("Mac OS", "Mac"),
    ("Linux", "Linux"),
)


def this_device() -> Device | None:
    """The device asking, or None before it has recorded anything (or after it was forgotten)."""
    if "device" not in g:
        token = session.get(SESSION_DEVICE)
        legacy = session.get(LEGACY_KEY)
        if isinstance(token, str):
            g.device = devices.find(token=token)
            if g.device is not None and g.device.replaced:
                g.replaced_token = token
            elif g.device is not None and g.device.seen_now:
                session.modified = True  # sent again, for another year
        elif isinstance(legacy, str) and legacy:
            _remember(devices.register(owner=legacy, label=device_label()))
        else:
            g.device = None
    device: Device | None = g.device
    return device


def device_token() -> str | None:
    """The token of the device this cookie names, if it names one that :func:`this_device`
    has not read yet (a page that reads more with it: :func:`found`)."""
    token = session.get(SESSION_DEVICE)
    return token if isinstance(token, str) and "device" not in g else None


def found(device: Device | None) -> None:
    """The device of :func:`device_token`, as read with what the page needed besides."""
    g.device = device


def current_owner() -> str | None:
    """The key this device holds, or None."""
    device = this_device()
    return None if device is None else device.owner


def ensure_device() -> Device:
    """This device, registered with a fresh key (and the cookie made to last a year) on the
    first write."""
    device = this_device()
    if device is None:
        device = devices.register(owner=None, label=device_label())
        _remember(device)
        g.made_device = device.id
    return device


def made_device(_response: Response) -> bool:
    """Whether this request made a device (a write without a cookie), kept or not."""
    return "made_device" in g


def forget_unused_device(response: Response) -> Response:
    """After each request: a device it made and then recorded nothing with (refused, or the
    database busy) is forgotten again, and the cookie does not name it, so that refused
    writes leave no rows behind."""
    if "made_device" in g and response.status_code >= HTTPStatus.BAD_REQUEST:
        # With the database not answering, it is forgotten within the hour all the same.
        with suppress(Busy, SQLAlchemyError):
            newcomers.forget_new(device_id=g.made_device)
        session.pop(SESSION_DEVICE, None)
        g.pop("device", None)
    return response


def ensure_owner() -> str:
    return ensure_device().owner


def device_id() -> int | None:
    """The asking device's number, if it has one (what it shows is remembered under it)."""
    device = this_device()
    return None if device is None else device.id


def owner_of(match_id: int, *, reading: bool = False) -> str:
    """This device's key; a device without one has no matches, so the match is not found.

    For the match of a club evening's table whose link this browser opened, the host's
    key: for that match alone, and for writing only until the evening ends.
    """
    device = this_device()
    owner = None if device is None else device.owner
    # A copy of a cookie whose token was replaced keeps no table link of that cookie either.
    kept = [] if device is not None and device.replaced else session.get(SESSION_TABLES, [])
    tokens = [each for each in kept if isinstance(each, str)]
    writing = not reading
    if tokens and (
        host := evenings.table_host(tokens=tokens, match_id=match_id, asking=owner, writing=writing)
    ):
        return host
    if owner is None:
        raise MatchNotFound.with_id(match_id)
    return owner


def changed() -> None:
    """The device's key changed in this request (handed over, rotated, erased): read it again."""
    g.pop("device", None)


def new_token(token: str) -> None:
    """This device's cookie names it by ``token`` from now on."""
    session[SESSION_DEVICE] = token
    session.permanent = True
    g.pop("device", None)


def stale_cookie() -> bool:
    """Whether the cookie to send back would name a token that was replaced: a copy of an
    old cookie, or this device's own request that read its token before another request
    replaced it (asked again now, as the cookie is about to be sent)."""
    token = session.get(SESSION_DEVICE)
    if not isinstance(token, str):
        return False
    if token == g.get("replaced_token"):
        return True
    with suppress(Busy, SQLAlchemyError):  # the database gone: the cookie stands as it is
        return devices.replaced(token=token)
    return False


def _remember(device: Device) -> None:
    session.pop(LEGACY_KEY, None)
    session[SESSION_DEVICE] = device.token
    session.permanent = True
    g.device = device


def device_label() -> str:
    """A device in a few words, from its User-Agent: "Chrome on Android"."""
    agent = request.headers.get("User-Agent", "")
    name = next((name for mark, name in BROWSERS if mark in agent), "")
    system = next((name for mark, name in SYSTEMS if re.search(rf"\b{mark}", agent)), "")
    return " · ".join(part for part in (name, system) if part)

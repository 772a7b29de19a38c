"""Which device is asking (its session cookie names it by a token), and the key it holds."""

import re
from contextlib import suppress
from http import HTTPStatus

from flask import Response, g, request, session, url_for
from sqlalchemy.exc import SQLAlchemyError

from counter.game.refusals import Busy
from counter.services import devices, evenings, newcomers
from counter.storage.repository import MatchNotFound

SESSION_DEVICE = "device"
SESSION_TABLES = "tables"  # the club evenings' table links this browser opened
LEGACY_KEY = "browser"  # older cookies carried the key itself

# The marks of a User-Agent, the first found naming the device: Edge and Opera before Chrome.
BROWSERS = ("Firefox", "Edg", "OPR", "SamsungBrowser", "Chrome", "Safari")
SYSTEMS = ("Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux")
SAID_AS = {"Edg": "Edge", "OPR": "Opera", "SamsungBrowser": "Samsung Internet", "Mac OS": "Mac"}


def this_device() -> devices.Device | None:
    if "device" not in g:
        token = session.get(SESSION_DEVICE)
        if isinstance(token, str):
            g.device = devices.find(token=token)
            if g.device is not None and g.device.replaced:
                g.replaced_token = token
            elif g.device is not None and g.device.seen_now:
                session.modified = True  # sent again, for another year
        elif isinstance(legacy := session.get(LEGACY_KEY), str) and legacy:
            _remember(devices.register(owner=legacy, label=device_label()))
        else:
            g.device = None
    device: devices.Device | None = g.device
    return device


def current_owner() -> str | None:
    device = this_device()
    return None if device is None else device.owner


def own_key(match_id: int) -> str:
    """This browser's own key for a match, never a club table link's host key."""
    owner = current_owner()
    if owner is None:
        raise MatchNotFound.with_id(match_id)
    return owner


def ensure_device() -> devices.Device:
    """This device, registered with a fresh key on the first write."""
    device = this_device()
    if device is None:
        device = devices.register(owner=None, label=device_label())
        _remember(device)
        g.made_device = device.id
    return device


def made_device(_response: Response) -> bool:
    return "made_device" in g


def forget_unused_device(response: Response) -> Response:
    """Forget a device made by a refused write, so that refused writes leave no rows."""
    if "made_device" in g and response.status_code >= HTTPStatus.BAD_REQUEST:
        with suppress(Busy, SQLAlchemyError):
            newcomers.forget_new(device_id=g.made_device)
        session.pop(SESSION_DEVICE, None)
        g.pop("device", None)
    return response


def ensure_owner() -> str:
    return ensure_device().owner


def _table_links() -> list[str]:
    device = this_device()
    kept = [] if device is not None and device.replaced else session.get(SESSION_TABLES, [])
    return [each for each in kept if isinstance(each, str)]


def owner_of(match_id: int, *, reading: bool = False) -> str:
    """This device's key, or the host's for a table link's match (to write: evening not over)."""
    host = evenings.table_host(
        tokens=_table_links(), match_id=match_id, asking=current_owner(), writing=not reading
    )
    return host or own_key(match_id)


def table_of(match_id: int | None) -> evenings.TablePlace | None:
    """The club evening's table this browser opened ``match_id`` at, while the evening is on."""
    if match_id is None or not (links := _table_links()):
        return None
    return evenings.table_place(tokens=links, match_id=match_id)


def counter_of(match_id: int | None) -> str:
    """The counter page a form about ``match_id`` goes back to: its table link's, or this one's."""
    table = table_of(match_id)
    return url_for("play.home") if table is None else url_for("evenings.table", token=table.token)


def changed() -> None:
    """The device's key changed in this request: read it again."""
    g.pop("device", None)


def new_token(token: str) -> None:
    session[SESSION_DEVICE] = token
    session.permanent = True
    changed()


def stale_cookie() -> bool:
    """Whether the cookie to send back names a token replaced (even during this request)."""
    token = session.get(SESSION_DEVICE)
    if not isinstance(token, str):
        return False
    if token == g.get("replaced_token"):
        return True
    with suppress(Busy, SQLAlchemyError):
        return devices.replaced(token=token)
    return False


def _remember(device: devices.Device) -> None:
    session.pop(LEGACY_KEY, None)
    new_token(device.token)
    g.device = device


def device_label() -> str:
    """A device in a few words, from its User-Agent: "Chrome · Android"."""
    agent = request.headers.get("User-Agent", "")
    name = next((mark for mark in BROWSERS if mark in agent), "")
    system = next((mark for mark in SYSTEMS if re.search(rf"\b{mark}", agent)), "")
    return " · ".join(SAID_AS.get(part, part) for part in (name, system) if part)

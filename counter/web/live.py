"""Event streams (Server-Sent Events): a match's changes, pushed to the screens showing it.

``GET /api/matches/<id>/events`` serves the devices of the match's key,
``GET /api/shared/<token>/events`` anyone with a share link. Each stream first
sends the match as it is (unless ``Last-Event-ID`` says the client has it), then
every change as :mod:`counter.storage.push` announces it, a heartbeat when there is none
for a while, and ends after a few minutes: ``EventSource`` reconnects by itself
and resumes with ``Last-Event-ID``. Each event's id is a digest of its data.

Streams hold a server thread each, so they are bounded per process: in all, per
key or share link, and per address (as the rate limits count it:
:func:`counter.web.limits.client_address`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, current_app, request, stream_with_context
from flask_babel import gettext

from counter.game.refusals import N_, NotFound, TooMany
from counter.services import devices, matches, sharing
from counter.storage import push
from counter.storage.models import db
from counter.web.browser import changed, current_owner, device_id, owner_of
from counter.web.limits import client_address
from counter.web.shapes import match_json, shared_from

bp = Blueprint("live", __name__, url_prefix="/api")

RETRY_MS = 1000  # how soon EventSource reconnects after a stream ends or breaks
# An event, not a comment, so that the page can tell a live stream from one a proxy holds.
BEAT = "event: beat\ndata:\n\n"


class TooManyStreams(TooMany):
    """More open streams than this process gives one browser, address, or all of them."""


STREAMS_FULL = N_("Too many live pages are open from here; this one looks now and then instead.")

_open: Counter[str] = Counter()
_open_lock = threading.Lock()


@contextmanager
def _bounded(*holders: tuple[str, int]) -> Iterator[None]:
    """Count one more stream against each ``(holder, most)``; refuse it if one is full."""
    with _open_lock:
        if any(_open[holder] >= most for holder, most in holders):
            raise TooManyStreams(STREAMS_FULL)
        for holder, _most in holders:
            _open[holder] += 1
    try:
        yield
    finally:
        with _open_lock:
            for holder, _most in holders:
                _open[holder] -= 1
                if not _open[holder]:
                    del _open[holder]


def event_id(data: str) -> str:
    return hashlib.blake2b(data.encode(), digest_size=8).hexdigest()


def _compact(body: dict[str, Any]) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def digest(body: dict[str, Any]) -> str:
    """The id of the event whose data is ``body``."""
    return event_id(_compact(body))


def _event(data: str, kind: str | None = None) -> str:
    head = f"event: {kind}\n" if kind else ""
    # A notice of another match is no state of this one to resume from (Last-Event-ID).
    tail = "" if kind == "next" else f"id: {event_id(data)}\n"
    return f"{head}{tail}data: {data}\n\n"


def stream(
    match_id: int,
    now: Callable[[], dict[str, Any]],
    holder: str,
    shown: Callable[[dict[str, Any]], dict[str, Any]] | None,
    allowed: Callable[[], bool],
    moved: Callable[[str], dict[str, Any] | None] = lambda _news: None,
    missed: Callable[[], str | None] = lambda: None,
    also: tuple[int, ...] = (),
) -> Response:
    """The stream of one match: ``now`` reads the match as it is (after the stream is
    watching, so that a change committed meanwhile comes next, never lost), ``shown``
    makes each change what this reader may see (none: all of it, passed on as announced),
    ``allowed`` says whether the reader may still see it (asked at every heartbeat),
    ``moved`` what it is told when another device that showed the match started one, and
    ``missed`` such news from before the stream opened, told after the match; ``also``, more
    matches whose changes come as the first one's (an evening's board)."""
    config = current_app.config
    slots = (
        ("all", config["LIVE_STREAMS_PER_PROCESS"]),
        (f"holder:{holder}", config["LIVE_STREAMS_PER_BROWSER"]),
        (f"address:{client_address()}", config["LIVE_STREAMS_PER_ADDRESS"]),
    )
    bounded = _bounded(*slots)
    bounded.__enter__()  # refused here, before the answer starts, as a plain 429
    hub = push.hub()
    try:
        watcher = hub.watch(match_id, *also)
        try:
            first = now()
        except BaseException:
            hub.unwatch(watcher)
            raise
    except BaseException:
        bounded.__exit__(None, None, None)
        raise
    db.session.close()  # no database connection is held while the stream waits
    heartbeat, lifetime = config["LIVE_HEARTBEAT_S"], config["LIVE_LIFETIME_S"]
    resumed = request.headers.get("Last-Event-ID")

    def shown_now() -> dict[str, Any]:
        return now() if shown is None else shown(now())

    def events() -> Iterator[str]:
        try:
            yield f"retry: {RETRY_MS}\n\n"
            data = _compact(first if shown is None else shown(first))
            last = event_id(data)
            if last != resumed:
                yield _event(data)
            news = missed()
            notice = None if news is None else moved(news)
            db.session.close()
            if notice is not None:
                yield _event(_compact(notice), "next")
            ends = time.monotonic() + lifetime
            while (left := ends - time.monotonic()) > 0:
                payload = watcher.wait(min(heartbeat, left))
                if payload == push.END:
                    return  # the process is stopping: EventSource reconnects, elsewhere
                if payload is None or payload == push.CHECK:
                    still = allowed()
                    db.session.close()
                    if not still:
                        yield _event("{}", "gone")
                        return
                    if payload is None:
                        yield BEAT
                elif payload == push.GONE:
                    yield _event("{}", "gone")
                    return
                elif payload.startswith(push.NEXT):
                    notice = moved(payload)
                    db.session.close()
                    if notice is not None:
                        yield _event(_compact(notice), "next")
                elif payload == push.CHANGED:
                    try:
                        data = _compact(shown_now())
                    except NotFound:  # deleted, or no longer the reader's, meanwhile
                        yield _event("{}", "gone")
                        return
                    finally:
                        db.session.close()
                    if event_id(data) != last:  # changes undone before it read: nothing new
                        last = event_id(data)
                        yield _event(data)
        finally:
            hub.unwatch(watcher)
            bounded.__exit__(None, None, None)

    return Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@bp.get("/matches/<match_id:match_id>/events")
def match_events(match_id: int) -> Response:
    """This browser's match, live: the match now, then each change (Server-Sent Events)."""
    owner = owner_of(match_id, reading=True)
    table = owner != current_owner()  # a club evening's table link: this match alone

    def now() -> dict[str, Any]:
        return match_json(matches.get_match(owner=owner, match_id=match_id))

    def allowed() -> bool:
        changed()  # the device may have been removed, or its key changed, meanwhile
        try:
            still = owner_of(match_id, reading=True) == owner
        except NotFound:
            return False
        return still and matches.owns(owner=owner, match_id=match_id)

    asking = device_id()

    def moved(news: str) -> dict[str, Any] | None:
        to, by = (int(part) for part in news.removeprefix(push.NEXT).split(":"))
        if table or by == asking or not matches.owns(owner=owner, match_id=to):
            return None  # this device's own new match, or not this key's
        started = matches.get_match(owner=owner, match_id=to)
        return {
            "id": to,
            "text": gettext(
                "Another phone started a new match: %(names)s.", names=" – ".join(started.names)
            ),
            "button": gettext("Show it here"),
            "keep": gettext("Stay on this one"),
        }

    def missed() -> str | None:
        if table:
            return None
        found = devices.moved_on(owner=owner, match_id=match_id, asking=asking)
        return None if found is None else push.next_news(to=found[0], by=found[1])

    holder = f"table:{match_id}" if table else owner  # the host's own count is the host's
    return stream(match_id, now, holder, None, allowed, moved, missed)


@bp.get("/shared/<token>/events")
def shared_events(token: str) -> Response:
    """A shared match, live and read-only: the match now, then each change."""
    match = sharing.shared_match(token=token)  # a 404 before the stream is counted

    def now() -> dict[str, Any]:
        return match_json(sharing.shared_match(token=token))

    def allowed() -> bool:
        return sharing.still_shared(match_id=match.id, token=token)  # type: ignore[arg-type]

    return stream(match.id, now, f"share:{token}", shared_from, allowed)  # type: ignore[arg-type]

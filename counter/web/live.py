"""Event streams (Server-Sent Events): a match's changes, pushed to the screens showing it.

``GET /api/matches/<id>/events`` serves the devices of the match's key,
``GET /api/shared/<token>/events`` anyone with a share link. Each stream first
sends the match as it is (unless ``Last-Event-ID`` says the client has it), then
every change as :mod:`counter.storage.push` announces it, a heartbeat when there is none
for a while, and ends after a few minutes: ``EventSource`` reconnects by itself
and resumes with ``Last-Event-ID``. Each event's id is a digest of its data.

Streams are bounded per process: in all, per key or share link, and per address (as
the rate limits count it: :func:`counter.web.limits.client_address`). At a full address
a newcomer takes the place of the oldest stream of the key holding the most there, if
that key holds more than the newcomer does: a flood from one address never keeps a new
phone behind the same router out. Under gevent (the streams service) a stream's place is
free as soon as its client hangs up; elsewhere at its next heartbeat.

Whether the reader may still see the match is asked as the stream opens and whenever a
change that can revoke it is announced (:func:`counter.storage.push.recheck`: erase,
forgetting devices, a new key, a share link revoked), never at a heartbeat: a stream ends
within its lifetime anyway, and opens again only if it may. Lifetimes vary a little, so
that the streams of phones that came together do not all reconnect together.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
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

LIFETIME_JITTER = 0.25  # a stream lasts between 75 % and all of LIVE_LIFETIME_S


def lifetime_s(most: float, draw: Callable[[], float] = random.random) -> float:
    """How long one stream lasts: up to ``most`` seconds, at least a quarter less."""
    return most * (1 - LIFETIME_JITTER * draw())


class Place:
    """One open stream's place in the bounds, and how to end the stream (once watching)."""

    def __init__(self, keys: tuple[str, ...], address: str, holder: str) -> None:
        self.keys, self.address, self.holder = keys, address, holder
        self.watcher: push.Watcher | None = None
        self.held = True

    def release(self) -> None:
        """Give the place back (again: nothing)."""
        with _open_lock:
            self.let_go()

    def let_go(self) -> None:
        """Give the place back, under the lock."""
        if not self.held:
            return
        self.held = False
        for key in self.keys:
            _open[key] -= 1
            if not _open[key]:
                del _open[key]
        here = _at_address[self.address]
        here.remove(self)
        if not here:
            del _at_address[self.address]


_open: Counter[str] = Counter()
_at_address: dict[str, list[Place]] = {}  # each address's open streams, the oldest first
_open_lock = threading.Lock()


def _take_place(holder: str, address: str, config: dict[str, Any]) -> Place:
    """A place for one more stream of ``holder`` from ``address``: at a full address the
    oldest stream of the key holding the most there gives its place up, if that key holds
    more than ``holder``; otherwise, or with the process or the key full, refused."""
    bounds = (
        ("all", config["LIVE_STREAMS_PER_PROCESS"]),
        (f"holder:{holder}", config["LIVE_STREAMS_PER_BROWSER"]),
    )
    place = Place(tuple(key for key, _most in bounds), address, holder)
    with _open_lock:
        if any(_open[key] >= most for key, most in bounds):
            raise TooManyStreams(STREAMS_FULL)
        if len(_at_address.get(address, ())) >= config["LIVE_STREAMS_PER_ADDRESS"]:
            _give_up_place(_at_address[address], holder)
        for key in place.keys:
            _open[key] += 1
        _at_address.setdefault(address, []).append(place)
    return place


def _give_up_place(here: list[Place], holder: str) -> None:
    """End the oldest stream of the key holding the most of ``here``, if it holds more than
    ``holder`` does (under the lock); refuse otherwise."""
    counts = Counter(place.holder for place in here if place.watcher is not None)
    most = max(counts.values(), default=0)
    if most <= counts[holder]:
        raise TooManyStreams(STREAMS_FULL)
    victim = next(place for place in here if place.watcher and counts[place.holder] == most)
    victim.let_go()  # at once, under the lock; its stream ends, and its page reconnects
    assert victim.watcher is not None
    victim.watcher.offer("", push.END)


def _on_hang_up(end: Callable[[], None]) -> Callable[[], None]:
    """Under gevent (the streams service), call ``end`` as soon as the client closes its
    connection, not at the stream's next write; returns what stops watching. A stream's
    client sends nothing after its request: the connection turning readable is its end."""
    sock = request.environ.get("gunicorn.socket")
    if sock is None or "gevent.monkey" not in sys.modules:
        return lambda: None
    from gevent import get_hub
    from gevent.monkey import is_module_patched

    if not is_module_patched("socket"):
        return lambda: None
    readable = get_hub().loop.io(sock.fileno(), 1)

    def hung_up() -> None:
        readable.stop()  # once: it stays readable
        end()

    readable.start(hung_up)
    return readable.close  # type: ignore[no-any-return]


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
    ``allowed`` says whether the reader may still see it (asked when a revocation may
    have happened: :func:`counter.storage.push.recheck`),
    ``moved`` what it is told when another device that showed the match started one, and
    ``missed`` such news from before the stream opened, told after the match; ``also``, more
    matches whose changes come as the first one's (an evening's board)."""
    config = current_app.config
    # Refused here, before the answer starts, as a plain 429.
    place = _take_place(holder, client_address(), config)
    hub = push.hub()
    try:
        watcher = hub.watch(match_id, *also)
        try:
            first = now()
        except BaseException:
            hub.unwatch(watcher)
            raise
    except BaseException:
        place.release()
        raise
    place.watcher = watcher
    db.session.close()  # no database connection is held while the stream waits
    heartbeat, lifetime = config["LIVE_HEARTBEAT_S"], lifetime_s(config["LIVE_LIFETIME_S"])
    unwatched = _on_hang_up(lambda: watcher.offer("", push.END))
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
                if payload is None:
                    yield BEAT
                elif payload == push.CHECK:
                    still = allowed()
                    db.session.close()
                    if not still:
                        yield _event("{}", "gone")
                        return
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
            unwatched()
            hub.unwatch(watcher)
            place.release()

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
            # Asked of a deal tapped while the offer stands: no deal goes to either quietly.
            "which": gettext("Which match is this deal for?"),
            "new": gettext("For the new match"),
            "old": gettext("For this match"),
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

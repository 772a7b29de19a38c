"""Server-Sent Events: a match's changes, pushed to the screens showing it."""

import contextlib
import hashlib
import json
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from flask import Blueprint, Response, current_app, request, stream_with_context
from flask_babel import gettext

from counter.game.refusals import N_, NotFound, TooMany
from counter.services import devices, matches, sharing
from counter.storage import push
from counter.storage.models import db
from counter.web import limits, shapes
from counter.web.browser import changed, current_owner, owner_of, this_device

bp = Blueprint("live", __name__, url_prefix="/api")

RETRY_MS = 1000  # how soon EventSource reconnects after a stream ends or breaks
# An event, not a comment, so that the page can tell a live stream from one a proxy holds.
BEAT = "event: beat\ndata:\n\n"
STREAMS_FULL = N_("Too many live pages are open from here; this one looks now and then instead.")
LIFETIME_JITTER = 0.25  # a stream lasts between 75 % and all of LIVE_LIFETIME_S
T = TypeVar("T")


def lifetime_s(most: float, draw: Callable[[], float] = random.random) -> float:
    return most * (1 - LIFETIME_JITTER * draw())


@dataclass(eq=False)
class Place:
    """One open stream, counted in the per-process bounds."""

    holder: str
    address: str
    watcher: push.Watcher | None = None

    def release(self) -> None:
        with _open_lock, contextlib.suppress(ValueError):  # given up, then ended: released once
            _open.remove(self)


_open: list[Place] = []  # the open streams, the oldest first
_open_lock = threading.RLock()  # a place taken may end another's


def _take_place(holder: str, address: str, config: dict[str, Any]) -> Place:
    place = Place(holder, address)
    with _open_lock:
        if len(_open) >= config["LIVE_STREAMS_PER_PROCESS"]:
            raise TooMany(STREAMS_FULL)
        if sum(other.holder == holder for other in _open) >= config["LIVE_STREAMS_PER_BROWSER"]:
            raise TooMany(STREAMS_FULL)
        here = [other for other in _open if other.address == address]
        if len(here) >= config["LIVE_STREAMS_PER_ADDRESS"]:
            _give_up_place(here, holder)
        _open.append(place)
    return place


def _give_up_place(here: list[Place], holder: str) -> None:
    """End the oldest stream of the key holding the most here, if it holds more than
    ``holder``, so a flood from one address never keeps a new phone out."""
    counts = Counter(place.holder for place in here if place.watcher is not None)
    most = max(counts.values(), default=0)
    if most <= counts[holder]:
        raise TooMany(STREAMS_FULL)
    victim = next(place for place in here if place.watcher and counts[place.holder] == most)
    victim.release()  # at once, under the lock; its stream ends, and its page reconnects
    assert victim.watcher is not None
    victim.watcher.offer("", push.END)


def _on_hang_up(end: Callable[[], None]) -> Callable[[], None]:
    """Under gevent, call ``end`` once the client hangs up (its socket turns readable)."""
    sock, monkey = request.environ.get("gunicorn.socket"), sys.modules.get("gevent.monkey")
    if sock is None or monkey is None or not monkey.is_module_patched("socket"):
        return lambda: None
    readable = sys.modules["gevent"].get_hub().loop.io(sock.fileno(), 1)

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
    return event_id(_compact(body))


def _event(data: str, kind: str | None = None) -> str:
    head = f"event: {kind}\n" if kind else ""
    # A notice of another match is no state of this one to resume from (Last-Event-ID).
    tail = "" if kind == "next" else f"id: {event_id(data)}\n"
    return f"{head}{tail}data: {data}\n\n"


def _read(read: Callable[..., T], *args: Any) -> T:
    """What ``read`` reads, letting the database connection go: a stream waits holding none."""
    try:
        return read(*args)
    finally:
        db.session.close()


def stream(
    key: str,
    now: Callable[[], dict[str, Any]],
    holder: str,
    allowed: Callable[[], bool],
    moved: Callable[[str], dict[str, Any] | None] = lambda _news: None,
    missed: Callable[[], str | None] = lambda: None,
    also: tuple[int, ...] = (),
) -> Response:
    """One match's stream (and ``also``'s); ``moved`` words another device's new match."""
    config = current_app.config
    place = _take_place(holder, limits.client_address(), config)
    with contextlib.ExitStack() as undo:
        undo.callback(place.release)
        hub = push.hub()
        watcher = hub.watch(key, *map(push.match_key, also))  # before reading: no change lost
        undo.callback(hub.unwatch, watcher)
        first = _read(now)
        if (news := _read(missed)) is not None:
            watcher.offer("", news)  # older than any news heard since
        place.watcher = watcher
        undo.callback(_on_hang_up(lambda: watcher.offer("", push.END)))
        ended = undo.pop_all()
    heartbeat, lifetime = config["LIVE_HEARTBEAT_S"], lifetime_s(config["LIVE_LIFETIME_S"])

    def events() -> Iterator[str]:
        with ended:
            yield f"retry: {RETRY_MS}\n\n"
            data = _compact(first)
            if (last := event_id(data)) != request.headers.get("Last-Event-ID"):
                yield _event(data)
            ends = time.monotonic() + lifetime
            while (left := ends - time.monotonic()) > 0:
                payload = watcher.wait(min(heartbeat, left))
                if payload == push.END:
                    return  # the process is stopping: the page reconnects elsewhere
                if payload is None:
                    yield BEAT
                elif payload.startswith(push.NEXT):
                    if (notice := _read(moved, payload)) is not None:
                        yield _event(_compact(notice), "next")
                elif payload == push.CHANGED:
                    try:
                        data = _compact(_read(now))
                    except NotFound:  # deleted, or no longer the reader's, meanwhile
                        yield _event("{}", "gone")
                        return
                    if event_id(data) != last:  # changes undone before it read: nothing new
                        last = event_id(data)
                        yield _event(data)
                elif payload == push.GONE or not _read(allowed):  # else CHECK: still allowed?
                    yield _event("{}", "gone")
                    return

    return Response(
        stream_with_context(events()),
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@bp.get("/matches/<match_id:match_id>/events")
def match_events(match_id: int) -> Response:
    owner = owner_of(match_id, reading=True)

    def now() -> dict[str, Any]:
        return shapes.match_json(matches.get_match(owner=owner, match_id=match_id))

    def allowed() -> bool:
        changed()
        with contextlib.suppress(NotFound):
            still = owner_of(match_id, reading=True) == owner
            return still and matches.owns(owner=owner, match_id=match_id)
        return False

    asking = None if (device := this_device()) is None else device.id

    def moved(news: str) -> dict[str, Any] | None:
        to, by = (int(part) for part in news.removeprefix(push.NEXT).split(":"))
        if by == asking or not matches.owns(owner=owner, match_id=to):
            return None  # this device's own new match, or not this key's
        started = matches.get_match(owner=owner, match_id=to)
        said = N_("Another phone started a new match: %(names)s.")
        if to < match_id and devices.started_at_once(first=to, second=match_id):
            said = N_("The other phone started a new match at the same moment: %(names)s.")
        return {
            "id": to,
            "text": gettext(said, names=" – ".join(started.names)),
            "button": gettext("Show it here"),
            "keep": gettext("Stay on this one"),
            "which": gettext("Which match is this deal for?"),
            "new": gettext("For the new match"),
            "old": gettext("For this match"),
        }

    def missed() -> str | None:
        """Another device's match started from this one, or beside it from the same one."""
        found = devices.moved_on(owner=owner, match_id=match_id, asking=asking)
        found = found or devices.started_beside(owner=owner, match_id=match_id, asking=asking)
        return None if found is None else push.next_news(to=found[0], by=found[1])

    key = push.match_key(match_id)
    if owner != current_owner():  # a club evening's table link: this match alone, counted apart
        return stream(key, now, f"table:{match_id}", allowed)
    return stream(key, now, owner, allowed, moved, missed)


@bp.get("/shared/<token>/events")
def shared_events(token: str) -> Response:
    match = sharing.shared_match(token=token)  # a 404 before the stream is counted

    def now() -> dict[str, Any]:
        return shapes.shared_json(sharing.shared_match(token=token))

    allowed = partial(sharing.still_shared, match_id=match.id, token=token)  # type: ignore[arg-type]
    return stream(push.match_key(match.id), now, f"share:{token}", allowed)  # type: ignore[arg-type]

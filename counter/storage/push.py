"""Live changes: every change of a match is pushed to the screens that show it.

A write announces that a match changed, after it commits; every open event
stream of that match (:mod:`counter.web.live`) then reads the match as it is and sends
it on. The write itself never builds the match for its readers: a deal into a
long match costs what one into a short match does, however many screens watch.
Within one process the hub hands it over in memory. With ``PUSH_URL`` (a Redis URL) each process
also publishes it on one Redis channel and listens there, so a tap answered by
one gunicorn worker, or one server, reaches a phone held open by another.

Redis that does not answer fails soft: a write never fails for it, and the change
still reaches the streams of this process. Each process asks for Redis again every
quarter of a second; once it is back, every stream of the process reads its match again
(and asks whether its reader may still see it), so that each page catches up with what
it missed meanwhile, then hears every change again.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import Flask, current_app

from counter.storage.models import utcnow

log = logging.getLogger(__name__)

GONE = ""  # the payload of a match that was deleted
CHANGED = "changed"  # the payload of "the match changed: read it again"
NEXT = "next:"  # the payload of "a device that showed this match started another"
CHECK = "check"  # the payload of "ask whether the reader may still see this match"
END = "end"  # the payload of "this process is stopping: end now" (the page reconnects elsewhere)
REDIS_TIMEOUT_S = 0.5
REDIS_AGAIN_S = 0.25  # how soon a listener that lost Redis asks for it again
MESSAGES = "v2"  # v1 carried the whole match; v2 says only that it changed


@dataclass(eq=False)  # each stream is its own, however alike
class Watcher:
    """One open stream: what it has yet to hear of its match, and a signal that it came."""

    match_id: int
    also: tuple[int, ...] = ()  # more matches it hears of, as one (an evening's board)
    arrived: threading.Event = field(default_factory=threading.Event)
    news: tuple[str, str] | None = None  # (stamp, payload) of the newest GONE or NEXT
    changed: bool = False  # whether the match changed since the stream last read it
    check: bool = False  # whether the reader's access is to be asked about before all else
    ending: bool = False  # whether the stream is to end, before all else

    def offer(self, stamp: str, payload: str) -> None:
        if payload == END:
            self.ending = True
        elif payload == CHECK:
            self.check = True  # never written over by a change that comes after it
        elif payload != GONE and not payload.startswith(NEXT):
            # CHANGED, or what this release does not know (another release's message
            # on a shared Redis): the stream reads the match, once however many came.
            self.changed = True
        elif self.news is None or stamp >= self.news[0]:
            # Two writes may announce in another order than they committed: the newer stands.
            self.news = (stamp, payload)
        self.arrived.set()

    def wait(self, timeout: float) -> str | None:
        """Once something comes (None after ``timeout`` seconds), the first of: ``END`` if
        the stream is to end, ``CHECK`` if access is to be asked about, ``CHANGED`` if
        the match is to be read again (unless it is gone), the newest other payload.
        What is left comes at the next call."""
        if not self.arrived.wait(timeout):
            return None
        if self.ending:
            return END  # and again if asked again: nothing comes after it
        self.arrived.clear()
        if self.check:
            self.check = False
            if self.changed or self.news is not None:
                self.arrived.set()  # the news comes next, once access is confirmed
            return CHECK
        if self.changed and not (self.news is not None and self.news[1] == GONE):
            # A deleted match is not there to read: its GONE comes instead.
            self.changed = False
            if self.news is not None:
                self.arrived.set()
            return CHANGED
        news, self.news = self.news, None
        return None if news is None else news[1]


class Hub:
    """Who watches which match in this process, and the way changes reach them."""

    def __init__(self, redis_url: str | None, channel: str) -> None:
        self.redis_url = redis_url or ""
        # The messages' format is in the channel's name: two releases sharing a Redis for
        # the length of a deploy never misread each other's. The old release's streams end
        # as its processes stop, and their pages reconnect to the new one.
        self.channel = f"{channel}:{MESSAGES}"
        self._lock = threading.Lock()
        self._watchers: dict[int, set[Watcher]] = {}
        self._redis: Any = None
        self._listening_in: int | None = None  # the process whose listener runs
        self._subscription: Any = None
        self._subscribed = threading.Event()
        self._closed = threading.Event()

    # --- watching ----------------------------------------------------------------------

    def watch(self, match_id: int, *also: int) -> Watcher:
        if self.redis_url:
            self._listen()
        watcher = Watcher(match_id, also)
        with self._lock:
            for each in (match_id, *also):
                self._watchers.setdefault(each, set()).add(watcher)
        if self._closed.is_set():
            watcher.offer("", END)  # a stream opened as the process stops ends at once
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            for each in (watcher.match_id, *watcher.also):
                others = self._watchers.get(each, set())
                others.discard(watcher)
                if not others:
                    self._watchers.pop(each, None)

    def watching(self) -> int:
        with self._lock:
            return len({watcher for each in self._watchers.values() for watcher in each})

    def deliver(self, match_id: int, stamp: str, payload: str) -> None:
        with self._lock:
            watchers = list(self._watchers.get(match_id, ()))
        for watcher in watchers:
            watcher.offer(stamp, payload)

    # --- announcing ----------------------------------------------------------------------

    def announce(self, match_id: int, stamp: str, payload: str) -> None:
        """Send a match's new state to every stream of it, in every process."""
        if self.redis_url:
            message = json.dumps({"id": match_id, "stamp": stamp, "payload": payload})
            try:
                self._client().publish(self.channel, message)
                return  # the listener of this process delivers it here too
            except Exception:  # any Redis failure: this process still hears it
                log.warning("Redis did not take a live change; other processes miss it")
        self.deliver(match_id, stamp, payload)

    def _client(self) -> Any:
        if self._redis is None:
            import redis

            self._redis = redis.Redis.from_url(
                self.redis_url,
                socket_timeout=REDIS_TIMEOUT_S,
                socket_connect_timeout=REDIS_TIMEOUT_S,
            )
        return self._redis

    def _listen(self) -> None:
        """Start this process's listener on Redis, once (again after a fork)."""
        with self._lock:
            if self._listening_in == os.getpid():
                return
            self._listening_in = os.getpid()
            self._redis = None  # a client made before a fork is not this process's
        threading.Thread(target=self._listener, name="santase-push", daemon=True).start()
        # The first stream hears what is announced from now on: wait for the subscription
        # (a Redis that does not answer costs this one wait, then streams go on without it).
        self._subscribed.wait(REDIS_TIMEOUT_S * 2)

    def _listener(self) -> None:
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        lost = False
        while not self._closed.is_set():
            try:
                client = redis.Redis.from_url(
                    self.redis_url,
                    socket_connect_timeout=REDIS_TIMEOUT_S,
                    health_check_interval=10,
                    # Never reconnected behind this loop's back: it is to know that it
                    # lost Redis, and catch the streams up.
                    retry=Retry(NoBackoff(), 0),
                )
                self._subscription = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                self._subscription.subscribe(self.channel)
                self._subscribed.set()
                if lost:
                    log.warning("Redis is back for live changes; every live page reads again")
                    self.catch_up()
                    lost = False
                for message in self._subscription.listen():
                    news = json.loads(message["data"])
                    self.deliver(int(news["id"]), str(news["stamp"]), str(news["payload"]))
            except Exception:  # Redis away: ask again soon
                if self._closed.is_set():
                    return
                if not lost:
                    log.warning("Lost Redis for live changes; asking for it again")
                lost = True
                self._closed.wait(REDIS_AGAIN_S)

    def catch_up(self) -> None:
        """Every stream of this process reads its match again, and asks whether its reader
        may still see it: what was announced while Redis was away never came here."""
        with self._lock:
            open_streams = [watcher for each in self._watchers.values() for watcher in each]
        for watcher in open_streams:
            watcher.offer("", CHECK)
            watcher.offer("", CHANGED)

    def close(self, wait_s: float = 0) -> bool:
        """End every stream of this process (their pages reconnect, to another process if
        this one is stopping), stop listening on Redis and let go of its connections.

        Waits up to ``wait_s`` seconds for the streams to end; whether they all did.
        Called when a worker stops (deploy/gunicorn.conf.py) and when a test's app goes.
        """
        self._closed.set()
        with self._lock:
            open_streams = [watcher for each in self._watchers.values() for watcher in each]
        for watcher in open_streams:
            watcher.offer("", END)
        for connection in (self._subscription, self._redis):
            if connection is not None:
                connection.close()
        ends = time.monotonic() + wait_s
        while self.watching() and time.monotonic() < ends:
            time.sleep(0.01)
        return not self.watching()


def init_app(app: Flask) -> None:
    app.extensions["push"] = Hub(app.config.get("PUSH_URL"), app.config["PUSH_CHANNEL"])


def hub() -> Hub:
    found: Hub = current_app.extensions["push"]
    return found


_held = threading.local()  # the announcements of the write this thread is in, if any


@contextmanager
def after_writing() -> Iterator[None]:
    """Hold the announcements made inside (by a write), and make them as it ends: after
    its transaction and its turn (counter/storage/transactions.py), so that a Redis slow
    to answer never keeps the next write waiting."""
    if getattr(_held, "news", None) is not None:  # a write inside a write: the outer one
        yield
        return
    _held.news = []
    try:
        yield
    finally:
        news, _held.news = _held.news, None
        for match_id, moment, payload in news:  # a change committed before a failure too
            hub().announce(match_id, moment, payload)


def _announce(match_id: int, payload: str) -> None:
    news = (match_id, stamp(utcnow()), payload)
    held: list[tuple[int, str, str]] | None = getattr(_held, "news", None)
    if held is None:
        hub().announce(*news)
    else:
        held.append(news)


def changed(match_id: int | None) -> None:
    """Announce that a match changed: call it once the write has committed. Its streams
    read it again, so they send what was committed, whatever order announcements
    come in."""
    if match_id is not None:
        _announce(match_id, CHANGED)


def moved(*, match_id: int, to: int, by: int) -> None:
    """Announce to the screens of a match that device ``by``, which showed it, started
    match ``to``: they may follow it there."""
    _announce(match_id, next_news(to=to, by=by))


def next_news(*, to: int, by: int) -> str:
    """The news that device ``by`` started match ``to`` from the match it is about."""
    return f"{NEXT}{to}:{by}"


def recheck(match_ids: Iterable[int]) -> None:
    """Ask the streams of these matches whether their readers may still see them (a
    device was removed, or the key changed): those that may not end now, not at their
    next heartbeat."""
    for match_id in match_ids:
        _announce(match_id, CHECK)


def deleted(match_id: int) -> None:
    """Announce that a match is no longer there."""
    _announce(match_id, GONE)


def stamp(moment: datetime | None) -> str:
    """Orders the announcements of one match: the time of its write, to the microsecond."""
    return "" if moment is None else moment.isoformat(timespec="microseconds")

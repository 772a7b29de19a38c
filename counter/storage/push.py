"""Live changes: each committed change is announced, through Redis too, to the streams."""

import json
import logging
import os
import threading
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from flask import Flask, current_app, g

from counter.storage.models import utcnow

log = logging.getLogger(__name__)

GONE = ""  # the match was deleted
CHANGED = "changed"
NEXT = "next:"  # "next:<to>:<by>": device <by>, which showed this match, started match <to>
CHECK = "check"  # ask whether the reader may still see it
END = "end"  # this process is stopping: the page reconnects elsewhere
REDIS_TIMEOUT_S = 0.5
REDIS_AGAIN_S = 0.25
MESSAGES = "v3"  # in the channel's name: two releases sharing a Redis never mix messages


def match_key(match_id: int) -> str:
    return f"match:{match_id}"


def evening_key(evening_id: int) -> str:
    return f"evening:{evening_id}"


@dataclass(eq=False)
class Watcher:
    """One open stream: what it has yet to hear, and a signal that something came."""

    key: str
    also: tuple[str, ...] = ()  # more keys it hears of as one (an evening's board)
    arrived: threading.Event = field(default_factory=threading.Event)
    pending: set[str] = field(default_factory=set)  # END, CHECK, CHANGED: each heard once
    news: tuple[str, str] | None = None  # (stamp, payload) of the newest GONE or NEXT

    def offer(self, stamp: str, payload: str) -> None:
        if payload in (END, CHECK):
            self.pending.add(payload)
        elif payload != GONE and not payload.startswith(NEXT):
            self.pending.add(CHANGED)  # also what this release does not know: read it again
        elif self.news is None or stamp >= self.news[0]:
            # Two writes may announce in another order than they committed.
            self.news = (stamp, payload)
        self.arrived.set()

    def wait(self, timeout: float) -> str | None:
        """END, else CHECK, else CHANGED (unless GONE), else the newest news; None: nothing came."""
        if not self.arrived.wait(timeout):
            return None
        if END in self.pending:
            return END
        self.arrived.clear()
        if CHECK in self.pending:
            taken = CHECK
        elif CHANGED in self.pending and not (self.news is not None and self.news[1] == GONE):
            taken = CHANGED
        else:
            news, self.news = self.news, None
            return None if news is None else news[1]
        self.pending.discard(taken)
        if self.pending or self.news is not None:
            self.arrived.set()
        return taken


class Hub:
    """Who watches what in this process, and the way changes reach them."""

    def __init__(self, redis_url: str | None, channel: str) -> None:
        self.redis_url = redis_url or ""
        self.channel = f"{channel}:{MESSAGES}"
        self._lock = threading.Lock()
        self._watchers: defaultdict[str, set[Watcher]] = defaultdict(set)  # by key heard
        self._redis: Any = None
        if redis_url:
            import redis  # the production extra's

            self._redis = redis.Redis.from_url(
                redis_url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
        self._listening_in: int | None = None
        self._subscription: Any = None
        self._subscribed = threading.Event()
        self._closed = threading.Event()

    def watch(self, key: str, *also: str) -> Watcher:
        watcher = Watcher(key, also)
        with self._lock:
            # This process's listener on Redis starts once (again after a fork).
            listen = bool(self.redis_url) and self._listening_in != os.getpid()
            self._listening_in = os.getpid()
            for each in (key, *also):
                self._watchers[each].add(watcher)
        if listen:
            threading.Thread(target=self._listener, name="santase-push", daemon=True).start()
            self._subscribed.wait(REDIS_TIMEOUT_S * 2)  # the first stream hears what comes next
        if self._closed.is_set():
            watcher.offer("", END)
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        with self._lock:
            for each in (watcher.key, *watcher.also):
                self._watchers[each].discard(watcher)
                if not self._watchers[each]:
                    del self._watchers[each]

    def _all(self) -> set[Watcher]:
        with self._lock:
            return {watcher for each in self._watchers.values() for watcher in each}

    def deliver(self, key: str, stamp: str, payload: str) -> None:
        with self._lock:
            watchers = list(self._watchers.get(key, ()))
        for watcher in watchers:
            watcher.offer(stamp, payload)

    def announce(self, key: str, stamp: str, payload: str) -> None:
        if self._redis is not None:
            message = json.dumps({"key": key, "stamp": stamp, "payload": payload})
            try:
                self._redis.publish(self.channel, message)
                return  # this process's listener delivers it here too
            except Exception:
                log.warning("Redis did not take a live change; other processes miss it")
        self.deliver(key, stamp, payload)

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
                    # No reconnecting behind this loop's back: it must know, to catch up.
                    retry=Retry(NoBackoff(), 0),
                )
                self._subscription = client.pubsub(ignore_subscribe_messages=True)  # type: ignore[no-untyped-call]
                self._subscription.subscribe(self.channel)
                self._subscribed.set()
                if lost:
                    log.warning("Redis is back for live changes; every live page reads again")
                    for watcher in self._all():
                        watcher.offer("", CHECK)
                        watcher.offer("", CHANGED)
                    lost = False
                for message in self._subscription.listen():
                    news = json.loads(message["data"])
                    self.deliver(str(news["key"]), str(news["stamp"]), str(news["payload"]))
            except Exception:
                if self._closed.is_set():
                    return
                if not lost:
                    log.warning("Lost Redis for live changes; asking for it again")
                lost = True
                self._closed.wait(REDIS_AGAIN_S)

    def close(self, wait_s: float = 0) -> bool:
        """End every stream here and let go of Redis; whether all ended within ``wait_s``."""
        self._closed.set()
        for watcher in self._all():
            watcher.offer("", END)
        for connection in (self._subscription, self._redis):
            if connection is not None:
                connection.close()
        ends = time.monotonic() + wait_s
        while self._all() and time.monotonic() < ends:
            time.sleep(0.01)
        return not self._all()


def init_app(app: Flask) -> None:
    app.extensions["push"] = Hub(app.config.get("PUSH_URL"), app.config["PUSH_CHANNEL"])


def hub() -> Hub:
    return cast(Hub, current_app.extensions["push"])


@contextmanager
def after_writing() -> Iterator[None]:
    """Hold a write's announcements until it ends: a slow Redis never delays the next write."""
    if "held_news" in g:  # a write inside a write
        yield
        return
    g.held_news = []
    try:
        yield
    finally:
        for each in g.pop("held_news"):
            hub().announce(*each)


def _announce(key: str, payload: str) -> None:
    news = (key, utcnow().isoformat(timespec="microseconds"), payload)
    if "held_news" in g:
        g.held_news.append(news)
    else:
        hub().announce(*news)


def changed(match_id: int) -> None:
    _announce(match_key(match_id), CHANGED)


def evening_changed(evening_id: int) -> None:
    _announce(evening_key(evening_id), CHANGED)


def moved(*, match_id: int, to: int, by: int) -> None:
    _announce(match_key(match_id), next_news(to=to, by=by))


def next_news(*, to: int, by: int) -> str:
    return f"{NEXT}{to}:{by}"


def recheck(match_ids: Iterable[int]) -> None:
    """Streams of these matches whose readers may no longer see them end now."""
    for match_id in match_ids:
        _announce(match_key(match_id), CHECK)


def deleted(match_id: int) -> None:
    _announce(match_key(match_id), GONE)

"""Redis failing and coming back, through the app: no request answers 500 for it, and every
live page catches up once it is back.

Each test starts a redis-server of its own on a free port (so that it may stop it), and
the app twice on the test's database, as two gunicorn workers or two servers: one holds
a phone's live stream (served by threads over HTTP), the other records the deals.
"""

from __future__ import annotations

import http.client
import json
import secrets
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from werkzeug.serving import make_server

from bench.recipe import free_ports

from apps import make_app, stop_app
from helpers import api_deal, api_start
from waiting import until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server not found"),
]

WAIT_S = 10  # generous: the goal is a second


class OwnRedis:
    """A redis-server of the test's own on a free port: stopped as a failing one stops
    (SIGKILL), and started again on the same port."""

    def __init__(self, folder: Path) -> None:
        (self.port,) = free_ports(1)
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def answers(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def start(self) -> float:
        """Start it; the moment it was started (time.monotonic), once it answers."""
        started = time.monotonic()
        with (self.folder / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                [
                    *("redis-server", "--port", str(self.port), "--bind", "127.0.0.1"),
                    *("--save", "", "--appendonly", "no", "--dir", str(self.folder)),
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        assert until(self.answers, within=WAIT_S), "redis-server did not start"
        return started

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT_S)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill()


def apps(database_url: str, own_redis: OwnRedis, **settings: object) -> tuple[Flask, Flask]:
    """The app twice on one database and the test's Redis: live changes and rate limits."""
    shared = {
        "PUSH_URL": own_redis.url,
        "PUSH_CHANNEL": f"santase-test:{secrets.token_hex(4)}",
        "RATELIMIT_ENABLED": True,
        "RATELIMIT_STORAGE_URI": own_redis.url,
        **settings,
    }
    first = make_app(database_url, AUTO_MIGRATE=True, **shared)
    return first, make_app(database_url, **shared)


@contextmanager
def serving(app: Flask) -> Iterator[int]:
    """``app`` served by threads on a free port, as ``flask run`` serves it."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(timeout=WAIT_S)


class Stream:
    """A live stream of a match: the match it shows next, within a deadline."""

    def __init__(self, port: int, match_id: int, cookie: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        path = f"/api/matches/{match_id}/events"
        self.connection.request("GET", path, headers={"Cookie": f"session={cookie}"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def next_match(self, within: float = WAIT_S) -> Any:
        """The next match it sends (heartbeats skipped), or None after ``within`` seconds."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            line = self.response.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: {"):
                data = json.loads(line.removeprefix(b"data: "))
                if "players" in data:  # not the offer of another match
                    return data
        return None

    def close(self) -> None:
        self.response.close()
        self.connection.close()


def cookie_of(client: Any) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return str(cookie.value)


def test_redis_failing_between_a_writes_check_and_its_count_costs_it_nothing(
    database_url: str, own_redis: OwnRedis
) -> None:
    """A write without a cookie is counted after it has made its device: Redis failing
    in between made it answer 500. Its live change cannot be published either."""
    app, other = apps(database_url, own_redis)

    @app.before_request  # after the limiter's check, before the write
    def redis_fails() -> None:
        own_redis.kill()

    try:
        answer = app.test_client().post("/api/matches", json={"players": ["Ivan", "Maria"]})
        assert answer.status_code == 201, answer.get_data(as_text=True)
    finally:
        stop_app(app)
        stop_app(other)


def test_every_live_page_catches_up_once_redis_is_back(
    database_url: str, own_redis: OwnRedis
) -> None:
    holding, recording = apps(database_url, own_redis, LIVE_HEARTBEAT_S=0.2)
    client = recording.test_client()
    match = api_start(client)
    try:
        with serving(holding) as port:
            stream = Stream(port, match["id"], cookie_of(client))
            try:
                assert stream.next_match()["deals"] == []
                own_redis.kill()
                answers = [
                    api_deal(client, match["id"], 1, "schneider").status_code,
                    client.get(f"/api/matches/{match['id']}").status_code,
                    client.get("/").status_code,
                    client.post("/api/matches", json={}).status_code,
                    recording.test_client().post("/api/matches", json={}).status_code,
                ]
                assert answers == [201, 200, 200, 201, 201]
                back = own_redis.start()
                caught_up = stream.next_match()
                took = time.monotonic() - back
            finally:
                stream.close()
    finally:
        stop_app(holding)
        stop_app(recording)
    print(f"the live page caught up {took:.2f} s after Redis came back")
    assert caught_up is not None, f"nothing within {WAIT_S} s of Redis coming back"
    assert [player["score"] for player in caught_up["players"]] == [2, 0]

"""Rate limits shared by server processes: two servers on one Redis count writes to either
against one limit (the Redis of TEST_REDIS_URL, which CI provides; without one here, the
test skips and says so)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import pytest
import redis

from counter.storage.models import db

from apps import TEST_REDIS_URL, make_app
from waiting import until

REDIS_URL = TEST_REDIS_URL


def redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not redis_answers(), reason=f"no Redis at {REDIS_URL} (start redis-server)")
def test_two_servers_share_their_counts_through_redis(tmp_path: Path) -> None:
    """Two server processes, one Redis: writes to either count against one limit."""
    environment = {
        **os.environ,
        "SECRET_KEY": "limits-test-key-" + "x" * 32,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'shared.sqlite'}",
        "RATELIMIT_STORAGE_URI": REDIS_URL,
        "RATELIMIT_WRITES_PER_ADDRESS": "4 per minute",
        "FLASK_RATELIMIT_KEY_PREFIX": f"test-{uuid.uuid4().hex}",
    }
    migrated = make_app(environment["DATABASE_URL"], AUTO_MIGRATE=True)  # once, before both start
    with migrated.app_context():
        db.engine.dispose()
    servers = [Server(environment) for _ in range(2)]
    try:
        answers = [servers[turn % 2].post("/api/matches") for turn in range(6)]
    finally:
        for server in servers:
            server.stop()
    assert answers == [201, 201, 201, 201, 429, 429]


class Server:
    """The app served by its own Python process on a free port of 127.0.0.1."""

    def __init__(self, environment: dict[str, str]) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "flask", "--app", "counter", "run", "--port", str(self.port)],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        if not until(self.healthy, within=30):
            self.stop()
            raise AssertionError("the server did not answer /health within 30 s")

    def healthy(self) -> bool:
        try:
            with urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1):
                return True
        except OSError:
            return False

    def post(self, path: str) -> int:
        request = Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=b"{}",
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urlopen(request, timeout=5) as response:
                return int(response.status)
        except HTTPError as error:
            return error.code

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

"""Fair limits: a browser with a key is counted by its key, never by its neighbours' traffic,
and the store of counts holds a hash of the key, never the key."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from flask import Flask

from counter.storage.models import db
from counter.web.limits import limiter

from apps import TEST_REDIS_URL, make_app
from helpers import api_start, key_of

REDIS_URL = TEST_REDIS_URL
READS = ["/api/export", "/statistics", "/export.csv", "/export.json"]


def redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.fixture
def cafe(app: Flask) -> Iterator[Flask]:
    """Low limits, one address for everyone (the test client's 127.0.0.1)."""
    limited = make_app(
        app.config["SQLALCHEMY_DATABASE_URI"],
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI="memory://",
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",
        RATELIMIT_WRITES_PER_BROWSER="20 per minute",
        RATELIMIT_WRITES_PER_ADDRESS="10 per minute",
        RATELIMIT_HEAVY_READS="10 per hour",
        RATELIMIT_HEAVY_READS_PER_ADDRESS="5 per minute",
    )
    with limited.app_context():
        limiter.reset()
    yield limited
    with limited.app_context():
        db.engine.dispose()


def test_a_neighbours_writes_leave_a_browsers_writes_unlimited(cafe: Flask) -> None:
    mine, neighbour = cafe.test_client(), cafe.test_client()
    match = api_start(mine)
    api_start(neighbour)
    flood = [neighbour.post("/api/matches").status_code for _ in range(30)]
    assert 429 in flood
    answers = [
        mine.post(f"/api/matches/{match['id']}/deals", json={"player": 1, "outcome": "normal"})
        for _ in range(5)
    ]
    assert {answer.status_code for answer in answers} == {201}


def test_cookieless_reads_next_door_leave_a_browsers_reads_unlimited(cafe: Flask) -> None:
    mine = cafe.test_client()
    api_start(mine)
    flood = [cafe.test_client().get("/api/export").status_code for _ in range(20)]
    assert 429 in flood
    assert {mine.get(path).status_code for path in READS} == {200}


def test_browsers_without_a_key_share_their_addresss_limit(cafe: Flask) -> None:
    answers = [cafe.test_client().get("/statistics").status_code for _ in range(6)]
    assert answers == [200] * 5 + [429]


def test_a_browser_with_a_key_has_its_own_count_of_heavy_reads(cafe: Flask) -> None:
    mine = cafe.test_client()
    api_start(mine)
    answers = [mine.get("/export.csv").status_code for _ in range(11)]
    assert answers == [200] * 10 + [429]


@pytest.mark.skipif(not redis_answers(), reason=f"no Redis at {REDIS_URL} (start redis-server)")
def test_the_counts_in_redis_never_name_a_browsers_key(app: Flask) -> None:
    limited = make_app(
        app.config["SQLALCHEMY_DATABASE_URI"],
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI=REDIS_URL,
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",
    )
    store = redis.Redis.from_url(REDIS_URL)
    before = set(store.scan_iter("*"))
    try:
        browser = limited.test_client()
        match = api_start(browser)
        browser.post(f"/api/matches/{match['id']}/deals", json={"player": 1, "outcome": "normal"})
        browser.get("/api/export")
        counted = [name.decode() for name in set(store.scan_iter("*")) - before]
        assert any("browser:" in name for name in counted)
        assert not any(key_of(browser) in name for name in counted)
    finally:
        for name in set(store.scan_iter("*")) - before:
            store.delete(name)
        with limited.app_context():
            db.engine.dispose()

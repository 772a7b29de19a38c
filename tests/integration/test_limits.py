"""Rate limits: writes, imports, links and heavy reads are bounded per browser key, and per
address for browsers without one; other reads never.

Run against memory (one process) and against the Redis of TEST_REDIS_URL (shared by
every worker), which CI provides; without one here, the Redis cases skip and say so.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from flask import Flask

from counter.storage.models import db
from counter.web.limits import limiter

from apps import TEST_REDIS_URL, make_app
from helpers import api_start, submit

REDIS_URL = TEST_REDIS_URL


def redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_timeout=1).ping())
    except redis.RedisError:
        return False


STORAGES = [
    pytest.param("memory://", id="memory"),
    pytest.param(
        REDIS_URL,
        id="redis",
        marks=pytest.mark.skipif(
            not redis_answers(), reason=f"no Redis at {REDIS_URL} (start redis-server)"
        ),
    ),
]


@pytest.fixture(params=STORAGES)
def limited(request: pytest.FixtureRequest, app: Flask) -> Iterator[Flask]:
    """The test's database behind an app with low limits, counted in the storage given."""
    limited_app = make_app(
        app.config["SQLALCHEMY_DATABASE_URI"],
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI=request.param,
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",  # nothing shared with other runs
        RATELIMIT_WRITES_PER_BROWSER="3 per minute",
        RATELIMIT_WRITES_PER_ADDRESS="5 per minute",
        RATELIMIT_IMPORTS="1 per hour",
        RATELIMIT_IMPORTS_PER_ADDRESS="1 per minute",
        RATELIMIT_LINKS="1 per hour",
        RATELIMIT_LINKS_PER_ADDRESS="1 per minute",
    )
    with limited_app.app_context():
        limiter.reset()  # counts of earlier tests under the same address
    yield limited_app
    with limited_app.app_context():
        db.engine.dispose()


def test_writes_beyond_the_browsers_limit_wait_with_retry_after(limited: Flask) -> None:
    browser = limited.test_client()
    browser.post("/api/matches")  # counted for the address: the browser gets its key now
    statuses = [browser.post("/api/matches").status_code for _ in range(4)]
    assert statuses == [201, 201, 201, 429]
    refused = browser.post("/api/matches")
    assert 0 < int(refused.headers["Retry-After"]) <= 61  # the rest of the minute, rounded up
    assert "Too many requests from here; wait" in refused.json["error"]


def test_reads_are_never_limited(limited: Flask) -> None:
    browser = limited.test_client()
    match = api_start(browser)
    assert all(browser.get(f"/api/matches/{match['id']}").status_code == 200 for _ in range(20))


def test_browsers_without_a_key_on_one_address_share_its_limit(limited: Flask) -> None:
    newcomers = [limited.test_client() for _ in range(6)]  # each write would make a key
    answers = [browser.post("/api/matches").status_code for browser in newcomers]
    assert answers == [201, 201, 201, 201, 201, 429]


def test_the_limit_is_told_in_the_pages_language(limited: Flask) -> None:
    browser = limited.test_client()
    browser.environ_base["HTTP_ACCEPT_LANGUAGE"] = "bg"
    for _ in range(4):
        submit(browser, "/settings", target="7")
    refused = submit(browser, "/settings", target="7")
    assert refused.status_code == 429
    assert "Твърде много заявки" in refused.get_data(as_text=True)


def test_imports_have_a_lower_limit_of_their_own(limited: Flask) -> None:
    browser = limited.test_client()
    api_start(browser)
    export = {"format": "santase-counter", "version": 2, "exported_at": None, "matches": []}
    assert browser.post("/api/import", json=export).status_code == 200
    assert browser.post("/api/import", json=export).status_code == 429


def test_links_have_a_lower_limit_of_their_own(limited: Flask) -> None:
    browser = limited.test_client()
    api_start(browser)
    assert submit(browser, "/device-link").status_code == 200
    assert submit(browser, "/device-link").status_code == 429


def test_reads_that_cost_a_whole_history_are_bounded(limited: Flask) -> None:
    limited.config["RATELIMIT_HEAVY_READS"] = "2 per hour"
    browser = limited.test_client()
    api_start(browser)
    assert [browser.get("/export.csv").status_code for _ in range(3)] == [200, 200, 429]
    assert browser.get("/api/matches").status_code == 200  # an ordinary read is not


def test_an_ipv6_household_is_one_address(limited: Flask) -> None:
    answers = [
        limited.test_client().post("/api/matches", environ_base={"REMOTE_ADDR": address})
        for address in ["2001:db8::1"] * 3 + ["2001:db8::ffff"] * 3
    ]
    assert [answer.status_code for answer in answers] == [201, 201, 201, 201, 201, 429]

"""Fair limits: a browser with a key is counted by its key, never by its neighbours' traffic,
and the store of counts holds a hash of the key, never the key; a flood without cookies
keeps a new phone out for seconds at most, and leaves a bounded number of devices."""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from types import SimpleNamespace

import limits.storage.memory
import pytest
import redis
from flask import Flask
from sqlalchemy import func, select, update

import counter.web.limits
from counter.services.newcomers import NEVER_BACK_AFTER
from counter.storage.models import Device, Match, db, utcnow
from counter.web.limits import limiter

from apps import TEST_REDIS_URL, make_app
from helpers import api_start, key_of, submit, tap

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


@pytest.fixture
def one_address(app: Flask) -> Iterator[Flask]:
    """The limits a real site has by default, counted in memory; everyone at one address."""
    limited = make_app(
        app.config["SQLALCHEMY_DATABASE_URI"],
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI="memory://",
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",
    )
    with limited.app_context():
        limiter.reset()
    yield limited
    with limited.app_context():
        db.engine.dispose()


class Made:
    """The devices and matches made since this was: a test's own, whatever the database
    held before it."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        with app.app_context():
            last = [db.session.scalar(select(func.max(table.id))) for table in (Device, Match)]
            db.session.rollback()
        self.device, self.match = (number or 0 for number in last)

    def counts(self) -> tuple[int, int]:
        with self.app.app_context():
            counted = [
                db.session.scalar(select(func.count()).where(Device.id > self.device)),
                db.session.scalar(select(func.count()).where(Match.id > self.match)),
            ]
            db.session.rollback()
        return counted[0] or 0, counted[1] or 0


def test_a_flood_without_cookies_keeps_a_new_phone_out_for_seconds_and_makes_few_devices(
    one_address: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the same address as the phone: valid writes, each of which would make a device,
    and refused ones. The phone's first tap gets in after 10 s at most, told so."""
    now = [time.time()]
    clock = SimpleNamespace(time=lambda: now[0], monotonic=time.monotonic)
    monkeypatch.setattr(limits.storage.memory, "time", clock)  # where the counts expire
    monkeypatch.setattr(counter.web.limits, "time", clock)  # where Retry-After is told
    made = Made(one_address)
    flood = one_address.test_client(use_cookies=False)
    for _ in range(200):
        flood.post("/api/matches", json={})
        flood.post("/api/matches", json={"target": 99})
    phone = one_address.test_client()
    waited = 0
    first = tap(phone, 1, "normal")
    if first.status_code == 429:
        waited = int(first.headers["Retry-After"])
        now[0] += waited  # the page's outbox sends the tap again then
        first = tap(phone, 1, "normal")
    assert first.status_code == 302
    assert waited <= 10
    assert made.counts() == (11, 11)  # ten of the flood's, and the phone's
    for _ in range(50):
        flood.post("/api/matches", json={})
    assert tap(phone, 2, "normal").status_code == 302  # once in, counted by its own key


def test_devices_whose_cookie_never_came_back_are_forgotten_after_an_hour(app: Flask) -> None:
    made = Made(app)
    script = app.test_client(use_cookies=False)
    for _ in range(5):
        api_start(script)
    phone = app.test_client()
    mine = api_start(phone)
    assert phone.get("/api/matches/current").status_code == 200  # its cookie came back
    with app.app_context():
        earlier = utcnow() - NEVER_BACK_AFTER - timedelta(minutes=1)
        db.session.execute(update(Device).where(Device.id > made.device).values(created_at=earlier))
        db.session.commit()
    api_start(app.test_client())  # a new device: the ones never back are forgotten meanwhile
    assert made.counts() == (2, 2)
    assert phone.get(f"/api/matches/{mine['id']}").status_code == 200


def test_a_write_refused_without_a_cookie_leaves_no_device(app: Flask) -> None:
    stranger = app.test_client()
    match = api_start(app.test_client())
    made = Made(app)
    page = stranger.get("/").get_data(as_text=True)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert csrf
    refused = [
        submit(stranger, "/continue/no-such-link"),
        stranger.post(
            "/deals",
            data={
                "csrf_token": csrf.group(1),
                "match_id": str(match["id"]),
                "player": "1",
                "outcome": "normal",
            },
        ),
    ]
    assert [answer.status_code for answer in refused] == [410, 404]
    assert made.counts() == (0, 0)
    assert key_of(stranger) is None

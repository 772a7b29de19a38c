"""A server killed mid-game loses no acknowledged deal and doubles none.

Gunicorn with several workers serves the real app over loopback; phones (threads,
two per match) record deals as fast as they can; the whole server is killed with
SIGKILL in the middle and started again, while the phones retry what got no answer.
Bounded: a few seconds in all (LOAD_DEALS deals before the kill and again after).
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections import Counter
from http.client import HTTPException
from pathlib import Path
from urllib.error import URLError

import pytest
from sqlalchemy import text

from counter.storage.models import db

from apps import make_app
from servers import Browser, Server
from waiting import until

pytestmark = pytest.mark.slow

BROWSERS = 3
PHONES_PER_BROWSER = 2
LOAD_DEALS = 200  # acknowledged before the kill, and again after the restart: several matches
LOAD_WITHIN_S = 30  # for each LOAD_DEALS (about a third of a second each here)
RETRY_S = 0.05  # a phone whose try failed tries again this much later


def phone(server: Server, browser: Browser, stop: threading.Event, seat: int) -> None:
    """Record deals until told to stop.

    A deal that got no answer is sent again as the same request: the same match,
    the same request id. (Sending it to another match would be a new deal.)
    """
    while not stop.is_set():
        try:
            status, match = browser.call(server.base, "GET", "/api/matches/current")
            if status == 200 and match["finished"]:
                browser.call(server.base, "POST", "/api/matches", {"target": 15})
                continue
        except (URLError, OSError, HTTPException, ValueError):
            browser.failed()
            stop.wait(RETRY_S)  # a phone does not hammer a server that is down
            continue
        path = f"/api/matches/{match['id']}/deals"
        body = {"player": seat, "outcome": "normal", "request_id": uuid.uuid4().hex}
        while not stop.is_set():
            try:
                status, answer = browser.call(server.base, "POST", path, body)
            except (URLError, OSError, HTTPException, ValueError):
                # Down, or killed half-way through its answer: the same request again.
                browser.failed()
                stop.wait(RETRY_S)
                continue
            if status in (200, 201):
                with browser.lock:
                    browser.acknowledged.append((match["id"], body["request_id"]))
            elif status != 409:  # 409: the other phone's deal ended the match first
                raise AssertionError(f"unexpected answer {status}: {answer}")
            break


def test_a_killed_server_loses_and_doubles_no_acknowledged_deal(
    database_url: str, tmp_path: Path
) -> None:
    server = Server(database_url, tmp_path)
    browsers = [Browser() for _ in range(BROWSERS)]
    stop = threading.Event()
    try:
        server.start()
        for browser in browsers:
            assert browser.call(server.base, "POST", "/api/matches", {"target": 15})[0] == 201
        phones = [
            threading.Thread(target=phone, args=(server, browser, stop, seat % 2 + 1))
            for browser in browsers
            for seat in range(PHONES_PER_BROWSER)
        ]
        for thread in phones:
            thread.start()

        def acknowledged(at_least: int) -> bool:
            return sum(len(browser.acknowledged) for browser in browsers) >= at_least

        until(lambda: acknowledged(LOAD_DEALS), within=LOAD_WITHIN_S)  # judged below
        before_kill = sum(len(b.acknowledged) for b in browsers)
        failed_before = [browser.failed_tries for browser in browsers]
        server.kill()
        # Down until the phones have found it down: each browser's two phones tried and failed.
        assert until(
            lambda: all(
                browser.failed_tries >= before + PHONES_PER_BROWSER
                for browser, before in zip(browsers, failed_before, strict=True)
            ),
            within=10,
        ), "the phones never found the server down"
        server.start()
        until(lambda: acknowledged(before_kill + LOAD_DEALS), within=LOAD_WITHIN_S)
        stop.set()
        for thread in phones:
            thread.join(timeout=15)
    finally:
        stop.set()
        server.stop()

    acknowledged = [deal for browser in browsers for deal in browser.acknowledged]
    print(f"deals acknowledged: {before_kill} before the kill, {len(acknowledged)} in all")
    assert before_kill > 20, "too little load before the kill to prove anything"
    assert len(acknowledged) > before_kill, "no deal was recorded after the restart"

    app = make_app(database_url)
    with app.app_context():
        rows = db.session.execute(text("SELECT match_id, number, request_id FROM deal")).all()
        db.session.rollback()
        db.engine.dispose()
    stored = Counter((match_id, request_id) for match_id, _number, request_id in rows)
    assert all(stored[deal] == 1 for deal in acknowledged), "an acknowledged deal is missing"
    assert max(Counter(request_id for _m, _n, request_id in rows).values()) == 1
    numbers: dict[int, list[int]] = {}
    for match_id, number, _request_id in rows:
        numbers.setdefault(match_id, []).append(number)
    for match_numbers in numbers.values():
        assert sorted(match_numbers) == list(range(1, len(match_numbers) + 1))
    if database_url.startswith("sqlite:///"):
        check = sqlite3.connect(database_url.removeprefix("sqlite:///"))
        assert check.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        check.close()

"""A server killed mid-game loses no acknowledged deal and doubles none.

Gunicorn with several workers serves the real app over loopback; phones (threads,
two per match) record deals as fast as they can; the whole server is killed with
SIGKILL in the middle and started again, while the phones retry what got no answer.
Bounded: a few seconds in all (LOAD_DEALS deals before the kill and again after).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.client import HTTPException
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.request import HTTPCookieProcessor, OpenerDirector, Request, build_opener

import pytest
from sqlalchemy import text

from counter.storage.models import db

from conftest import TEST_DATABASE_URL, empty_tables, make_app
from waiting import until

pytestmark = pytest.mark.slow

WORKERS = 3
BROWSERS = 3
PHONES_PER_BROWSER = 2
LOAD_DEALS = 200  # acknowledged before the kill, and again after the restart: several matches
LOAD_WITHIN_S = 30  # for each LOAD_DEALS (about a third of a second each here)
RETRY_S = 0.05  # a phone whose try failed tries again this much later


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """Gunicorn running counter.wsgi:app in its own process group."""

    def __init__(self, database_url: str, folder: Path) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "SECRET_KEY": "fault-test-key-" + "x" * 32,
            "DATABASE_URL": database_url,
            "TRUSTED_HOSTS": "127.0.0.1",
            # Six phones on one address record far faster than any table: no limits here.
            "FLASK_RATELIMIT_ENABLED": "false",
        }
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with (self.folder / "gunicorn.log").open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "--workers",
                    str(WORKERS),
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "counter.wsgi:app",
                ],
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=self.folder,
            )
        assert until(self.healthy, within=30), "gunicorn did not answer /health within 30 s"

    def healthy(self) -> bool:
        try:
            with build_opener().open(self.base + "/health", timeout=2) as response:
                return bool(response.status == 200)
        except (URLError, OSError):
            return False

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)


@dataclass
class Browser:
    """One browser (a cookie jar) shared by two phones, the deals it was told of, and how
    many of its phones' tries got no answer."""

    opener: OpenerDirector = field(
        default_factory=lambda: build_opener(HTTPCookieProcessor(CookieJar()))
    )
    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    failed_tries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def failed(self) -> None:
        with self.lock:
            self.failed_tries += 1

    def call(
        self, base: str, method: str, path: str, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = Request(
            base + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=5) as response:
                return response.status, json.load(response)
        except HTTPError as error:
            return error.code, json.load(error)


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


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    url = TEST_DATABASE_URL or f"sqlite:///{tmp_path / 'fault.sqlite'}"
    yield url
    if TEST_DATABASE_URL:
        app = make_app(url)
        with app.app_context():
            empty_tables()
            db.engine.dispose()


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

"""The production recipe in deploy/, run as an operator runs it: gunicorn behind Caddy.

gunicorn starts with deploy/gunicorn.conf.py and Caddy with deploy/Caddyfile (its own
certificate authority, ``SANTASE_TLS=internal``) on free ports of 127.0.0.1, against a
PostgreSQL database made for this module and Redis for the rate limits. The site is
``counter.test``, which every client here dials at 127.0.0.1. Needs caddy, certutil
(libnss3-tools), Chromium, PostgreSQL and Redis; without them its tests skip and say
so. CI installs them and fails if it did not run.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Response, expect, sync_playwright

from bench import recipe
from bench.recipe import HOST

from apps import TEST_REDIS_URL
from phones import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MISSING_CHROMIUM,
    all_saved,
    joined,
    phone,
    score,
    server_match,
    tap,
)

MISSING = [tool for tool in ("caddy", "certutil") if shutil.which(tool) is None]
if MISSING:
    pytest.skip(
        f"{' and '.join(MISSING)} not found; install them (apt-get install caddy "
        "libnss3-tools) to run the production recipe's tests.",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow  # it starts Caddy, gunicorn and Chromium

REDIS = TEST_REDIS_URL
TIMEOUT = 5  # seconds: any one request, connection or process stop
BYTE_EVERY = 0.1  # seconds between two bytes of a slow client
# gunicorn's threads here: few, so that slow clients as many as all of them stay cheap.
THREADS = 16  # 8 live streams a process (the recipe keeps half of so few for requests)
SLOW_CLIENTS = THREADS  # of each kind: as many in all as gunicorn's 2 workers x THREADS
WATCHERS = 6  # phones showing one match live, spread over the two workers
ROUNDS = 5  # of ordinary requests while the slow clients hold on, ROUND_EVERY apart
ROUND_EVERY = 0.6


@dataclass(frozen=True)
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Loopback(http.client.HTTPConnection):
    """Plain HTTP to counter.test, dialled at 127.0.0.1 (no name lookup)."""

    def connect(self) -> None:
        self.sock = socket.create_connection(("127.0.0.1", self.port), self.timeout)


class LoopbackTLS(http.client.HTTPSConnection):
    """HTTPS to counter.test at 127.0.0.1: SNI, Host and certificate checked for the name."""

    def __init__(self, port: int, trust: ssl.SSLContext) -> None:
        super().__init__(HOST, port, timeout=TIMEOUT, context=trust)
        self.trust = trust

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self.trust.wrap_socket(raw, server_hostname=HOST)


Connect = Callable[[], http.client.HTTPConnection]


@dataclass(frozen=True)
class Site:
    """The recipe running: Caddy's ports, gunicorn's port and Caddy's root certificate."""

    https_port: int
    http_port: int
    app_port: int
    root_certificate: Path
    app_ports: tuple[int, ...] = ()
    streams_ports: tuple[int, ...] = ()

    @property
    def origin(self) -> str:
        return f"https://{HOST}:{self.https_port}"

    def trust(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=self.root_certificate)

    def https(self) -> http.client.HTTPConnection:
        return LoopbackTLS(self.https_port, self.trust())

    def plain_http(self) -> http.client.HTTPConnection:
        return Loopback(HOST, self.http_port, timeout=TIMEOUT)

    def app_directly(self) -> http.client.HTTPConnection:
        return Loopback(HOST, self.app_port, timeout=TIMEOUT)

    def dial_https(self) -> socket.socket:
        raw = socket.create_connection(("127.0.0.1", self.https_port), TIMEOUT)
        return self.trust().wrap_socket(raw, server_hostname=HOST)

    def dial_app_directly(self) -> socket.socket:
        return socket.create_connection(("127.0.0.1", self.app_port), TIMEOUT)


def ask(
    connect: Connect,
    method: str,
    path: str,
    *,
    body: object = None,
    cookie: str | None = None,
) -> Answer:
    """One request on a connection of its own."""
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if cookie:
        headers["Cookie"] = cookie
    connection = connect()
    try:
        payload = None if body is None else json.dumps(body)
        connection.request(method, path, body=payload, headers=headers)
        response = connection.getresponse()
        return Answer(response.status, response.headers, response.read())
    finally:
        connection.close()


# --- the recipe (bench/recipe.py starts it) ---------------------------------------------------


def health_answers(connect: Connect) -> bool:
    try:
        return ask(connect, "GET", "/health").status == 200
    except (OSError, http.client.HTTPException):
        return False


@contextmanager
def serving(folder: Path, *, servers: int = 1) -> Iterator[Site]:
    """The recipe with ``servers`` app servers (each its app and its streams service) behind
    one Caddy, sharing one PostgreSQL database and Redis; stopped on the way out."""
    try:
        with recipe.recipe(
            folder,
            redis_url=REDIS,
            kind="deploy",
            servers=servers,
            # A stream whose phone went away ends at its next heartbeat at the latest.
            settings={"SANTASE_LIVE_HEARTBEAT_S": "1"},
            app={"SANTASE_THREADS": str(THREADS)},
            # Two workers: a deal reaches phones held by either.
            streams={"SANTASE_WORKERS": "2"},
        ) as running:
            yield Site(
                https_port=running.https_port,
                http_port=running.http_port,
                app_port=running.app_ports[0],
                root_certificate=running.root_certificate,
                app_ports=running.app_ports,
                streams_ports=running.streams_ports,
            )
    except recipe.Unavailable as missing:
        pytest.skip(str(missing))
    except recipe.NotStarted as failure:
        pytest.fail(str(failure))


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with serving(tmp_path_factory.mktemp("deploy")) as running_site:
        yield running_site


@pytest.fixture(scope="module")
def chromium(site: Site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Chromium that trusts Caddy's root certificate, as a phone does once it is installed.

    Chromium on Linux reads the roots a user added from the NSS database in
    $HOME/.pki/nssdb; this one gets a home of its own holding only Caddy's root.
    """
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)
    home = tmp_path_factory.mktemp("chromium-home")
    nssdb = home / ".pki/nssdb"
    nssdb.mkdir(parents=True)
    for command in (
        ["-N", "--empty-password"],
        ["-A", "-t", "C,,", "-n", "santase-test-ca", "-i", str(site.root_certificate)],
    ):
        subprocess.run(
            ["certutil", "-d", f"sql:{nssdb}", *command],
            check=True,
            capture_output=True,
            timeout=TIMEOUT,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[*CHROMIUM_ARGS, f"--host-resolver-rules=MAP {HOST} 127.0.0.1"],
            env={**os.environ, "HOME": str(home)},
        )
        yield browser
        browser.close()


def new_match(site: Site) -> tuple[str, int]:
    """A match started through the API: the browser's cookie and the match's id."""
    answer = ask(site.https, "POST", "/api/matches", body={"players": ["Ivan", "Maria"]})
    assert answer.status == 201, answer.body
    cookie = SimpleCookie(answer.headers["Set-Cookie"])
    session = "; ".join(f"{name}={morsel.value}" for name, morsel in cookie.items())
    return session, answer.json()["id"]


# --- HTTPS ------------------------------------------------------------------------------------


def test_over_https_the_session_cookie_is_secure_and_http_only(site: Site) -> None:
    answer = ask(site.https, "POST", "/api/matches", body={"players": ["Ivan", "Maria"]})
    assert answer.status == 201
    cookie = SimpleCookie(answer.headers["Set-Cookie"])["session"]
    assert cookie["secure"] is True
    assert cookie["httponly"] is True


def test_hsts_is_sent_once(site: Site) -> None:
    for path in ("/", "/health", "/static/counter.css"):
        answer = ask(site.https, "GET", path)
        assert answer.status == 200
        assert answer.headers.get_all("Strict-Transport-Security") == ["max-age=31536000"], path


def test_plain_http_is_redirected_to_https(site: Site) -> None:
    answer = ask(site.plain_http, "GET", "/matches?page=2")
    assert answer.status == 308
    # Caddy takes its https_port for the one 443 is forwarded to, so it names no port.
    assert answer.headers["Location"] == f"https://{HOST}/matches?page=2"


# --- a phone --------------------------------------------------------------------------------


def answered_deals(page: Page) -> list[str]:
    """The request id of every deal the server answers from now on."""
    answered: list[str] = []

    def seen(response: Response) -> None:
        request = response.request
        if request.method == "POST" and request.url.endswith("/deals"):
            answered.append(str((request.post_data_json or {}).get("request_id")))

    page.on("response", seen)
    return answered


def test_a_phone_plays_installs_the_app_and_sends_an_offline_tap_once(
    site: Site, chromium: Browser
) -> None:
    context = phone(chromium, site.origin, service_workers="allow")
    try:
        page = context.new_page()
        answered = answered_deals(page)
        first = page.goto("/")  # a certificate Chromium did not trust would raise here
        assert first is not None
        assert first.ok
        details = first.security_details()
        assert details is not None
        assert "Caddy Local Authority" in str(details.get("issuer"))
        assert page.evaluate("window.isSecureContext") is True

        tap(page, 1, "normal")
        all_saved(page)
        page.evaluate("navigator.serviceWorker.ready.then(() => true)")
        page.reload()
        page.wait_for_function("navigator.serviceWorker.controller !== null")

        context.set_offline(True)
        page.reload()  # from the service worker
        expect(score(page, 1)).to_have_text("1")
        expect(score(page, 2)).to_have_text("0")
        tap(page, 2, "normal")
        expect(page.locator("[data-sync]")).to_have_class(re.compile("waiting"))
        expect(score(page, 2)).to_have_text("1")

        context.set_offline(False)
        all_saved(page)
        deals = server_match(page)["deals"]
        assert [(deal["player"], deal["outcome"]) for deal in deals] == [
            (1, "normal"),
            (2, "normal"),
        ]
        assert sorted(answered) == sorted(deal["request_id"] for deal in deals)
    finally:
        context.close()


# --- slow clients -----------------------------------------------------------------------------


class SlowClient(threading.Thread):
    """A phone on a dreadful line: sends ``at_once``, then ``slowly`` a byte every 0.1 s.

    It holds its connection until told to stop, until its bytes run out, or until the
    server closes it; each of those ends the thread.
    """

    def __init__(self, dial: Callable[[], socket.socket], *, at_once: bytes, slowly: bytes) -> None:
        super().__init__(daemon=True)
        self.dial = dial
        self.at_once = at_once
        self.slowly = slowly
        self.sending = threading.Event()  # connected, and its first bytes are out
        self.stop = threading.Event()
        self.failure: OSError | None = None
        self.finished = False

    def run(self) -> None:
        try:
            with self.dial() as connection:
                connection.sendall(self.at_once)
                for position in range(len(self.slowly)):
                    connection.sendall(self.slowly[position : position + 1])
                    self.sending.set()
                    if self.stop.wait(BYTE_EVERY):  # the slowness under test
                        return
                self.finished = True
        except OSError as error:
            self.failure = error
        finally:
            self.sending.set()

    @property
    def holding(self) -> bool:
        """Still connected and still sending: its request is not whole yet."""
        return self.is_alive() and self.failure is None and not self.finished


def slow_clients(dial: Callable[[], socket.socket], *, match_id: int) -> list[SlowClient]:
    """Four that send their request's headers a byte at a time, four their body."""
    headers = (
        f"GET / HTTP/1.1\r\nHost: {HOST}\r\nUser-Agent: a phone on a very slow line\r\n"
        "Accept: text/html\r\nAccept-Language: bg\r\n\r\n"
    ).encode()
    body = json.dumps({"player": 1, "outcome": "normal", "request_id": "slow" * 20}).encode()
    post = (
        f"POST /api/matches/{match_id}/deals HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    return [SlowClient(dial, at_once=b"", slowly=headers) for _ in range(SLOW_CLIENTS)] + [
        SlowClient(dial, at_once=post, slowly=body) for _ in range(SLOW_CLIENTS)
    ]


@contextmanager
def holding_on(clients: list[SlowClient]) -> Iterator[list[SlowClient]]:
    """The slow clients connected and sending; stopped and gone on the way out."""
    for client in clients:
        client.start()
    try:
        for client in clients:
            assert client.sending.wait(TIMEOUT)
            assert client.holding, client.failure
        yield clients
    finally:
        for client in clients:
            client.stop.set()
        for client in clients:
            client.join(TIMEOUT)


def ordinary_requests(
    connect: Connect, *, cookie: str, match_id: int
) -> dict[str, Callable[[int], Answer]]:
    """What other phones ask meanwhile, each by name; round ``n`` records a deal of its own."""
    return {
        "GET /health": lambda n: ask(connect, "GET", "/health"),
        "GET /": lambda n: ask(connect, "GET", "/"),
        "POST a deal": lambda n: ask(
            connect,
            "POST",
            f"/api/matches/{match_id}/deals",
            body={"player": 1 + n % 2, "outcome": "normal", "request_id": f"round-{n}"},
            cookie=cookie,
        ),
    }


def timed_rounds(requests: dict[str, Callable[[int], Answer]]) -> list[tuple[str, int, float]]:
    """ROUNDS rounds of the ordinary requests, ROUND_EVERY apart: (name, status, seconds)."""
    timings = []
    for n in range(ROUNDS):
        begun = time.monotonic()
        for name, request in requests.items():
            started = time.monotonic()
            status = request(n).status
            timings.append((name, status, time.monotonic() - started))
        # The rounds are spread out on purpose: the slow clients are to hold on the whole time.
        time.sleep(max(0.0, ROUND_EVERY - (time.monotonic() - begun)))
    return timings


def test_slow_clients_hold_no_thread_of_the_app_behind_the_proxy(site: Site) -> None:
    cookie, match_id = new_match(site)
    with holding_on(slow_clients(site.dial_https, match_id=match_id)) as clients:
        requests = ordinary_requests(site.https, cookie=cookie, match_id=match_id)
        timings = timed_rounds(requests)
        still_holding = [client.holding for client in clients]
    assert still_holding == [True] * len(clients)  # for the whole of the rounds
    assert {(name, status) for name, status, _ in timings} == {
        ("GET /health", 200),
        ("GET /", 200),
        ("POST a deal", 201),
    }
    slowest = max(seconds for _, _, seconds in timings)
    assert slowest < 1.0, timings


# --- live pages -------------------------------------------------------------------------------


def test_a_deal_reaches_every_live_phone_whichever_worker_holds_it(site: Site) -> None:
    """Phones showing a match live through Caddy, held by both gunicorn workers: a deal
    recorded by one worker reaches every one of them (through Redis) within a second."""
    cookie, match_id = new_match(site)
    with ExitStack() as open_streams:
        watchers = []
        for _ in range(WATCHERS):
            connection = site.https()
            open_streams.callback(connection.close)
            path = f"/api/matches/{match_id}/events"
            connection.request("GET", path, headers={"Cookie": cookie})
            response = connection.getresponse()
            assert response.status == 200
            assert next_event(response)["players"][0]["score"] == 0
            watchers.append(response)
        started = time.monotonic()
        deal = {"player": 1, "outcome": "schneider"}
        path = f"/api/matches/{match_id}/deals"
        assert ask(site.https, "POST", path, body=deal, cookie=cookie).status == 201
        for response in watchers:
            assert next_event(response)["players"][0]["score"] == 2
        assert time.monotonic() - started < 1.0


def test_a_stream_asked_for_compressed_as_a_browser_asks_comes_uncompressed(
    site: Site,
) -> None:
    """Caddy's encoders hold a stream until their buffer fills: a compressed one would bring
    the page nothing, however open it stays. Every other answer stays compressed."""
    cookie, match_id = new_match(site)
    browsers_ask = {"Cookie": cookie, "Accept-Encoding": "gzip, deflate, br, zstd"}
    connection = site.https()
    try:
        connection.request("GET", f"/api/matches/{match_id}/events", headers=browsers_ask)
        stream = connection.getresponse()
        assert stream.headers.get("Content-Encoding") is None
        assert next_event(stream)["players"][0]["score"] == 0
    finally:
        connection.close()
    connection = site.https()
    try:
        connection.request("GET", "/static/counter.css", headers=browsers_ask)
        assert connection.getresponse().headers["Content-Encoding"] in {"zstd", "gzip"}
    finally:
        connection.close()


def test_every_deal_reaches_four_other_phones_by_their_streams(
    site: Site, chromium: Browser
) -> None:
    """Five phones on one key through Caddy, each Chromium with its own headers: every deal
    tapped on one shows on the four others within 2 s, carried by their live streams (none
    of them looks for it)."""
    context = phone(chromium, site.origin)
    tapping = context.new_page()
    tapping.goto("/")
    tap(tapping, 1, "normal")
    all_saved(tapping)
    requests: list[list[str]] = [[] for _ in range(4)]
    others = [joined(chromium, site.origin, tapping, each) for each in requests]
    for other in others:
        expect(score(other, 1)).to_have_text("1")
    try:
        for seat, outcome, points in (
            (2, "schneider", "2"),
            (1, "schwarz", "4"),
            (2, "normal", "3"),
        ):
            tap(tapping, seat, outcome)
            for other in others:
                expect(score(other, seat)).to_have_text(points, timeout=2000)
        # Each page looks at the match once as it opens (late, on a busy machine); never for
        # a deal.
        looks = [[url for url in each if re.search(r"/api/matches/\d+$", url)] for each in requests]
        assert max(map(len, looks)) <= 1, looks
    finally:
        for each in others:
            each.context.close()
        context.close()


def next_event(response: http.client.HTTPResponse) -> Any:
    """The data of the next event of a stream (comments and the retry line skipped)."""
    data = None
    while True:
        line = response.readline().decode().rstrip("\n")
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
        elif line == "" and data is not None:
            return json.loads(data)


# --- a hostile client and its neighbours -------------------------------------------------------

HOSTILE_BODY = ("[" * 100_000 + "]" * 100_000).encode()  # 200 KB, deep: refused unread (413)


def hostile_loop(site: Site, path: str, until: float) -> None:
    """Posts the body a server refuses before reading it, again and again."""
    while time.monotonic() < until:
        connection = site.https()
        try:
            headers = {"Content-Type": "application/json"}
            connection.request("POST", path, body=HOSTILE_BODY, headers=headers)
            connection.getresponse().read()
        except (OSError, http.client.HTTPException):
            pass  # it may be cut off: that is its own business
        finally:
            connection.close()


def taps(site: Site, neighbour: tuple[str, int], statuses: list[int], until: float) -> None:
    """A neighbour recording a deal and taking it back, over and over."""
    cookie, match_id = neighbour
    path = f"/api/matches/{match_id}/deals"
    while time.monotonic() < until:
        for method, where, body in (
            ("POST", path, {"player": 1, "outcome": "normal"}),
            ("DELETE", f"{path}/last", None),
        ):
            try:
                statuses.append(ask(site.https, method, where, body=body, cookie=cookie).status)
            except (OSError, http.client.HTTPException):
                statuses.append(0)


def test_a_client_refused_before_its_body_is_read_costs_no_neighbour_a_tap(site: Site) -> None:
    """A refusal that leaves a request's body unread must not leave the proxy a broken
    connection to the app that the next request, someone else's, is sent on (a 502)."""
    _cookie, target = new_match(site)
    neighbours = [new_match(site) for _ in range(4)]
    until = time.monotonic() + 4
    statuses: list[int] = []
    workers = [
        threading.Thread(target=hostile_loop, args=(site, f"/api/matches/{target}/deals", until))
        for _ in range(4)
    ] + [
        threading.Thread(target=taps, args=(site, neighbour, statuses, until))
        for neighbour in neighbours
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(statuses) > 40
    assert {status for status in statuses} <= {200, 201}, sorted(set(statuses))


# --- two app servers ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    with serving(tmp_path_factory.mktemp("two-servers"), servers=2) as running_site:
        yield running_site


def test_a_deal_on_one_server_reaches_a_phone_held_by_the_other(two_servers: Site) -> None:
    site = two_servers
    cookie, match_id = new_match(site)
    second = Loopback(HOST, site.streams_ports[1], timeout=TIMEOUT)
    try:
        second.request("GET", f"/api/matches/{match_id}/events", headers={"Cookie": cookie})
        stream = second.getresponse()
        assert next_event(stream)["players"][0]["score"] == 0
        started = time.monotonic()

        def first() -> http.client.HTTPConnection:
            return Loopback(HOST, site.app_ports[0], timeout=TIMEOUT)

        deal = {"player": 1, "outcome": "schwarz"}
        path = f"/api/matches/{match_id}/deals"
        assert ask(first, "POST", path, body=deal, cookie=cookie).status == 201
        assert next_event(stream)["players"][0]["score"] == 3
        assert time.monotonic() - started < 1.0
    finally:
        second.close()


def test_every_request_through_the_proxy_is_answered_by_one_of_the_servers(
    two_servers: Site,
) -> None:
    cookie, match_id = new_match(two_servers)
    answers = [
        ask(two_servers.https, "POST", f"/api/matches/{match_id}/deals", body=deal, cookie=cookie)
        for deal in ({"player": 1 + n % 2, "outcome": "normal"} for n in range(10))
    ]
    assert [answer.status for answer in answers] == [201] * 10

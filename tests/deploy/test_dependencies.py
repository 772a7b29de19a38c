"""Dependencies fail soft: Redis gone keeps the counter serving, a database gone is a 503 wait.

Real servers, no mocks: a redis-server of the test's own that is stopped and started
again; PostgreSQL reached through a TCP relay that the test cuts off and restores. (An
SQLite file that cannot be opened: tests/integration/test_unopenable_database.py.)
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from psycopg import sql
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from counter.game.refusals import Busy
from counter.storage.models import Device, db
from counter.storage.transactions import writes
from counter.web.limits import limiter

from apps import TEST_DATABASE_URL, empty_tables, make_app
from helpers import api_deal, api_start
from waiting import until

pytestmark = pytest.mark.slow  # servers of its own, and waits on their timeouts

LOCAL_POSTGRESQL = "postgresql://postgres@127.0.0.1:5432/test"
NOT_ANSWERING = "The counter's database is not answering just now; try again in a moment."
NOT_ANSWERING_BG = "Базата данни на брояча не отговаря в момента; опитайте отново след малко."
REDIS_DOWN = "redis down, limits kept in memory"
OK = {"status": "ok", "database": "ok"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Callable[[], bool], failure: str, seconds: float = 40) -> None:
    """Until ``condition`` holds; at most ``seconds``.

    40 s covers Flask-Limiter's longest wait between two tries of a storage it gave up on.
    """
    assert until(condition, within=seconds), failure


# --- Redis -------------------------------------------------------------------------------


class RedisServer:
    """A redis-server of the test's own on a free port of 127.0.0.1; it saves nothing.

    Its database 1, as no test uses database 0 of any Redis (tests/conftest.py).
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/1"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                *("--bind", "127.0.0.1", "--port", str(self.port)),
                *("--save", "", "--appendonly", "no", "--dir", str(self.folder)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.answers, f"redis-server did not answer on port {self.port}", seconds=10)

    def stop(self) -> None:
        """Shut it down (SIGTERM), as an operator or a crash would take it away."""
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def answers(self) -> bool:
        try:
            with redis.Redis.from_url(self.url, socket_timeout=0.5) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    def keys(self) -> list[bytes]:
        with redis.Redis.from_url(self.url, socket_timeout=0.5) as client:
            return list(client.keys("*"))


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def limited_on(storage_uri: str, database_url: str) -> Flask:
    """The app with its rate limits on, counted in ``storage_uri``."""
    return make_app(
        database_url,
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI=storage_uri,
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",
    )


@pytest.fixture
def limited_app() -> Iterator[Callable[[str, str], Flask]]:
    """Build apps with limits on; afterwards, the process's one limiter trusts storage again.

    Flask-Limiter keeps "the storage is down" on the limiter, which every app of this
    process shares: without this, the next test's app would start counting in memory.
    """
    made: list[Flask] = []

    def build(storage_uri: str, database_url: str) -> Flask:
        made.append(limited_on(storage_uri, database_url))
        return made[-1]

    yield build
    for app in made:
        with app.app_context():
            db.engine.dispose()
    limiter._storage_dead = False


@pytest.fixture
def on_redis(
    app: Flask, redis_server: RedisServer, limited_app: Callable[[str, str], Flask]
) -> Flask:
    """The test's database behind an app whose limits are counted in the test's Redis."""
    return limited_app(redis_server.url, app.config["SQLALCHEMY_DATABASE_URI"])


def test_limits_are_counted_in_redis_while_it_answers(
    on_redis: Flask, redis_server: RedisServer
) -> None:
    assert redis_server.keys() == []
    assert on_redis.test_client().post("/api/matches").status_code == 201
    assert redis_server.keys() != []


def test_health_says_redis_ok_while_it_answers(on_redis: Flask) -> None:
    response = on_redis.test_client().get("/health")
    assert response.status_code == 200
    assert response.json == {**OK, "rate_limits": "redis ok"}


def test_writes_go_on_when_redis_goes_down(on_redis: Flask, redis_server: RedisServer) -> None:
    browser = on_redis.test_client()
    assert browser.post("/api/matches").status_code == 201
    redis_server.stop()
    match = api_start(browser)
    assert api_deal(browser, match["id"], 1, "schneider").status_code == 201


def test_health_is_degraded_but_serving_while_redis_is_down(
    on_redis: Flask, redis_server: RedisServer
) -> None:
    browser = on_redis.test_client()
    redis_server.stop()
    assert browser.post("/api/matches").status_code == 201
    response = browser.get("/health")
    assert response.status_code == 200
    assert response.json == {"status": "degraded", "database": "ok", "rate_limits": REDIS_DOWN}


def test_limits_go_back_to_redis_when_it_answers_again(
    on_redis: Flask, redis_server: RedisServer
) -> None:
    browser = on_redis.test_client()
    redis_server.stop()
    assert browser.post("/api/matches").status_code == 201  # counted in memory now
    assert browser.get("/health").json == {**OK, "status": "degraded", "rate_limits": REDIS_DOWN}
    redis_server.start()  # the same port, empty

    def health_is_ok() -> bool:
        return bool(browser.get("/health").json == {**OK, "rate_limits": "redis ok"})

    def a_write_is_counted_in_redis() -> bool:
        assert browser.post("/api/matches").status_code == 201
        return redis_server.keys() != []

    wait_for(health_is_ok, "/health did not say redis ok again")
    wait_for(a_write_is_counted_in_redis, "the limits did not go back to Redis")


def test_writes_go_on_when_nothing_ever_answered_at_the_redis_address(
    app: Flask, limited_app: Callable[[str, str], Flask]
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/1"
    browser = limited_app(nowhere, app.config["SQLALCHEMY_DATABASE_URI"]).test_client()
    match = api_start(browser)
    assert api_deal(browser, match["id"], 1, "normal").status_code == 201


def test_a_redis_that_hangs_does_not_hang_a_write(
    app: Flask, limited_app: Callable[[str, str], Flask]
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as silent:  # takes connections, never answers
        hanging = f"redis://127.0.0.1:{silent.getsockname()[1]}/1"
        browser = limited_app(hanging, app.config["SQLALCHEMY_DATABASE_URI"]).test_client()
        answers: list[int] = []
        writing = threading.Thread(
            target=lambda: answers.append(browser.post("/api/matches").status_code)
        )
        writing.start()
        writing.join(timeout=10)  # half a second per try of Redis, not forever
        assert not writing.is_alive(), "the write still waits for a Redis that never answers"
    assert answers == [201]


# --- PostgreSQL, cut off and back ----------------------------------------------------------


class Forwarder:
    """A TCP relay from a free port of 127.0.0.1 to the database, which the test can cut.

    Cut, it refuses new connections and drops every open one, as a database server
    that went away does; restored, it relays again on the same port.
    """

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._running = threading.Event()
        self._accepting: threading.Thread | None = None
        self.restore()

    def restore(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))  # SO_REUSEADDR: same port
        listener.settimeout(0.05)  # to notice a cut
        self._running.set()
        self._accepting = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        self._accepting.start()

    def cut(self) -> None:
        self._running.clear()
        if self._accepting is not None:
            self._accepting.join()
            self._accepting = None
        with self._lock:
            dropped, self._sockets = self._sockets, []
        for connection in dropped:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)  # wakes the relay threads
            connection.close()

    def _accept(self, listener: socket.socket) -> None:
        with listener:
            while self._running.is_set():
                try:
                    client, _address = listener.accept()
                except TimeoutError:
                    continue
                try:
                    server = socket.create_connection(self.upstream, timeout=5)
                except OSError:
                    client.close()
                    continue
                client.settimeout(None)
                server.settimeout(None)
                with self._lock:
                    self._sockets += [client, server]
                for source, sink in ((client, server), (server, client)):
                    threading.Thread(target=_pipe, args=(source, sink), daemon=True).start()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass  # cut: the other end is gone


def _admin(url: str) -> psycopg.Connection[Any]:
    server = make_url(url)
    return psycopg.connect(
        host=server.host,
        port=server.port or 5432,
        user=server.username,
        password=server.password,
        dbname=server.database,
        autocommit=True,
        connect_timeout=3,
    )


@pytest.fixture
def postgresql_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A migrated PostgreSQL database: TEST_DATABASE_URL's, else one made here and dropped."""
    if TEST_DATABASE_URL and TEST_DATABASE_URL.startswith("postgres"):
        url = str(request.getfixturevalue("migrated_database"))
        yield url
        emptying = make_app(url)
        with emptying.app_context():
            empty_tables()
            db.engine.dispose()
        return
    try:
        _admin(LOCAL_POSTGRESQL).close()
    except psycopg.OperationalError as error:
        pytest.skip(
            f"no PostgreSQL at 127.0.0.1:5432 ({str(error).strip()}): these tests cut a real "
            "one off; start it, or set TEST_DATABASE_URL to one"
        )
    name = f"santase_outage_{uuid.uuid4().hex[:12]}"
    with _admin(LOCAL_POSTGRESQL) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    url = make_url(LOCAL_POSTGRESQL).set(database=name).render_as_string(hide_password=False)
    try:
        migrating = make_app(url, AUTO_MIGRATE=True)
        with migrating.app_context():
            db.engine.dispose()
        yield url
    finally:
        with _admin(LOCAL_POSTGRESQL) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@pytest.fixture
def forwarder(postgresql_url: str) -> Iterator[Forwarder]:
    database = make_url(postgresql_url)
    relay = Forwarder((database.host or "127.0.0.1", database.port or 5432))
    yield relay
    relay.cut()


@pytest.fixture
def relayed(postgresql_url: str, forwarder: Forwarder) -> Iterator[Flask]:
    """The app on PostgreSQL through the forwarder."""
    through = make_url(postgresql_url).set(host="127.0.0.1", port=forwarder.port)
    app = make_app(through.render_as_string(hide_password=False))
    yield app
    with app.app_context():
        db.engine.dispose()


@pytest.fixture
def player(relayed: Flask) -> tuple[FlaskClient, int]:
    """A browser with a match started while the database answered."""
    browser = relayed.test_client()
    return browser, api_start(browser)["id"]


def test_a_write_while_the_database_is_cut_off_waits_with_retry_after(
    player: tuple[FlaskClient, int], forwarder: Forwarder
) -> None:
    browser, match_id = player
    forwarder.cut()
    response = api_deal(browser, match_id, 1, "normal")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "2"
    assert response.json == {"error": NOT_ANSWERING}


def test_a_page_while_the_database_is_cut_off_is_a_503_page_in_its_language(
    player: tuple[FlaskClient, int], forwarder: Forwarder
) -> None:
    browser, _match_id = player
    forwarder.cut()
    response = browser.get("/", headers={"Accept-Language": "bg"})
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "2"
    assert response.mimetype == "text/html"
    assert NOT_ANSWERING_BG in response.get_data(as_text=True)


def test_health_names_the_database_when_it_is_cut_off(relayed: Flask, forwarder: Forwarder) -> None:
    forwarder.cut()
    response = relayed.test_client().get("/health")
    assert response.status_code == 503
    assert response.json == {
        "status": "unavailable",
        "database": "not answering",
        "rate_limits": "off",
    }


def test_a_write_refused_while_cut_off_is_stored_once_when_the_database_is_back(
    player: tuple[FlaskClient, int], forwarder: Forwarder
) -> None:
    browser, match_id = player
    tap = {"request_id": "tap-in-the-outage"}
    forwarder.cut()
    assert api_deal(browser, match_id, 1, "schwarz", **tap).status_code == 503
    forwarder.restore()
    assert api_deal(browser, match_id, 1, "schwarz", **tap).status_code == 201
    assert api_deal(browser, match_id, 1, "schwarz", **tap).status_code == 200  # a retry
    match = browser.get(f"/api/matches/{match_id}").json
    assert isinstance(match, dict)
    stored = [(deal["request_id"], deal["points"]) for deal in match["deals"]]
    assert stored == [("tap-in-the-outage", 3)]


def test_connections_the_database_dropped_are_replaced_before_use(
    player: tuple[FlaskClient, int], forwarder: Forwarder
) -> None:
    browser, match_id = player  # its connection stays in the pool
    forwarder.cut()
    forwarder.restore()
    assert api_deal(browser, match_id, 1, "normal").status_code == 201


def test_a_new_match_while_a_deal_holds_the_match_it_leaves_is_no_deadlock(
    postgresql_url: str,
) -> None:
    """A deal locks its match, then the row of the device that shows it. A new match that the
    same browser starts at that moment waits for the match it leaves (its device row's
    foreign key): holding that row meanwhile, the two deadlocked, and one was told that the
    database was not answering."""
    app = make_app(postgresql_url)
    browser = app.test_client()
    left = api_start(browser)["id"]
    with app.app_context():
        device_id = db.session.scalar(select(Device.id))
    answers: list[int] = []
    starting = threading.Thread(
        target=lambda: answers.append(browser.post("/api/matches", json={}).status_code)
    )
    with _admin(postgresql_url) as deal, _admin(postgresql_url) as looking:
        with deal.transaction():
            deal.execute("SELECT id FROM match WHERE id = %s FOR UPDATE", [left])
            starting.start()
            _wait_for_a_lock(looking)
            deal.execute("UPDATE device SET match_id = %s WHERE id = %s", [left, device_id])
        starting.join(timeout=10)
    with app.app_context():
        db.engine.dispose()
    assert answers == [201]


def test_a_deadlock_is_told_as_busy_not_as_a_database_that_does_not_answer(app: Flask) -> None:
    @writes
    def deadlocked() -> None:
        raise OperationalError("UPDATE device", {}, Exception("deadlock detected"))

    with app.app_context(), pytest.raises(Busy):
        deadlocked()


def _wait_for_a_lock(connection: psycopg.Connection[Any]) -> None:
    """Until another session of this database waits for a lock (5 s at most)."""
    query = (
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND datname = current_database() AND pid <> pg_backend_pid()"
    )

    def waiting() -> bool:
        row = connection.execute(query).fetchone()
        return row is not None and bool(row[0])

    assert until(waiting, within=5), "no request came to wait for the match's lock within 5 s"

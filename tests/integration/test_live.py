"""Live pages: each change of a match reaches every open event stream of it, in this
process (as under ``flask run``) and, through Redis, in another."""

from __future__ import annotations

import http.client
import json
import re
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, update
from werkzeug.serving import ThreadedWSGIServer

from counter.storage import push
from counter.storage.models import Match, db
from counter.web import live

from apps import TEST_DATABASE_URL, TEST_REDIS_URL, make_app, stop_app
from helpers import api_deal, api_start, submit, win_match
from waiting import until

REDIS = TEST_REDIS_URL
WAIT_S = 5  # the longest a test waits for an event: they come within milliseconds
HEARTBEAT_S = 0.2


class Server(ThreadedWSGIServer):
    """The app served by threads as ``flask run`` serves it, one thread to a connection,
    counting the connections it is serving. A connection's thread has ended once its last
    request has: a stream's too, which leaves the hub and lets go of its database
    connection as it ends."""

    def __init__(self, app: Flask) -> None:
        super().__init__("127.0.0.1", 0, app)
        self.connections = 0
        self._lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            self.connections += 1
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self.connections -= 1


@contextmanager
def serving(app: Flask) -> Iterator[int]:
    """``app`` on a free port, served by threads as ``flask run`` serves it.

    A stream whose reader went away ends at its next heartbeat, so heartbeats come
    often here; on the way out every connection, every stream's too, has ended.
    """
    app.config["LIVE_HEARTBEAT_S"] = HEARTBEAT_S
    http_server = Server(app)
    # The server looks whether it is to stop this often (0.5 s by default): each test waits
    # for that once, on the way out.
    thread = threading.Thread(
        target=http_server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield http_server.server_port
    finally:
        http_server.shutdown()
        ended = until(lambda: not http_server.connections, within=WAIT_S)
        assert ended, f"{http_server.connections} connections still served (a stream left open?)"


class Stream:
    """An open event stream, read one event at a time."""

    def __init__(
        self, port: int, path: str, cookie: str | None, last_id: str | None = None
    ) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT_S)
        headers = {"Accept": "text/event-stream"}
        if cookie:
            headers["Cookie"] = f"session={cookie}"
        if last_id:
            headers["Last-Event-ID"] = last_id
        self.connection.request("GET", path, headers=headers)
        self.response = self.connection.getresponse()

    @property
    def status(self) -> int:
        return self.response.status

    def event(self) -> dict[str, str]:
        """The next event (comments, heartbeats and the retry line skipped): its fields."""
        fields: dict[str, str] = {}
        while True:
            raw = self.response.readline()
            assert raw, "the stream ended"  # at its end readline gives b"" for ever
            line = raw.decode().rstrip("\n")
            if line == "":
                if "data" in fields and fields.get("event") != "beat":
                    return fields
                fields = {}
            elif not line.startswith(":") and ":" in line:
                name, value = line.split(":", 1)
                fields[name] = value.removeprefix(" ")

    def match(self) -> Any:
        return json.loads(self.event()["data"])

    def beats(self, count: int) -> None:
        """Read until ``count`` heartbeats have come."""
        for _ in range(count):
            while self.response.readline() != b"event: beat\n":
                pass

    def ended(self) -> bool:
        """Whether the server ended the stream (what is left of it read)."""
        self.response.read()
        return True

    def close(self) -> None:
        self.response.close()  # the response holds the socket open until it is closed too
        self.connection.close()


def cookie_of(client: FlaskClient) -> str:
    cookie = client.get_cookie("session")
    assert cookie is not None
    return cookie.value


@pytest.fixture
def port(app: Flask) -> Iterator[int]:
    with serving(app) as number:
        yield number


def scores(match: Any) -> list[int]:
    return [player["score"] for player in match["players"]]


def test_a_stream_starts_with_the_match_as_it_is(client: FlaskClient, port: int) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(client))
    assert stream.status == 200
    assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
    assert stream.match() == client.get(f"/api/matches/{match['id']}").json
    stream.close()


def test_each_deal_reaches_the_stream(client: FlaskClient, port: int) -> None:
    match = api_start(client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(client))
    stream.match()
    api_deal(client, match["id"], 2, "schneider")
    assert scores(stream.match()) == [0, 2]
    client.delete(f"/api/matches/{match['id']}/deals/last")
    assert scores(stream.match()) == [0, 0]
    stream.close()


def test_a_stream_resumed_with_the_last_event_id_sends_only_what_is_new(
    client: FlaskClient, port: int
) -> None:
    match = api_start(client)
    path = f"/api/matches/{match['id']}/events"
    first = Stream(port, path, cookie_of(client))
    seen = first.event()["id"]
    first.close()
    resumed = Stream(port, path, cookie_of(client), last_id=seen)
    api_deal(client, match["id"], 1, "normal")
    assert scores(resumed.match()) == [1, 0]  # not the match as it was first
    resumed.close()


def test_another_browser_gets_no_stream_of_the_match(
    client: FlaskClient, other_client: FlaskClient, port: int
) -> None:
    match = api_start(client)
    api_start(other_client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(other_client))
    assert stream.status == 404
    stream.close()


def test_a_deleted_match_ends_its_streams(client: FlaskClient, port: int) -> None:
    match = api_start(client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(client))
    stream.match()
    client.delete(f"/api/matches/{match['id']}")
    assert stream.event()["event"] == "gone"
    stream.close()


def test_a_stopping_process_ends_its_streams_at_once(
    app: Flask, client: FlaskClient, port: int
) -> None:
    app.config["LIVE_HEARTBEAT_S"] = 60  # it ends at once, not at a heartbeat
    match = api_start(client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(client))
    stream.match()
    with app.app_context():
        assert push.hub().close(wait_s=WAIT_S)
    assert stream.response.read() == b""  # ended without "gone": the page reconnects
    stream.close()


def test_a_shared_stream_shows_what_the_share_link_shows(client: FlaskClient, port: int) -> None:
    match = api_start(client)
    submit(client, f"/matches/{match['id']}/share")
    page = client.get(f"/matches/{match['id']}").get_data(as_text=True)
    token = re.search(r"/shared/([\w-]+)", page)
    assert token
    stream = Stream(port, f"/api/shared/{token.group(1)}/events", None)
    assert stream.match() == client.get(f"/api/shared/{token.group(1)}").json
    api_deal(client, match["id"], 1, "schwarz")
    shared = stream.match()
    assert scores(shared) == [3, 0]
    assert "request_id" not in shared["deals"][0]
    stream.close()


def test_a_revoked_share_link_ends_its_stream_at_once(
    migrated_database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    app = own_app(migrated_database, tmp_path)
    client = app.test_client()
    request.addfinalizer(lambda: dispose(app))
    match = api_start(client)
    submit(client, f"/matches/{match['id']}/share")
    page = client.get(f"/matches/{match['id']}").get_data(as_text=True)
    token = re.search(r"/shared/([\w-]+)", page)
    assert token
    with serving(app) as port:
        app.config["LIVE_HEARTBEAT_S"] = 60  # it ends at once, not at a heartbeat
        stream = Stream(port, f"/api/shared/{token.group(1)}/events", None)
        stream.match()
        submit(client, f"/matches/{match['id']}/share/stop")
        api_deal(client, match["id"], 1, "normal")
        assert stream.event()["event"] == "gone"
        stream.close()


def dispose(*apps: Flask) -> None:
    """Close the connections of apps a test made itself (the app fixture closes its own)."""
    for each in apps:
        stop_app(each)


def own_app(migrated_database: str, tmp_path: Path, **settings: object) -> Flask:
    """An app of the test's own (the app fixture's is made with the default settings)."""
    if TEST_DATABASE_URL:
        return make_app(migrated_database, **settings)
    copy = tmp_path / "live.sqlite"
    copy.write_bytes(Path(migrated_database.removeprefix("sqlite:///")).read_bytes())
    return make_app(f"sqlite:///{copy}", **settings)


def test_one_browser_holds_a_bounded_number_of_streams(
    app: Flask, client: FlaskClient, port: int
) -> None:
    most = app.config["LIVE_STREAMS_PER_BROWSER"]
    match = api_start(client)
    path = f"/api/matches/{match['id']}/events"
    streams = [Stream(port, path, cookie_of(client)) for _ in range(most)]
    assert {stream.status for stream in streams} == {200}
    refused = Stream(port, path, cookie_of(client))
    assert refused.status == 429
    assert "Too many live pages" in json.loads(refused.response.read())["error"]
    for stream in streams:
        stream.close()


def open_from(client: FlaskClient, path: str, address: str) -> Any:
    """A stream opened from ``address``, begun (so that closing it lets its place go)."""
    response = client.get(path, environ_base={"REMOTE_ADDR": address}, buffered=False)
    if response.status_code == 200:
        next(iter(response.response))
    return response


def test_streams_count_an_address_as_the_rate_limits_do(app: Flask, client: FlaskClient) -> None:
    """An IPv6 /64 is one address: it cannot take the places of a phone elsewhere."""
    app.config.update(LIVE_STREAMS_PER_BROWSER=10, LIVE_STREAMS_PER_ADDRESS=2)
    path = f"/api/matches/{api_start(client)['id']}/events"
    household = [open_from(client, path, f"2001:db8::{n}") for n in (1, 2, 3)]
    elsewhere = open_from(client, path, "2001:db8:0:1::1")
    dual_stack = [open_from(client, path, address) for address in ("::ffff:192.0.2.7", "192.0.2.7")]
    opened = [*household, elsewhere, *dual_stack]
    for response in reversed(opened):  # each holds a request context: the last one first
        response.close()
    statuses = [response.status_code for response in opened]
    assert statuses == [200, 200, 429, 200, 200, 200]


def test_a_flood_from_one_address_never_keeps_a_new_phone_there_out(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """At a full address the key holding the most streams there gives its oldest up to a
    newcomer, until the newcomer holds as many or more."""
    app.config["LIVE_STREAMS_PER_ADDRESS"] = 3
    flood = f"/api/matches/{api_start(client)['id']}/events"
    flooding = [Stream(port, flood, cookie_of(client)) for _ in range(3)]
    for stream in flooding:
        stream.match()
    newcomer = app.test_client()
    mine = f"/api/matches/{api_start(newcomer)['id']}/events"
    opened = [Stream(port, mine, cookie_of(newcomer)) for _ in range(3)]
    # The flood's two oldest gave way (their pages would open them again); then the newcomer
    # held the most.
    assert [stream.status for stream in opened] == [200, 200, 429]
    assert opened[0].match()["players"][0]["score"] == 0
    assert flooding[0].ended()
    assert flooding[1].ended()
    again = Stream(port, flood, cookie_of(client))  # the flood's one against two: its turn
    assert again.status == 200
    assert opened[0].ended()
    for stream in (*flooding, *opened, again):
        stream.close()
    # Each place given back once: nothing counted is left once every stream has ended.
    assert until(lambda: not live._open, within=WAIT_S)


def test_a_quiet_stream_asks_the_database_nothing_at_its_heartbeats(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Whether its reader may still see the match is asked when something could have changed
    it (the tests of removed devices below), not every 15 s for every phone."""
    stream = Stream(port, f"/api/matches/{api_start(client)['id']}/events", cookie_of(client))
    stream.match()
    stream.beats(1)  # what the stream asks as it opens is asked by then
    statements: list[str] = []
    with app.app_context():
        engine = db.engine

    def counted(*arguments: Any) -> None:
        statements.append(arguments[2])

    event.listen(engine, "before_cursor_execute", counted)
    try:
        stream.beats(5)
    finally:
        event.remove(engine, "before_cursor_execute", counted)
    stream.close()
    assert statements == []


def test_a_device_that_takes_another_key_hears_no_more_of_its_old_matches(
    app: Flask, client: FlaskClient, port: int
) -> None:
    app.config["LIVE_HEARTBEAT_S"] = 60
    other = app.test_client()
    own = api_start(other)
    stream = Stream(port, f"/api/matches/{own['id']}/events", cookie_of(other))
    stream.match()
    api_start(client)
    page = submit(client, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    assert submit(other, link.group(1)).status_code == 302
    assert stream.event()["event"] == "gone"
    stream.close()


def redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS, socket_timeout=1).ping())
    except redis.RedisError:
        return False


@pytest.mark.skipif(not redis_answers(), reason=f"Redis at {REDIS} does not answer")
def test_through_redis_a_change_made_in_one_process_reaches_a_stream_of_another(
    migrated_database: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two instances of the app on one database, as two gunicorn workers or two servers:
    the stream is held by the first, the deal is recorded by the second."""
    settings = {"PUSH_URL": REDIS, "PUSH_CHANNEL": f"santase-test:{secrets.token_hex(4)}"}
    holding = own_app(migrated_database, tmp_path, **settings)
    recording = make_app(holding.config["SQLALCHEMY_DATABASE_URI"], **settings)
    request.addfinalizer(lambda: dispose(holding, recording))
    client = recording.test_client()
    match = api_start(client)
    with serving(holding) as port:
        stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(client))
        stream.match()
        api_deal(client, match["id"], 1, "schneider")
        assert scores(stream.match()) == [2, 0]
        stream.close()


def test_a_removed_device_hears_nothing_more_of_the_match(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Its stream ends at once (not at the next heartbeat): a change made after the removal
    never reaches it."""
    app.config["LIVE_HEARTBEAT_S"] = 60
    match = api_start(client)
    other = joined(app, client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(other))
    stream.match()
    remove_devices(client)
    api_deal(client, match["id"], 1, "schwarz")
    assert stream.event()["event"] == "gone"
    stream.close()


def test_forgetting_other_devices_ends_their_streams_at_once(
    app: Flask, client: FlaskClient, port: int
) -> None:
    app.config["LIVE_HEARTBEAT_S"] = 60
    match = api_start(client)
    other = joined(app, client)
    stream = Stream(port, f"/api/matches/{match['id']}/events", cookie_of(other))
    stream.match()
    page = client.get("/privacy").get_data(as_text=True)
    rotation = re.search(r'name="rotation" value="([^"]+)"', page)
    assert rotation
    assert (
        submit(client, "/devices/forget", rotation=rotation.group(1), confirmed="1").status_code
        == 302
    )
    api_deal(client, match["id"], 1, "schwarz")
    assert stream.event()["event"] == "gone"
    stream.close()


def moved_on(app: Flask, client: FlaskClient) -> tuple[FlaskClient, int, int]:
    """Two phones played match X; then ``client`` started match Y, the other phone's page
    closed meanwhile. The other phone, X and Y."""
    old = api_start(client, players=["Ana", "Boris"])
    other = joined(app, client)
    api_deal(other, old["id"], 1, "normal")  # X is on its screen
    new = api_start(client, players=["Ana", "Boris"])
    return other, old["id"], new["id"]


def after_a_deal(port: int, reader: FlaskClient, match_id: int, writer: FlaskClient) -> Any:
    """The event ``reader``'s stream of the match sends after the match itself, ``writer``
    then recording a deal there: an offer of another match, if one is due, comes first."""
    stream = Stream(port, f"/api/matches/{match_id}/events", cookie_of(reader))
    assert stream.match()["id"] == match_id
    api_deal(writer, match_id, 2, "normal")  # the next event, were there no offer
    event = stream.event()
    stream.close()
    return event


def test_a_phone_that_opens_a_match_another_phone_moved_on_from_is_offered_the_new_one(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Not only a phone whose page was open when the new match started: one that comes
    back to the old match later learns of it too, before it records a deal there."""
    other, old, new = moved_on(app, client)
    offer = after_a_deal(port, other, old, other)
    assert offer.get("event") == "next"
    assert "id" not in offer  # a reconnection resumes from the match, not from the notice
    assert json.loads(offer["data"])["id"] == new
    assert json.loads(offer["data"])["text"] == "Another phone started a new match: Ana – Boris."


def started_at_once(
    app: Flask, client: FlaskClient, players: tuple[str, str] = ("Ana", "Boris")
) -> tuple[FlaskClient, int, int]:
    """Two phones played match X, and each started a new one from it: ``client`` first,
    the other with ``players``. The other phone, ``client``'s new match and the other's."""
    other, _old, first = moved_on(app, client)
    second = api_start(other, players=list(players))
    return other, first, second["id"]


def started_earlier(app: Flask, match_id: int, by: timedelta) -> None:
    with app.app_context():
        started = db.session.get_one(Match, match_id).created_at
        earlier = update(Match).where(Match.id == match_id)
        db.session.execute(earlier.values(created_at=started - by))
        db.session.commit()


def test_a_phone_that_started_a_new_match_just_after_another_is_offered_the_first(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, first, second = started_at_once(app, client)
    offer = after_a_deal(port, other, second, other)
    assert (offer.get("event"), json.loads(offer["data"])["id"]) == ("next", first)
    assert json.loads(offer["data"])["text"] == (
        "The other phone started a new match at the same moment: Ana – Boris."
    )


def test_a_phone_that_joined_and_recorded_nothing_started_from_the_match_it_showed(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Its counter showed the key's match X, so its New match comes from X, not from the one
    ``client`` had just started: it is offered that one, and ``client`` nothing."""
    old = api_start(client, players=["Ana", "Boris"])
    api_deal(client, old["id"], 1, "normal")
    other = joined(app, client)
    first = api_start(client, players=["Ana", "Boris"])["id"]
    second = api_start(other, players=["Ana", "Boris"])["id"]
    offer = after_a_deal(port, other, second, client)
    assert (offer.get("event"), json.loads(offer["data"])["id"]) == ("next", first)
    assert "at the same moment" in json.loads(offer["data"])["text"]
    assert "event" not in after_a_deal(port, client, first, client)


def test_a_match_started_long_before_is_offered_in_plain_words(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """The other phone tapped New match offline, and its start came in an hour later."""
    other, first, second = started_at_once(app, client)
    started_earlier(app, first, by=timedelta(hours=1))
    offer = after_a_deal(port, other, second, client)
    assert (offer.get("event"), json.loads(offer["data"])["id"]) == ("next", first)
    assert json.loads(offer["data"])["text"] == "Another phone started a new match: Ana – Boris."


def test_no_offer_of_a_match_started_a_sitting_before(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, first, second = started_at_once(app, client)
    started_earlier(app, first, by=timedelta(hours=7))
    assert "event" not in after_a_deal(port, other, second, client)


def test_no_offer_of_a_match_between_other_players(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Another table on the same key: a family's two phones."""
    other, _first, second = started_at_once(app, client, players=("Gosho", "Pesho"))
    assert "event" not in after_a_deal(port, other, second, client)


def test_the_players_may_sit_the_other_way_round(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, first, second = started_at_once(app, client, players=("Boris", "Ana"))
    assert json.loads(after_a_deal(port, other, second, client)["data"])["id"] == first


def test_no_offer_of_a_match_won_since_it_was_started_beside(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, first, second = started_at_once(app, client)
    win_match(client, first)
    assert "event" not in after_a_deal(port, other, second, client)


def test_no_offer_of_a_match_won_since_another_phone_moved_on_to_it(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, old, new = moved_on(app, client)
    win_match(client, new)
    assert "event" not in after_a_deal(port, other, old, other)


def test_no_offer_once_the_match_started_second_has_deals(
    app: Flask, client: FlaskClient, port: int
) -> None:
    """Its players chose to play it (or stayed on it when asked where a deal goes)."""
    other, _first, second = started_at_once(app, client)
    api_deal(other, second, 1, "normal")
    assert "event" not in after_a_deal(port, other, second, client)


def test_the_phone_that_started_its_new_match_first_is_not_offered_the_second(
    app: Flask, client: FlaskClient, port: int
) -> None:
    _other, first, _second = started_at_once(app, client)
    assert "event" not in after_a_deal(port, client, first, client)


def test_the_phone_that_started_the_new_match_is_not_offered_it(
    app: Flask, client: FlaskClient, port: int
) -> None:
    _other, old, _new = moved_on(app, client)
    assert "event" not in after_a_deal(port, client, old, client)


def test_no_offer_once_the_other_phone_went_back_to_the_old_match(
    app: Flask, client: FlaskClient, port: int
) -> None:
    other, old, _new = moved_on(app, client)
    assert client.post(f"/api/matches/{old}/resume", json={}).status_code == 200
    assert "event" not in after_a_deal(port, other, old, client)


def joined(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another device that continued ``client``'s matches with a one-time link."""
    page = submit(client, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    other = app.test_client()
    assert submit(other, link.group(1)).status_code == 302
    return other


def remove_devices(client: FlaskClient) -> None:
    page = client.get("/privacy").get_data(as_text=True)
    for action in re.findall(r'action="(/devices/\d+/forget)"', page):
        assert submit(client, action, confirmed="1").status_code == 302

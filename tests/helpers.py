"""Small drivers for the tests: play deals through the API or the HTML forms."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from flask import Flask
from flask.testing import FlaskClient


def api_start(client: FlaskClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/matches", json=body)
    assert response.status_code == 201, response.json
    return response.json  # type: ignore[return-value]


def api_deal(client: FlaskClient, match_id: int, player: int, outcome: str, **extra: Any) -> Any:
    return client.post(
        f"/api/matches/{match_id}/deals", json={"player": player, "outcome": outcome, **extra}
    )


def api_play(client: FlaskClient, match_id: int, *deals: tuple[int, str]) -> dict[str, Any]:
    """Record several deals; returns the match after the last."""
    match: dict[str, Any] = {}
    for player, outcome in deals:
        response = api_deal(client, match_id, player, outcome)
        assert response.status_code == 201, response.json
        match = response.json
    return match


def win_match(client: FlaskClient, match_id: int, player: int = 1, target: int = 11) -> None:
    """Schwarz after schwarz until ``player`` reaches ``target``."""
    api_play(client, match_id, *[(player, "schwarz")] * -(-target // 3))


def page_field(html: str, name: str) -> str:
    """The value of the first hidden field ``name`` on a page."""
    match = re.search(rf'name="{name}" value="([^"]*)"', html)
    assert match, f"no field {name} on the page"
    return match.group(1)


def card_names(html: str) -> list[str]:
    """The players' names as their score cards show them (each word a span of its own)."""
    cards = re.findall(r'<h3 class="name"[^>]*>(.*?)</h3>', html, flags=re.S)
    return [re.sub(r"<[^>]+>", "", card) for card in cards]


def submit(client: FlaskClient, action: str, **fields: str) -> Any:
    """Post a form as the browser would: with the CSRF token of the page it came from."""
    page = client.get("/").get_data(as_text=True)
    return client.post(action, data={"csrf_token": page_field(page, "csrf_token"), **fields})


def make_link(client: FlaskClient) -> str:
    """A one-time device link made on ``client`` (the path of its address)."""
    page = submit(client, "/device-link").get_data(as_text=True)
    found = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert found, "no link on the page"
    assert "<svg" in page  # the QR code, drawn by the app
    return found.group(1)


def privacy_form(client: FlaskClient, **fields: str) -> Any:
    """Post a form of What we keep (erase, forget other devices) as the browser would: with
    that page's CSRF token and one-time nonce."""
    action = fields.pop("action")
    page = client.get("/privacy").get_data(as_text=True)
    data = {name: page_field(page, name) for name in ("csrf_token", "rotation")}
    return client.post(action, data={**data, **fields})


def page_form(client: FlaskClient) -> dict[str, str]:
    """The hidden fields the counter's forms carry (token, match, request id, new match's uid)."""
    page = client.get("/").get_data(as_text=True)
    return {
        name: page_field(page, name) for name in ("csrf_token", "match_id", "request_id", "uid")
    }


def tap(client: FlaskClient, player: int, outcome: str) -> Any:
    """Record a deal the way a person does: load the counter, press a button."""
    form = page_form(client)
    del form["uid"]
    return client.post("/deals", data={**form, "player": str(player), "outcome": outcome})


def press(client: FlaskClient, action: str, **fields: str) -> Any:
    """Submit one of the counter's other forms for the match on screen."""
    form = page_form(client)
    del form["request_id"]
    if action != "/new":
        del form["uid"]
    return client.post(action, data={**form, **fields})


def same_browser(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another client holding ``client``'s cookie: the same browser, its own connection."""
    cookie = client.get_cookie("session")
    assert cookie is not None, "the browser has no cookie yet"
    twin = app.test_client()
    twin.set_cookie("session", cookie.value)
    return twin


def at_once(requests: list[Callable[[], Any]]) -> list[int]:
    """Send ``requests`` from threads released together; the statuses, in finishing order."""
    barrier = threading.Barrier(len(requests))
    statuses: list[int] = []

    def send(request: Callable[[], Any]) -> None:
        barrier.wait()
        statuses.append(request().status_code)

    threads = [threading.Thread(target=send, args=(request,)) for request in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return statuses


def key_of(client: FlaskClient) -> str | None:
    """The key the device behind ``client`` holds (the cookie names only the device)."""
    from counter.storage.models import Device, db
    from counter.web.browser import SESSION_DEVICE

    with client.session_transaction() as session:
        token = session.get(SESSION_DEVICE)
    if token is None:
        return None
    with client.application.app_context():
        return db.session.scalar(db.select(Device.owner).where(Device.token == token))

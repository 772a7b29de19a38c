"""A copy of a browser's cookie (a backup, a borrowed phone) is revoked by "Forget other
devices" and by "Erase everything": this browser gets a new cookie token, and the old one
is another device, holding nothing. The same form sent twice never strands this browser."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from counter.storage.models import Device, EveningTable, db, utcnow
from counter.web import play

from helpers import (
    api_deal,
    api_start,
    at_once,
    make_link,
    page_field,
    page_form,
    same_browser,
    submit,
)


def fields_of_what_we_keep(client: FlaskClient) -> dict[str, str]:
    page = client.get("/privacy").get_data(as_text=True)
    return {name: page_field(page, name) for name in ("csrf_token", "rotation")}


def cookie_sent(response: Any) -> str | None:
    """The session cookie an answer sets, if it sets one."""
    for header in response.headers.getlist("Set-Cookie"):
        if header.startswith("session="):
            return str(header.split(";")[0].removeprefix("session="))
    return None


def test_a_copied_cookie_reads_nothing_once_other_devices_are_forgotten(
    app: Flask, client: FlaskClient
) -> None:
    match = api_start(client)
    copy = same_browser(app, client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    assert client.post("/devices/forget", data=form).status_code == 302
    assert client.get(f"/api/matches/{match['id']}").status_code == 200
    assert copy.get(f"/api/matches/{match['id']}").status_code == 404
    assert copy.get("/api/matches").json["matches"] == []
    assert api_deal(copy, match["id"], 1, "normal").status_code == 404
    page = client.get("/privacy").get_data(as_text=True)
    assert "No other device keeps these matches." in page


def test_a_copied_cookie_reads_nothing_played_after_an_erase(
    app: Flask, client: FlaskClient
) -> None:
    api_start(client)
    copy = same_browser(app, client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    assert client.post("/privacy/erase", data=form).status_code == 302
    after = api_start(client)
    assert copy.get(f"/api/matches/{after['id']}").status_code == 404
    assert copy.get("/api/matches").json["matches"] == []


def test_the_same_form_sent_twice_at_once_with_the_old_cookie_keeps_this_browser(
    app: Flask, client: FlaskClient
) -> None:
    """A double tap: both requests leave with the cookie of before; whichever answer comes
    last, the cookie it sets opens the matches."""
    match = api_start(client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    taps = [same_browser(app, client), same_browser(app, client)]
    answers: list[Any] = []

    def send(tap: FlaskClient) -> Any:
        answers.append(tap.post("/devices/forget", data=form))
        return answers[-1]

    assert at_once([lambda tap=tap: send(tap) for tap in taps]) == [302, 302]
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    tokens = {serializer.loads(cookie_sent(answer))["device"] for answer in answers}
    assert len(tokens) == 1
    for tap in taps:
        assert tap.get(f"/api/matches/{match['id']}").status_code == 200


def test_the_same_form_sent_again_after_the_grace_is_refused_and_changes_nothing(
    app: Flask, client: FlaskClient
) -> None:
    match = api_start(client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    copy = same_browser(app, client)  # the phone whose first answer was lost, say
    assert client.post("/devices/forget", data=form).status_code == 302
    with app.app_context():
        old = update(Device).where(Device.replaced_at.is_not(None))
        db.session.execute(old.values(replaced_at=utcnow() - timedelta(minutes=2)))
        db.session.commit()
    refused = copy.post("/devices/forget", data=form)
    assert refused.status_code == 409
    assert "This form was sent already" in refused.get_data(as_text=True)
    assert cookie_sent(refused) is None
    assert copy.get(f"/api/matches/{match['id']}").status_code == 404
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_copy_with_a_form_of_its_own_gets_nothing_back(app: Flask, client: FlaskClient) -> None:
    match = api_start(client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    copy = same_browser(app, client)  # a copy of a cookie that has opened a page
    assert client.post("/devices/forget", data=form).status_code == 302
    own = {**fields_of_what_we_keep(copy), "confirmed": "1"}
    assert copy.post("/devices/forget", data=own).status_code == 302
    assert copy.get(f"/api/matches/{match['id']}").status_code == 404
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_an_answer_to_the_old_cookie_never_sends_it_back(app: Flask, client: FlaskClient) -> None:
    """A request that left before the change and is answered after it (a live page
    reconnecting, a page loading) must not put the old cookie back in the browser."""
    api_start(client)
    late = same_browser(app, client)
    form = {**fields_of_what_we_keep(client), "confirmed": "1"}
    assert cookie_sent(client.post("/devices/forget", data=form)) is not None
    for answer in (late.get("/"), late.get("/privacy"), late.post("/api/matches", json={})):
        assert answer.status_code < 500
        assert cookie_sent(answer) is None


def test_a_guest_that_forgets_other_devices_revokes_copies_of_its_own_cookie(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client)
    submit(other_client, make_link(client))
    copy = same_browser(app, other_client)
    form = {**fields_of_what_we_keep(other_client), "confirmed": "1"}
    assert other_client.post("/devices/forget", data=form).status_code == 302
    assert copy.get(f"/api/matches/{match['id']}").status_code == 404
    assert other_client.get(f"/api/matches/{match['id']}").status_code == 200
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_copied_cookie_keeps_none_of_its_table_links(app: Flask, client: FlaskClient) -> None:
    """The host opened a table of its club evening; a copy of its cookie, once forgotten,
    neither reads nor records at that table."""
    page = client.get("/evenings").get_data(as_text=True)
    players = {"name": "Петък", "players": "Ана\nБорис", "format": "round_robin"}
    form = {"csrf_token": page_field(page, "csrf_token"), **players, "target": "11"}
    evening = client.post("/evenings", data={**form, "preset": "santase"})
    assert evening.status_code == 302
    rounds = f"{evening.headers['Location']}/rounds"
    started = client.post(rounds, data={"csrf_token": form["csrf_token"], "round": "1"})
    assert started.status_code == 302
    with app.app_context():
        table = db.session.scalars(select(EveningTable)).one()
    assert client.get(f"/table/{table.token}").status_code == 200
    copy = same_browser(app, client)
    assert api_deal(copy, table.match_id, 1, "normal").status_code == 201  # type: ignore[arg-type]
    fields = {**fields_of_what_we_keep(client), "confirmed": "1"}
    assert client.post("/devices/forget", data=fields).status_code == 302
    assert copy.get(f"/api/matches/{table.match_id}").status_code == 404
    assert api_deal(copy, table.match_id, 1, "normal").status_code == 404  # type: ignore[arg-type]
    assert client.get(f"/api/matches/{table.match_id}").status_code == 200


def test_an_answer_read_before_the_token_changed_never_sends_the_old_one_back(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A deal form of this browser is held after it read its device; meanwhile other devices
    are forgotten, and the token changes. The deal's answer must not bring the old back."""
    api_start(client)
    twin = same_browser(app, client)
    form = {key: value for key, value in page_form(twin).items() if key != "uid"}
    inside, go_on = threading.Event(), threading.Event()
    real_flash = play.flash

    def held_flash(*args: Any, **kwargs: Any) -> None:
        inside.set()
        go_on.wait(10)
        real_flash(*args, **kwargs)

    monkeypatch.setattr(play, "flash", held_flash)
    answers: list[Any] = []
    deal = {**form, "player": "1", "outcome": "normal"}
    held = threading.Thread(target=lambda: answers.append(twin.post("/deals", data=deal)))
    held.start()
    assert inside.wait(10)
    monkeypatch.setattr(play, "flash", real_flash)
    fields = {**fields_of_what_we_keep(client), "confirmed": "1"}
    assert client.post("/devices/forget", data=fields).status_code == 302
    go_on.set()
    held.join(10)
    assert answers[0].status_code == 302
    assert cookie_sent(answers[0]) is None

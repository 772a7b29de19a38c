"""Continuing on another device (once, within 15 minutes) and read-only share links."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import delete, func, select, update

from counter.game.refusals import Gone
from counter.services import devices, keys
from counter.storage.models import Device as DeviceRow
from counter.storage.models import DeviceLink, Match, db, utcnow

from helpers import api_deal, api_play, api_start, at_once, make_link, same_browser, submit

UA_ANDROID = "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/120.0 Mobile Safari/537.36"


def test_a_device_link_moves_the_matches_to_another_device(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (1, "normal"))
    link = make_link(client)
    assert "Continue here" in other_client.get(link).get_data(as_text=True)
    assert submit(other_client, link).status_code == 302
    assert other_client.get("/api/matches/current").json == match


def test_opening_the_link_changes_nothing_until_confirmed(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    link = make_link(client)
    other_client.get(link)
    other_client.get(link)
    assert other_client.get("/api/matches/current").status_code == 404
    assert submit(other_client, link).status_code == 302  # still unused


def test_a_device_link_works_once(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    link = make_link(client)
    submit(other_client, link)
    third = app.test_client()
    response = submit(third, link)
    assert response.status_code == 410
    assert "used already" in response.get_data(as_text=True)
    assert third.get("/api/matches/current").status_code == 404


def test_a_device_link_expires_after_15_minutes(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    link = make_link(client)
    with app.app_context():
        db.session.execute(update(DeviceLink).values(created_at=utcnow() - timedelta(minutes=16)))
        db.session.commit()
    assert "has expired" in other_client.get(link).get_data(as_text=True)
    assert submit(other_client, link).status_code == 410
    assert other_client.get("/api/matches/current").status_code == 404


def test_an_unknown_link_is_refused(client: FlaskClient) -> None:
    response = client.get("/continue/not-a-real-token")
    assert response.status_code == 410
    assert "does not exist" in response.get_data(as_text=True)


def shared_path(client: FlaskClient, match_id: int) -> str:
    submit(client, f"/matches/{match_id}/share")
    page = client.get(f"/matches/{match_id}").get_data(as_text=True)
    found = re.search(r'href="http://localhost(/shared/[^"]+)"', page)
    assert found, "no share link on the match page"
    return found.group(1)


def test_a_share_link_shows_the_live_score_to_another_phone(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    path = shared_path(client, match["id"])
    api_deal(client, match["id"], 2, "schwarz")
    page = other_client.get(path).get_data(as_text=True)
    assert '<meta http-equiv="refresh" content="10">' in page
    assert "<span data-score>3</span>" in page
    token = path.rsplit("/", 1)[1]
    assert other_client.get(f"/api/shared/{token}").json["players"][1]["score"] == 3


def test_a_share_link_cannot_change_anything(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    token = shared_path(client, match["id"]).rsplit("/", 1)[1]
    page = other_client.get(f"/shared/{token}").get_data(as_text=True)
    assert "<form" not in page.split("<main>")[1].split("</main>")[0]
    for method in ("post", "patch", "delete", "put"):
        assert getattr(other_client, method)(f"/api/shared/{token}", json={}).status_code == 405
    assert (
        other_client.post(
            f"/api/matches/{match['id']}/deals", json={"player": 1, "outcome": "normal"}
        ).status_code
        == 404
    )
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_a_revoked_share_link_shows_nothing(client: FlaskClient, other_client: FlaskClient) -> None:
    match = api_start(client)
    path = shared_path(client, match["id"])
    submit(client, f"/matches/{match['id']}/share/stop")
    assert other_client.get(path).status_code == 404
    assert "Make a read-only link" in client.get(f"/matches/{match['id']}").get_data(as_text=True)


def test_only_the_owner_can_share(client: FlaskClient, other_client: FlaskClient) -> None:
    match = api_start(client)
    api_start(other_client)
    assert submit(other_client, f"/matches/{match['id']}/share").status_code == 404


def test_the_confirmation_shows_what_the_link_brings(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (1, "schwarz"))
    api_start(other_client, players=["Petar", "Gergana"])
    api_start(other_client)
    page = other_client.get(make_link(client)).get_data(as_text=True)
    assert "The link brings 1 match from the other device." in page
    assert "Ivan – Maria 3:0" in page
    assert "either can record, change or delete them" in page
    assert "Also bring this device's 2 matches" in page
    assert 'name="bring_own" value="1">' in page  # unticked


def listed(client: FlaskClient) -> set[int]:
    return {match["id"] for match in client.get("/api/matches").json["matches"]}


def test_this_devices_matches_stay_its_own_unless_it_brings_them(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    theirs = api_start(client, players=["Ivan", "Maria"])
    api_start(other_client, players=["Petar", "Gergana"])
    submit(other_client, make_link(client))
    assert listed(client) == listed(other_client) == {theirs["id"]}


def test_this_devices_matches_join_the_key_when_it_brings_them(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    theirs = api_start(client, players=["Ivan", "Maria"])
    mine = api_start(other_client, players=["Petar", "Gergana"])
    submit(other_client, make_link(client), bring_own="1")
    assert listed(client) == listed(other_client) == {theirs["id"], mine["id"]}


def test_a_link_made_by_someone_else_cannot_take_this_devices_matches(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    """The victim continues on the stranger's link; the stranger then forgets every other
    device, and keeps nothing of the victim's, who gets its own matches back."""
    stranger, victim = client, other_client
    own = api_start(victim, players=["Petar", "Gergana"])
    submit(victim, make_link(stranger))
    form = {**forget_form(stranger), "confirmed": "1"}
    assert stranger.post("/devices/forget", data=form).status_code == 302
    assert own["id"] not in listed(stranger)
    assert listed(victim) == {own["id"]}


def test_what_we_keep_lists_each_device_with_when_it_was_last_seen(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    submit(other_client, make_link(client), bring_own="1")
    page = client.get("/privacy", headers={"User-Agent": UA_ANDROID}).get_data(as_text=True)
    assert page.count("last seen <time datetime=") == 2
    assert "(this one)" in page
    assert page.count(">Remove</button>") == 1


def test_removing_one_device_leaves_the_others(app: Flask, client: FlaskClient) -> None:
    match = api_start(client)
    second, third = app.test_client(), app.test_client()
    for phone in (second, third):
        submit(phone, make_link(client))
    page = client.get("/privacy").get_data(as_text=True)
    removes = re.findall(r'action="(/devices/\d+/forget)"', page)
    assert len(removes) == 2
    assert "It no longer sees or changes these matches" in submit(client, removes[0]).get_data(
        as_text=True
    )
    assert submit(client, removes[0], confirmed="1").status_code == 302
    still = [phone.get(f"/api/matches/{match['id']}").status_code for phone in (second, third)]
    assert sorted(still) == [200, 404]
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_removed_device_gets_its_own_matches_back(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    own = api_start(other_client, players=["Petar", "Gergana"])
    submit(other_client, make_link(client))
    remove = re.findall(
        r'action="(/devices/\d+/forget)"', client.get("/privacy").get_data(as_text=True)
    )
    submit(client, remove[0], confirmed="1")
    assert listed(other_client) == {own["id"]}


def test_only_a_device_of_the_same_key_can_be_removed(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    submit(other_client, make_link(client))
    remove = re.findall(
        r'action="(/devices/\d+/forget)"', client.get("/privacy").get_data(as_text=True)
    )
    stranger = other_client.application.test_client()
    api_start(stranger)
    assert submit(stranger, remove[0], confirmed="1").status_code == 404
    assert listed(other_client) == listed(client)


def forget_form(client: FlaskClient) -> dict[str, str]:
    page = client.get("/privacy").get_data(as_text=True)
    return {
        "csrf_token": page.split('name="csrf_token" value="')[1].split('"')[0],
        "rotation": page.split('name="rotation" value="')[1].split('"')[0],
    }


def test_forgetting_other_devices_gives_this_browser_a_new_key(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client)
    submit(client, f"/matches/{match['id']}/share")
    submit(other_client, make_link(client))
    assert other_client.get(f"/api/matches/{match['id']}").status_code == 200
    form = forget_form(client)
    asked = client.post("/devices/forget", data=form).get_data(as_text=True)
    assert "loses them at once" in asked
    assert client.post("/devices/forget", data={**form, "confirmed": "1"}).status_code == 302
    assert client.get(f"/api/matches/{match['id']}").status_code == 200
    assert other_client.get(f"/api/matches/{match['id']}").status_code == 404
    assert "Make a read-only link" in client.get(f"/matches/{match['id']}").get_data(as_text=True)


def test_a_double_tap_on_forget_loses_nothing(app: Flask, client: FlaskClient) -> None:
    match = api_start(client)
    form = {**forget_form(client), "confirmed": "1"}
    first, second = same_browser(app, client), same_browser(app, client)
    for browser in (first, second):  # both taps leave with the old cookie
        assert browser.post("/devices/forget", data=form).status_code == 302
    for browser in (first, second):
        assert browser.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_one_time_link_is_used_once_however_many_try_at_once(
    app: Flask, client: FlaskClient
) -> None:
    api_start(client)
    link = make_link(client)
    phones = [app.test_client() for _ in range(8)]
    tokens = {}
    for phone in phones:
        page = phone.get(link).get_data(as_text=True)
        tokens[phone] = page.split('name="csrf_token" value="')[1].split('"')[0]
    statuses = at_once(
        [lambda p=phone: p.post(link, data={"csrf_token": tokens[p]}) for phone in phones]
    )
    assert sorted(statuses) == [302] + [410] * 7
    with app.app_context():
        assert (
            db.session.scalar(
                select(func.count()).select_from(DeviceLink).where(DeviceLink.used_at.is_not(None))
            )
            == 1
        )


def test_an_answer_sent_before_the_key_changed_does_not_bring_the_old_key_back(
    app: Flask, client: FlaskClient
) -> None:
    """A request that left with the cookie of before "Forget other devices", answered
    after it, sets whatever cookie it sets: this browser keeps its matches."""
    match = api_start(client)
    late = same_browser(app, client)  # the same cookie, on a request still on its way
    form = {**forget_form(client), "confirmed": "1"}
    assert client.post("/devices/forget", data=form).status_code == 302
    answer = late.get("/")  # answered after the rotation
    assert answer.status_code == 200
    if (cookie := answer.headers.get("Set-Cookie")) is not None:
        client.set_cookie("session", cookie.split(";")[0].removeprefix("session="))
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_cookie_of_before_devices_becomes_a_device_of_that_key(
    app: Flask, client: FlaskClient
) -> None:
    match = api_start(client)
    with app.app_context():
        key = db.session.scalar(select(Match.owner).where(Match.id == match["id"]))
    old = app.test_client()
    with old.session_transaction() as session:
        session["browser"] = key
    assert old.get(f"/api/matches/{match['id']}").status_code == 200
    with old.session_transaction() as session:
        assert "browser" not in session
        assert "device" in session


def test_a_removed_device_cannot_take_the_key_back_with_a_link_it_made(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client)
    submit(other_client, make_link(client))
    its_own_link = make_link(other_client)
    remove = re.findall(
        r'action="(/devices/\d+/forget)"', client.get("/privacy").get_data(as_text=True)
    )
    submit(client, remove[0], confirmed="1")
    assert submit(other_client, its_own_link).status_code == 410
    assert other_client.get(f"/api/matches/{match['id']}").status_code == 404


@pytest.mark.parametrize("number", ["0", "2147483648", "99999999999999999999"])
def test_a_device_number_out_of_range_is_not_found(client: FlaskClient, number: str) -> None:
    api_start(client)
    assert submit(client, f"/devices/{number}/forget", confirmed="1").status_code == 404


def test_a_device_forgotten_while_it_opens_a_link_is_told_and_the_link_kept(app: Flask) -> None:
    with app.test_request_context():
        giver = devices.register(owner=None, label="phone")
        taker = devices.register(owner=None, label="tablet")
        token = keys.create_device_link(device=giver)
        db.session.execute(delete(DeviceRow).where(DeviceRow.id == taker.id))
        db.session.commit()
        with pytest.raises(Gone):
            keys.use_device_link(token=token, device=taker)
        assert db.session.scalars(select(DeviceLink.used_at)).one() is None

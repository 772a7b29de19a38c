"""A device that came by a link never removes the device that made it, nor takes its matches
away: every way there is, tried through the pages and the API."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from bulk import bulk_export
from helpers import api_deal, api_start, key_of, make_link, privacy_form, submit


def listed(client: FlaskClient) -> set[int]:
    return {match["id"] for match in client.get("/api/matches").json["matches"]}


def removes(client: FlaskClient) -> list[str]:
    """The Remove buttons What we keep shows this device."""
    page = client.get("/privacy").get_data(as_text=True)
    return re.findall(r'action="(/devices/\d+/forget)"', page)


def device_number(client: FlaskClient) -> int:
    """The number of the device behind ``client`` (as the Remove buttons name it)."""
    from counter.storage.models import Device, db
    from counter.web.browser import SESSION_DEVICE

    with client.session_transaction() as session:
        token = session[SESSION_DEVICE]
    with client.application.app_context():
        found = db.session.scalar(db.select(Device.id).where(Device.token == token))
    assert found is not None
    return found


@pytest.fixture
def shared(app: Flask, client: FlaskClient) -> tuple[FlaskClient, FlaskClient, set[int]]:
    """The maker, with two matches and a deal, and a guest that took its link; the guest
    had a match of its own before, which it left behind."""
    first = api_start(client, players=["Ivan", "Maria"])
    api_deal(client, first["id"], 1, "schwarz")
    second = api_start(client, players=["Ana", "Boris"])
    guest = app.test_client()
    api_start(guest, players=["Petar", "Gergana"])
    assert submit(guest, make_link(client)).status_code == 302
    assert listed(guest) == {first["id"], second["id"]}
    return client, guest, {first["id"], second["id"]}


def remove(asking: FlaskClient, other: FlaskClient) -> Any:
    """``asking`` taps Remove (confirmed) for the device behind ``other``."""
    return submit(asking, f"/devices/{device_number(other)}/forget", confirmed="1")


def forget_others(guest: FlaskClient, maker: FlaskClient) -> Any:
    return privacy_form(guest, action="/devices/forget", confirmed="1")


def erase(guest: FlaskClient, maker: FlaskClient) -> Any:
    return privacy_form(guest, action="/privacy/erase", confirmed="1")


def bring_them_elsewhere(guest: FlaskClient, maker: FlaskClient) -> Any:
    """A third browser's link, taken with "bring this device's matches along"."""
    accomplice = maker.application.test_client()
    api_start(accomplice)
    return submit(guest, make_link(accomplice), bring_own="1")


def import_a_file(guest: FlaskClient, maker: FlaskClient) -> Any:
    return guest.post("/api/import", data=bulk_export(3), content_type="application/json")


@pytest.mark.parametrize(
    "attack",
    [remove, forget_others, erase, bring_them_elsewhere, import_a_file],
)
def test_nothing_a_guest_does_takes_the_makers_matches(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
    attack: Callable[[FlaskClient, FlaskClient], Any],
) -> None:
    maker, guest, matches = shared
    key = key_of(maker)
    assert attack(guest, maker).status_code < 500
    assert listed(maker) >= matches
    assert key_of(maker) == key
    assert maker.get(f"/api/matches/{min(matches)}").json["players"][0]["score"] == 3


def test_a_guest_is_told_it_may_not_remove_the_device_that_brought_it(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
) -> None:
    maker, guest, _ = shared
    refused = remove(guest, maker)
    assert refused.status_code == 403
    assert "may remove only the devices it brought itself" in refused.get_data(as_text=True)
    assert removes(guest) == []
    assert len(removes(maker)) == 1


def test_a_guest_that_forgets_other_devices_keeps_the_matches_beside_its_maker(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
) -> None:
    maker, guest, matches = shared
    assert forget_others(guest, maker).status_code == 302
    assert listed(guest) == listed(maker) == matches
    assert len(removes(maker)) == 1  # the guest, still there


def test_a_guest_that_erases_leaves_the_matches_and_erases_only_its_own(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
) -> None:
    maker, guest, matches = shared
    asked = privacy_form(guest, action="/privacy/erase").get_data(as_text=True)
    assert "Its own 1 match from before it joined" in asked
    assert erase(guest, maker).status_code == 302
    assert listed(guest) == set()
    assert listed(maker) == matches
    assert removes(maker) == []  # the guest left


def test_a_guest_brings_elsewhere_only_what_it_had_before(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
) -> None:
    maker, guest, matches = shared
    assert bring_them_elsewhere(guest, maker).status_code == 302
    assert listed(maker) == matches
    assert not listed(guest) & matches
    assert len(listed(guest)) == 2  # the accomplice's match and the guest's own


def test_a_guest_removes_the_devices_it_brought_and_they_never_remove_it(
    app: Flask, shared: tuple[FlaskClient, FlaskClient, set[int]]
) -> None:
    maker, guest, matches = shared
    third = app.test_client()
    submit(third, make_link(guest))
    assert removes(third) == []
    assert remove(third, guest).status_code == 403
    assert remove(third, maker).status_code == 403
    assert removes(guest) == [f"/devices/{device_number(third)}/forget"]
    assert len(removes(maker)) == 2
    assert remove(guest, third).status_code == 302
    assert listed(third) == set()
    assert listed(maker) == listed(guest) == matches


def test_two_guests_of_one_maker_cannot_remove_each_other(
    app: Flask, shared: tuple[FlaskClient, FlaskClient, set[int]]
) -> None:
    maker, guest, matches = shared
    sibling = app.test_client()
    submit(sibling, make_link(maker))
    assert remove(sibling, guest).status_code == 403
    assert remove(guest, sibling).status_code == 403
    assert listed(guest) == listed(sibling) == matches


def test_a_device_brought_by_a_removed_guest_is_still_below_the_maker(
    app: Flask, shared: tuple[FlaskClient, FlaskClient, set[int]]
) -> None:
    maker, guest, matches = shared
    third = app.test_client()
    submit(third, make_link(guest))
    assert remove(maker, guest).status_code == 302
    assert remove(third, maker).status_code == 403
    assert forget_others(third, maker).status_code == 302
    assert listed(maker) == listed(third) == matches


def test_the_maker_forgets_every_device_below_it(
    app: Flask, shared: tuple[FlaskClient, FlaskClient, set[int]]
) -> None:
    maker, guest, matches = shared
    third = app.test_client()
    submit(third, make_link(guest))
    assert forget_others(maker, guest).status_code == 302
    assert listed(maker) == matches
    assert not (listed(guest) | listed(third)) & matches


def test_what_we_keep_tells_a_guest_what_it_may_do(
    shared: tuple[FlaskClient, FlaskClient, set[int]],
) -> None:
    _, guest, _ = shared
    page = guest.get("/privacy").get_data(as_text=True)
    assert "(shared the matches with this one)" in page
    assert "This device's own matches from before it joined: 1." in page
    assert "To remove every device this one brought" in page
    bulgarian = guest.get("/privacy", headers={"Accept-Language": "bg"}).get_data(as_text=True)
    assert "(сподели игрите с това устройство)" in bulgarian


def test_a_guest_going_back_to_its_own_matches_by_a_link_keeps_them(
    app: Flask, client: FlaskClient
) -> None:
    """Its own key is held meanwhile by a device it brought there before it left; a link
    from that device, "bringing its own matches along", brings them to where they are."""
    own = api_start(client, players=["Petar", "Gergana"])
    stayed = app.test_client()
    submit(stayed, make_link(client))
    maker = app.test_client()
    api_start(maker)
    submit(client, make_link(maker))
    assert submit(client, make_link(stayed), bring_own="1").status_code == 302
    assert listed(client) == listed(stayed) == {own["id"]}


def test_a_link_made_by_a_device_that_left_its_matches_is_spent(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client)
    link = make_link(client)
    elsewhere = app.test_client()
    api_start(elsewhere)
    submit(client, make_link(elsewhere))
    assert submit(other_client, link).status_code == 410

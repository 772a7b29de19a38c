"""An import is whole or absent: caps counted inside its one transaction, every field checked."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select, update

from counter.game import match as game
from counter.game.refusals import Conflict
from counter.services import archive, devices, forgetting, matches
from counter.services.matches import TooManyMatches
from counter.storage import repository
from counter.storage.models import Device, Match, db
from counter.web import import_size

from apps import make_app
from bulk import bulk_export, bulk_match
from helpers import submit


def export_of(*matches: dict[str, object], **fields: object) -> dict[str, object]:
    return {"format": "santase-counter", "version": 2, "matches": list(matches), **fields}


def stored_matches(app: Flask) -> int:
    with app.app_context():
        return db.session.query(Match).count()


def test_an_import_that_fails_half_way_stores_none_of_its_matches(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    inserted = repository.add_many
    calls: list[int] = []

    def fail_on_the_second_batch(owner: str, matches: list[game.Match]) -> None:
        calls.append(1)
        if len(calls) == 2:
            raise ConnectionResetError("the connection was lost half-way")
        inserted(owner, matches)

    monkeypatch.setattr(repository, "add_many", fail_on_the_second_batch)
    body = bulk_export(archive.BATCH_MATCHES + 1)
    with pytest.raises(ConnectionResetError):
        client.post("/api/import", data=body, content_type="application/json")
    assert stored_matches(app) == 0


def a_phone_of_one_browser(app: Flask) -> None:
    """The device that holds the key "one-browser", as a browser that imports has one."""
    with app.app_context():
        devices.register(owner="one-browser", label="a phone")


def test_imports_at_once_into_one_browser_never_pass_the_cap(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_MATCHES", 20)
    a_phone_of_one_browser(app)
    files = [
        archive.read_document(bulk_export(10, first=100 * n)) for n in range(3)
    ]  # three files of 10 matches each, 30 in all
    answers: list[str] = []

    def import_one(matches: list[game.Match]) -> None:
        with app.app_context():
            try:
                archive.import_matches(owner="one-browser", matches=matches)
                answers.append("stored")
            except TooManyMatches:
                answers.append("refused")

    threads = [threading.Thread(target=import_one, args=(each,)) for each in files]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == ["refused", "stored", "stored"]
    assert stored_matches(app) == 20


@pytest.mark.parametrize(
    "exported_at", [{"k" * 5: 0}, ["2026-11-30T18:00:00Z"], 17, "x" * 1000, "yesterday"]
)
def test_an_export_time_that_is_not_a_time_is_refused(
    app: Flask, client: FlaskClient, exported_at: object
) -> None:
    response = client.post("/api/import", json=export_of(bulk_match(1), exported_at=exported_at))
    assert response.status_code == 422
    assert "When the file was exported" in response.json["error"]
    assert stored_matches(app) == 0


def test_an_unknown_field_of_the_file_is_refused(app: Flask, client: FlaskClient) -> None:
    response = client.post("/api/import", json=export_of(bulk_match(1), notes={"k": 1}))
    assert response.status_code == 422
    assert stored_matches(app) == 0


def test_the_largest_import_is_stored_whole(app: Flask, client: FlaskClient) -> None:
    response = client.post("/api/import", data=bulk_export(), content_type="application/json")
    assert response.status_code == 201
    assert len(response.json["new"]) == archive.MAX_MATCHES
    assert stored_matches(app) == archive.MAX_MATCHES


def test_starts_and_imports_at_once_never_pass_the_cap(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_MATCHES", 12)
    monkeypatch.setattr(matches, "MAX_MATCHES_PER_BROWSER", 12)
    a_phone_of_one_browser(app)
    file = archive.read_document(bulk_export(8))
    answers: list[str] = []

    def run(work: Callable[[], object]) -> None:
        with app.app_context():
            try:
                work()
                answers.append("stored")
            except TooManyMatches:
                answers.append("refused")

    def start() -> object:
        return matches.start_match(owner="one-browser", uid=uuid.uuid4().hex)

    threads = [
        threading.Thread(
            target=run, args=(lambda: archive.import_matches(owner="one-browser", matches=file),)
        )
    ] + [threading.Thread(target=run, args=(start,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 9
    assert stored_matches(app) <= 12


def test_an_import_that_waits_too_long_for_its_turn_answers_503_and_changes_nothing(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(import_size, "IMPORT_WAIT_SECONDS", 0.1)
    with import_size._one_import:  # another import of this process is under way
        response = client.post("/api/import", data=bulk_export(3), content_type="application/json")
    assert response.status_code == 503
    assert "nothing was changed" in response.json["error"]
    assert stored_matches(app) == 0
    again = client.post("/api/import", data=bulk_export(3), content_type="application/json")
    assert again.status_code == 201


@pytest.mark.parametrize("place", ["exported_at", "a match", "a deal", "the house rules"])
def test_a_file_with_far_more_keys_than_an_export_is_refused_unread(
    app: Flask, client: FlaskClient, place: str
) -> None:
    many = {f"key {n}": n for n in range(archive.MOST_KEYS + 1)}
    match = bulk_match(1)
    document = export_of(match)
    if place == "exported_at":
        document["exported_at"] = many
    elif place == "a match":
        match.update(many)
    elif place == "a deal":
        match["deals"][0].update(many)  # type: ignore[index]
    else:
        match["rules"] = {**match["rules"], **many}  # type: ignore[dict-item]
    response = client.post("/api/import", json=document)
    assert response.status_code == 413
    assert "far more than an export" in response.json["error"]
    assert stored_matches(app) == 0


def test_an_import_that_cannot_get_the_write_lock_answers_503_and_stores_nothing(
    app: Flask,
) -> None:
    url = app.config["SQLALCHEMY_DATABASE_URI"]
    impatient = make_app(url, WRITE_LOCK_TIMEOUT_MS=100)
    holder = hold_the_tables(url)
    try:
        response = impatient.test_client().post(
            "/api/import", data=bulk_export(3), content_type="application/json"
        )
    finally:
        holder.rollback()
        holder.close()
    assert response.status_code == 503
    assert "nothing was changed" in response.json["error"]
    assert stored_matches(app) == 0
    with impatient.app_context():
        db.engine.dispose()


def hold_the_tables(database_url: str) -> Any:
    """Another connection that holds the lock every write needs, and keeps it."""
    if database_url.startswith("sqlite"):
        holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        return holder
    import psycopg

    holder = psycopg.connect(database_url.replace("+psycopg", ""))
    holder.execute("LOCK TABLE match IN EXCLUSIVE MODE")
    return holder


def test_a_hand_over_that_brings_this_devices_matches_keeps_to_the_cap(
    app: Flask, client: FlaskClient, other_client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(matches, "MAX_MATCHES_PER_BROWSER", 3)
    for browser in (client, other_client):
        for _ in range(2):
            assert browser.post("/api/matches", json={}).status_code == 201
    page = submit(client, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    answer = submit(other_client, link.group(1), bring_own="1")
    assert answer.status_code == 409
    assert "Together the two devices keep more than 3 matches" in answer.get_data(as_text=True)
    assert len(other_client.get("/api/matches").json["matches"]) == 2  # its own, still its own
    assert len(client.get("/api/matches").json["matches"]) == 2


def test_hand_overs_and_imports_at_once_never_pass_the_cap(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_MATCHES", 12)
    monkeypatch.setattr(matches, "MAX_MATCHES_PER_BROWSER", 12)
    giver, joiner = app.test_client(), app.test_client()
    for browser in (giver, joiner):
        assert browser.post("/api/matches", json={}).status_code == 201
    for _ in range(3):
        joiner.post("/api/matches", json={})
    page = submit(giver, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    with app.app_context():
        giver_key = db.session.scalar(db.select(Match.owner).limit(1).order_by(Match.id))
    file = archive.read_document(bulk_export(8))
    form = page_field_of(joiner, link.group(1))

    def hand_over() -> None:
        joiner.post(link.group(1), data={**form, "bring_own": "1"})

    def import_into_giver() -> None:
        with app.app_context(), contextlib.suppress(TooManyMatches):  # refused at the cap
            archive.import_matches(owner=str(giver_key), matches=file)

    threads = [threading.Thread(target=hand_over), threading.Thread(target=import_into_giver)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with app.app_context():
        held = db.session.query(Match).filter(Match.owner == giver_key).count()
    assert held <= 12


def page_field_of(client: FlaskClient, path: str) -> dict[str, str]:
    page = client.get(path).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token
    return {"csrf_token": token.group(1)}


@pytest.mark.parametrize("meanwhile", ["erase", "forget other devices"])
def test_an_import_whose_key_went_while_its_file_was_read_stores_nothing(
    app: Flask, meanwhile: str
) -> None:
    """The import read its key when it began; erased or rotated since, no device holds that
    key any more, and what it would store there no one could see or erase."""
    with app.app_context():
        device = devices.register(owner=None, label="a phone")
        checked = archive.read_document(bulk_export(3))
        step = forgetting.erase_everything if meanwhile == "erase" else forgetting.forget_others
        step(token=device.token, nonce="n" * 22, secret=app.config["SECRET_KEY"])
        with pytest.raises(Conflict, match="nothing was imported"):
            archive.import_matches(owner=device.owner, matches=checked)
        assert db.session.scalar(select(func.count(Match.id))) == 0


@pytest.mark.parametrize("meanwhile", ["erased", "was removed"])
def test_an_import_of_a_guest_that_left_meanwhile_stores_nothing_under_the_makers_key(
    app: Flask, meanwhile: str
) -> None:
    """A device that came by a link began an import, then erased (leaving the key) or was
    removed by the device that brought it: its file never lands among that device's
    matches."""
    with app.app_context():
        maker = devices.register(owner=None, label="the maker")
        guest = devices.register(owner=maker.owner, label="the guest")
        brought = update(Device).where(Device.id == guest.id).values(brought_by=maker.id)
        db.session.execute(brought)
        db.session.commit()
        checked = archive.read_document(bulk_export(3))
        if meanwhile == "erased":
            forgetting.erase_everything(
                token=guest.token, nonce="n" * 22, secret=app.config["SECRET_KEY"]
            )
        else:
            devices.forget_device(owner=maker.owner, asking=maker.id, device_id=guest.id)
        with pytest.raises(Conflict, match="nothing was imported"):
            archive.import_matches(owner=guest.owner, matches=checked, device_id=guest.id)
        assert db.session.scalar(select(func.count(Match.id))) == 0
        assert devices.holds(owner=maker.owner, device_id=maker.id)

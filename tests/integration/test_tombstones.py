"""Once used, always used: a request id or a match uid stays spent after an undo or a
delete, so a late duplicate records nothing; a uid sent again with other settings is refused."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

from counter.game.scoring import Outcome
from counter.services import deals, matches
from counter.storage import repository, transactions
from counter.storage.models import db

from helpers import api_deal, api_start
from waiting import until

UID = "c" * 32
NORMAL = Outcome("normal")
WAITING_FOR_A_LOCK = """SELECT count(*) FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock'"""


def deal_count(client: FlaskClient, match_id: int) -> int:
    return len(client.get(f"/api/matches/{match_id}").json["deals"])


def test_a_late_duplicate_of_an_undone_deal_records_nothing(client: FlaskClient) -> None:
    match = api_start(client)
    assert api_deal(client, match["id"], 1, "normal", request_id="tap-1").status_code == 201
    assert client.delete(f"/api/matches/{match['id']}/deals/last").status_code == 200
    late = api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    assert late.status_code == 200
    assert late.json["deals"] == []
    assert deal_count(client, match["id"]) == 0


def test_an_undone_deals_request_id_with_another_deal_is_refused(client: FlaskClient) -> None:
    """As it is while the deal is there: a retry is the same deal, another one is a mistake."""
    match = api_start(client)
    api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    assert client.delete(f"/api/matches/{match['id']}/deals/last").status_code == 200
    other = api_deal(client, match["id"], 2, "schwarz", request_id="tap-1")
    assert other.status_code == 409
    assert "taken back" in other.json["error"]
    assert api_deal(client, match["id"], 1, "normal", request_id="tap-1").status_code == 200
    assert deal_count(client, match["id"]) == 0


def test_a_late_duplicate_of_a_deleted_deal_records_nothing(client: FlaskClient) -> None:
    match = api_start(client)
    api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    api_deal(client, match["id"], 2, "normal", request_id="tap-2")
    assert client.delete(f"/api/matches/{match['id']}/deals/1").status_code == 200
    late = api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    assert late.status_code == 200
    assert deal_count(client, match["id"]) == 1


def test_a_duplicate_that_waits_for_its_deal_s_undo_records_nothing(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The undo holds the match while the duplicate comes in and waits for it: once in,
    the duplicate must see the request id the undo spent (PostgreSQL's statement that
    waited for the lock sees other tables as they were when it began)."""
    with app.app_context():
        match, _ = matches.start_match(owner="k" * 32, names=("Ana", "Boris"))
        deals.record_deal(owner="k" * 32, match_id=match.id, seat=1, outcome=NORMAL, request_id="r")
    save, begin_write = repository.save, transactions.begin_write
    undo_holds, duplicate_asks = threading.Event(), threading.Event()
    held_until_waited: list[bool] = []

    def duplicate_waits() -> bool:
        """Whether the duplicate waits for the match: for the lock on its row (PostgreSQL),
        or for the write lock it asked for, as writers to one SQLite file take turns."""
        if db.engine.dialect.name == "sqlite":
            return duplicate_asks.is_set()
        with db.engine.connect() as looking:
            return bool(looking.scalar(text(WAITING_FOR_A_LOCK)))

    def slow_undo(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "undo":
            undo_holds.set()  # the match is locked meanwhile
            held_until_waited.append(until(duplicate_waits, within=10))
        return save(*args, **kwargs)

    def asking_for_the_write_lock() -> None:
        if threading.current_thread().name == "duplicate":
            duplicate_asks.set()
        begin_write()

    monkeypatch.setattr(repository, "save", slow_undo)
    monkeypatch.setattr(transactions, "begin_write", asking_for_the_write_lock)
    recorded: list[bool] = []

    def undo() -> None:
        with app.app_context():
            deals.undo_last_deal(owner="k" * 32, match_id=match.id)

    def duplicate() -> None:
        with app.app_context():
            _view, new = deals.record_deal(
                owner="k" * 32, match_id=match.id, seat=1, outcome=NORMAL, request_id="r"
            )
            recorded.append(new)

    undoing = threading.Thread(target=undo, name="undo")
    undoing.start()
    assert undo_holds.wait(10)
    duplicating = threading.Thread(target=duplicate, name="duplicate")
    duplicating.start()
    undoing.join()
    duplicating.join()
    assert held_until_waited == [True], "the duplicate never waited for the undo"
    assert recorded == [False]
    with app.app_context():
        assert matches.get_match(owner="k" * 32, match_id=match.id).deal_count == 0


def test_a_request_id_is_spent_in_its_own_match_only(client: FlaskClient) -> None:
    first, second = api_start(client), api_start(client)
    api_deal(client, first["id"], 1, "normal", request_id="tap-1")
    client.delete(f"/api/matches/{first['id']}/deals/last")
    assert api_deal(client, second["id"], 1, "normal", request_id="tap-1").status_code == 201


def test_a_start_with_a_deleted_matchs_uid_starts_nothing(client: FlaskClient) -> None:
    match = api_start(client, uid=UID, target=7)
    assert client.delete(f"/api/matches/{match['id']}").status_code == 204
    late = client.post("/api/matches", json={"uid": UID, "target": 7})
    assert late.status_code == 409
    assert "deleted" in late.json["error"]
    assert client.get("/api/matches").json["matches"] == []


def test_the_same_uid_with_other_settings_is_refused(client: FlaskClient) -> None:
    match = api_start(client, uid=UID, target=7, players=["Ivan", "Maria"])
    refused = client.post("/api/matches", json={"uid": UID, "target": 15})
    assert refused.status_code == 409
    assert "other settings" in refused.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json["target"] == 7


def test_the_same_start_again_answers_the_match_as_it_is(client: FlaskClient) -> None:
    match = api_start(client, uid=UID, target=7)
    api_deal(client, match["id"], 1, "normal")
    again = client.post("/api/matches", json={"uid": UID, "target": 7})
    assert again.status_code == 200
    assert again.json["id"] == match["id"]
    assert len(again.json["deals"]) == 1


def test_another_browser_may_use_the_same_uid(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client, uid=UID)
    client.delete(f"/api/matches/{match['id']}")
    assert other_client.post("/api/matches", json={"uid": UID}).status_code == 201

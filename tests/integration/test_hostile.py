"""A hostile visitor: bounded work, no formula cells, no impossible deals, never a 500."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import threading
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import insert

from counter.game import scoring
from counter.services import archive
from counter.storage.models import Deal, db

from apps import make_app
from helpers import api_deal, api_play, api_start, at_once, same_browser, submit

HUGE = "9" * 5000  # more digits than Python turns into an int without complaint


def export_of(client: FlaskClient) -> dict[str, Any]:
    return client.get("/api/export").json  # type: ignore[no-any-return]


def document(*matches: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "santase-counter",
        "version": 2,
        "exported_at": None,
        "matches": list(matches),
    }


def a_match(uid: str = "a" * 32, **changes: Any) -> dict[str, Any]:
    """A valid exported match of two deals; ``changes`` replace its fields."""
    match = {
        "uid": uid,
        "target": 11,
        "players": ["Ivan", "Maria"],
        "rules": scoring.DEFAULT_RULES.as_dict(),
        "first_dealer": 1,
        "created_at": "2026-11-01T20:00:00Z",
        "deals": [
            {
                "number": 1,
                "player": 1,
                "outcome": "normal",
                "points": 1,
                "created_at": "2026-11-01T20:05:00Z",
                "corrected_at": None,
            },
            {
                "number": 2,
                "player": 2,
                "outcome": "schwarz",
                "points": 3,
                "created_at": "2026-11-01T20:10:00Z",
                "corrected_at": None,
            },
        ],
    }
    match.update(changes)
    return match


# --- bounded work ------------------------------------------------------------------------


def test_a_match_holds_a_bounded_number_of_deals(app: Flask, client: FlaskClient) -> None:
    match = api_start(client, rules={"ties": "no_points"})
    rules = replace(scoring.DEFAULT_RULES, ties=scoring.Ties.NO_POINTS)
    with app.app_context():  # stored straight, as the counter would have stored them
        db.session.execute(
            insert(Deal),
            [
                {"match_id": match["id"], "number": number, "player": None, "outcome": "tie"}
                | {"points": 0, **rules.as_dict()}
                for number in range(1, scoring.MAX_DEALS_PER_MATCH + 1)
            ],
        )
        db.session.commit()
    refused = client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    assert refused.status_code == 409
    assert f"already has {scoring.MAX_DEALS_PER_MATCH} deals" in refused.json["error"]


def test_an_import_of_a_match_with_too_many_deals_is_refused(client: FlaskClient) -> None:
    ties = {**scoring.DEFAULT_RULES.as_dict(), "ties": "no_points"}
    deal = {"player": None, "outcome": "tie", "points": 0}
    deal |= {"created_at": "2026-11-01T20:00:00Z", "corrected_at": None}
    deals = [{**deal, "number": n} for n in range(1, scoring.MAX_DEALS_PER_MATCH + 2)]
    response = client.post("/api/import", json=document(a_match(rules=ties, deals=deals)))
    assert response.status_code == 422
    assert f"A match keeps at most {scoring.MAX_DEALS_PER_MATCH} deals" in response.json["error"]
    assert client.get("/api/matches").json["matches"] == []


def test_an_import_of_too_many_matches_is_refused(client: FlaskClient) -> None:
    matches = [a_match(f"{n:032x}") for n in range(archive.MAX_MATCHES + 1)]
    response = client.post("/api/import", json=document(*matches))
    assert response.status_code == 413
    assert f"one import takes at most {archive.MAX_MATCHES}" in response.json["error"]


@pytest.mark.slow  # 600 deals recorded one by one
def test_the_import_limit_holds_the_export_of_a_browser_at_the_cap(client: FlaskClient) -> None:
    """The downloaded file of the largest import, estimated from 20 matches of 30 deals each."""
    ties = {"ties": "no_points"}
    for _ in range(20):
        match = api_start(client, target=15, rules=ties)
        api_play(client, match["id"], *[(1 + n % 2, "normal") for n in range(28)])
        for _ in range(2):
            client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    download = client.get("/export.json").get_data()
    per_deal = len(download) / (20 * 30)
    largest = per_deal * archive.MAX_DEALS_PER_BROWSER  # 2,000 matches of 30 deals
    assert largest < client.application.config["IMPORT_MAX_BYTES"]


@pytest.fixture
def small_limit_app(app: Flask) -> Flask:
    app.config["IMPORT_MAX_BYTES"] = 100_000
    return app


def test_one_size_limit_for_preview_confirm_and_api(
    small_limit_app: Flask, client: FlaskClient
) -> None:
    # Rules as a file from before best of three spells them (a switch left out is its
    # default): 145 matches then still fit under the limit.
    rules = scoring.DEFAULT_RULES.as_dict()
    del rules["session"]
    matches = [a_match(f"{n:032x}", rules=rules) for n in range(145)]
    fits = json.dumps(document(*matches), indent=1).encode()
    assert 90_000 < len(fits) < 100_000
    preview = submit(client, "/import", archive=(io.BytesIO(fits), "export.json"))
    assert preview.status_code == 200
    page = preview.get_data(as_text=True)
    payload = page.split('name="payload" value="')[1].split('">')[0].replace("&#34;", '"')
    confirmed = submit(client, "/import/confirm", payload=payload)
    assert confirmed.status_code == 302
    assert len(client.get("/api/matches?page=8").json["matches"]) == 5
    too_big = fits + b" " * (100_001 - len(fits))
    for response in (
        submit(client, "/import", archive=(io.BytesIO(too_big), "export.json")),
        submit(client, "/import/confirm", payload=too_big.decode()),
        client.post("/api/import", data=too_big, content_type="application/json"),
    ):
        assert response.status_code == 413
        assert "one import takes at most 0 MB" in response.get_data(as_text=True) or (
            "The request is too large" in response.get_data(as_text=True)
        )


def hold_the_write_lock(database_url: str, match_id: int) -> Any:
    """Another connection that takes the lock a deal of ``match_id`` needs, and keeps it."""
    if database_url.startswith("sqlite"):
        holder = sqlite3.connect(database_url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        return holder
    import psycopg

    holder = psycopg.connect(database_url.replace("+psycopg", ""))
    holder.execute("SELECT id FROM match WHERE id = %s FOR UPDATE", (match_id,))
    return holder


def test_a_writer_that_cannot_get_the_lock_answers_503_with_retry_after(app: Flask) -> None:
    impatient = make_app(app.config["SQLALCHEMY_DATABASE_URI"], WRITE_LOCK_TIMEOUT_MS=100)
    client = impatient.test_client()
    match = api_start(client)
    holder = hold_the_write_lock(app.config["SQLALCHEMY_DATABASE_URI"], match["id"])
    try:
        response = api_deal(client, match["id"], 1, "normal")
    finally:
        holder.rollback()
        holder.close()
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "2"
    assert "busy" in response.json["error"]
    assert api_deal(client, match["id"], 1, "normal").status_code == 201
    with impatient.app_context():
        db.engine.dispose()


def test_a_big_import_does_not_stall_another_browsers_deals(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    deal = {"outcome": "tie", "player": None, "points": 0, "corrected_at": None}
    deal["created_at"] = "2026-11-01T20:00:00Z"
    ties = {**scoring.DEFAULT_RULES.as_dict(), "ties": "no_points"}
    big = document(
        *[
            a_match(f"{n:032x}", rules=ties, deals=[{**deal, "number": d} for d in range(1, 201)])
            for n in range(150)
        ]
    )
    match = api_start(other_client)
    answers: list[int] = []

    def play() -> None:
        for _ in range(20):
            answers.append(api_deal(other_client, match["id"], 1, "normal").status_code)

    importer = threading.Thread(target=lambda: client.post("/api/import", json=big))
    importer.start()
    play()
    importer.join()
    assert answers.count(201) == 11  # then the match is won: 409, and never a 5xx
    assert set(answers) == {201, 409}
    assert len(client.get("/api/matches?page=8").json["matches"]) == 10


# --- exports that no spreadsheet runs ----------------------------------------------------


@pytest.mark.parametrize(
    "name", ['=HYPERLINK("http://x","y")', "+1+1", "@SUM(A1:A2)", "-2+3", "=1+2"]
)
def test_no_csv_cell_is_a_formula(
    client: FlaskClient, other_client: FlaskClient, name: str
) -> None:
    imported = a_match(players=[name, "Maria"])
    assert other_client.post("/api/import", json=document(imported)).status_code == 201
    text = other_client.get("/export.csv").get_data(as_text=True).removeprefix("\ufeff")
    cells = [cell for row in csv.reader(io.StringIO(text)) for cell in row]
    assert f"'{name}" in cells
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells)


# --- imports store only what the rules allow ---------------------------------------------


def spoiled(**deal: Any) -> dict[str, Any]:
    match = a_match()
    match["deals"][0].update(deal)
    return document(match)


@pytest.mark.parametrize(
    ("file", "message"),
    [
        (spoiled(points=3), "normal is worth 1 under its house rules, not 3"),
        (spoiled(outcome="schwarz", points=0), "schwarz is worth 3 under its house rules, not 0"),
        (spoiled(outcome="tie", player=1, points=3), "Tied deals are not recorded"),
        (spoiled(number=True), "Deal 1 is not as an export writes it"),
        (spoiled(points=True), "The points must be a whole number"),
        (spoiled(created_at="0001-01-01T00:00:00+01:00"), "between 2000 and 2100"),
        (spoiled(created_at="9999-12-31T23:59:59-01:00"), "between 2000 and 2100"),
        (document(a_match(), a_match()), "Matches 1 and 2 of the file have the same uid"),
        (spoiled(rules={"ties": "sometimes"}), "cannot be"),
    ],
)
def test_an_import_is_refused_whole_naming_the_deal(
    client: FlaskClient, file: dict[str, Any], message: str
) -> None:
    response = client.post("/api/import", json=file)
    assert response.status_code == 422
    assert message in response.json["error"]
    assert client.get("/api/matches").json["matches"] == []


def test_nan_is_not_json(client: FlaskClient) -> None:
    text = json.dumps(spoiled()).replace('"points": 1', '"points": NaN')
    response = client.post("/api/import", data=text, content_type="application/json")
    assert response.status_code == 422


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
def test_an_export_in_another_unicode_encoding_is_read(client: FlaskClient, encoding: str) -> None:
    file = json.dumps(document(a_match(players=["Иван", "Мария"])), ensure_ascii=False)
    preview = submit(client, "/import", archive=(io.BytesIO(file.encode(encoding)), "e.json"))
    assert preview.status_code == 200
    assert "Иван – Мария 1:3" in preview.get_data(as_text=True)


def test_six_identical_imports_at_once_add_each_match_once(app: Flask) -> None:
    file = document(*[a_match(f"{n:032x}") for n in range(30)])
    browser = app.test_client()
    api_start(browser)
    phones = [same_browser(app, browser) for _ in range(6)]
    statuses = at_once([lambda p=phone: p.post("/api/import", json=file) for phone in phones])
    assert all(status in (200, 201, 422) for status in statuses), statuses
    assert browser.get("/api/matches?page=2").json["matches"][-1]["id"] is not None
    total = sum(len(browser.get(f"/api/matches?page={page}").json["matches"]) for page in (1, 2))
    assert total == 31


# --- inputs that once answered 500 ---------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", f"/api/matches?page={HUGE}"),
        ("get", f"/matches?page={HUGE}"),
        ("get", f"/api/matches/{HUGE}"),
        ("get", f"/matches/{HUGE}"),
        ("delete", f"/api/matches/1/deals/last?number={HUGE}"),
        ("patch", f"/api/matches/1/deals/{HUGE}"),
        ("get", "/shared/a%00b"),
        ("get", "/api/shared/a%00b"),
        ("get", "/continue/a%00b"),
        ("delete", "/api/matches/1/deals/last?request_id=a%00b"),
    ],
)
def test_no_address_answers_500(client: FlaskClient, method: str, path: str) -> None:
    api_start(client)
    response = getattr(client, method)(path, json={} if method == "patch" else None)
    assert 400 <= response.status_code < 500, response.get_data(as_text=True)


@pytest.mark.parametrize(
    "fields",
    [{"match_id": HUGE}, {"deal_number": HUGE}, {"match_id": "1", "deal_number": HUGE}],
)
def test_no_form_answers_500(client: FlaskClient, fields: dict[str, str]) -> None:
    api_start(client)
    response = submit(client, "/undo", **fields)
    assert 400 <= response.status_code < 500


def test_a_nul_in_a_request_id_is_refused(client: FlaskClient) -> None:
    match = api_start(client)
    response = api_deal(client, match["id"], 1, "normal", request_id="a\x00b")
    assert response.status_code == 422


def test_an_empty_body_must_still_be_json(client: FlaskClient) -> None:
    response = client.post("/api/matches", data=b"", content_type="text/plain")
    assert response.status_code == 415
    assert client.post("/api/matches").status_code == 201  # no body, no type: all defaults


def test_a_share_answer_names_nothing_beyond_its_match(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    won = api_start(client, target=7, players=["Ivan", "Maria"])
    api_play(client, won["id"], *[(1, "schwarz")] * 3)
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    submit(client, f"/matches/{match['id']}/share")
    page = client.get(f"/matches/{match['id']}").get_data(as_text=True)
    token = page.split("/shared/")[1].split('"')[0]
    shared = other_client.get(f"/api/shared/{token}").json
    assert "id" not in shared
    assert "uid" not in shared
    assert all("games" not in player for player in shared["players"])
    assert all("request_id" not in deal for deal in shared["deals"])
    assert "Games" not in other_client.get(f"/shared/{token}").get_data(as_text=True)


def test_names_from_the_api_are_tidied(client: FlaskClient) -> None:
    match = api_start(client, players=["\u202eBob\u200b", "Ann"])
    assert [player["name"] for player in match["players"]] == ["Bob", "Ann"]
    blank = client.post("/api/matches", json={"players": ["\u200b", "Ann"]}).json
    assert blank["players"][0]["name"] == "Player 1"


@pytest.mark.parametrize(
    "path", ["/static/%00", "/static/x.png%00", "/static/" + "a" * 300 + ".png"]
)
def test_no_static_address_answers_500(client: FlaskClient, path: str) -> None:
    assert client.get(path).status_code == 404


@pytest.mark.parametrize(
    "file",
    [
        json.dumps(document(a_match(rules={"\ud800": "x"}))),
        json.dumps(document(a_match(created_at="\udfff"))),
        json.dumps({**document(a_match()), "note": "\ud800"}),
    ],
)
def test_a_file_with_a_lone_surrogate_is_explained_on_the_page(
    client: FlaskClient, file: str
) -> None:
    response = submit(client, "/import", archive=(io.BytesIO(file.encode()), "e.json"))
    assert response.status_code == 422
    assert "Match 1 of the file" in response.get_data(as_text=True) or (
        "not an export of the counter" in response.get_data(as_text=True)
    )


@pytest.mark.parametrize("action", ["", "/delete"])
def test_correcting_a_deal_that_is_not_there_is_a_404_page(
    client: FlaskClient, action: str
) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    response = submit(client, f"/matches/{match['id']}/deals/99{action}", player="1")
    assert response.status_code == 404
    assert "has no deal 99" in response.get_data(as_text=True)


@pytest.mark.parametrize("target", ["/\n", "/a\rb", "/\x00"])
def test_the_language_switch_goes_home_for_a_broken_address(
    client: FlaskClient, target: str
) -> None:
    response = submit(client, "/language", language="bg", next=target)
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_the_same_uid_sent_eight_times_at_once_starts_one_match(app: Flask) -> None:
    browser = app.test_client()
    api_start(browser)
    phones = [same_browser(app, browser) for _ in range(8)]
    uid = {"uid": "c" * 32}
    statuses = at_once([lambda p=phone: p.post("/api/matches", json=uid) for phone in phones])
    assert sorted(statuses) == [200] * 7 + [201]
    assert len(browser.get("/api/matches").json["matches"]) == 2


def test_deleting_the_first_of_many_deals_renumbers_in_two_statements(
    app: Flask, client: FlaskClient
) -> None:
    from sqlalchemy import event

    match = api_start(client, rules={"ties": "no_points"})
    for _ in range(40):
        client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    updates: list[str] = []
    with app.app_context():
        from counter.storage.models import db as database

        engine = database.engine

    def spy(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if statement.lstrip().upper().startswith("UPDATE DEAL"):
            updates.append(statement)

    event.listen(engine, "before_cursor_execute", spy)
    try:
        answer = client.delete(f"/api/matches/{match['id']}/deals/1").json
    finally:
        event.remove(engine, "before_cursor_execute", spy)
    assert [deal["number"] for deal in answer["deals"]] == list(range(1, 40))
    assert len(updates) == 2


def test_a_hand_over_keeps_one_copy_of_a_match_both_browsers_have(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (1, "normal"))
    other_client.post("/api/import", json=client.get("/api/export").json)
    page = submit(client, "/device-link").get_data(as_text=True)
    link = page.split('href="http://localhost')[1].split('"')[0]
    submit(other_client, link)
    assert len(client.get("/api/matches").json["matches"]) == 1


def test_a_file_of_nothing_but_brackets_is_refused_before_it_is_read(client: FlaskClient) -> None:
    bomb = '{"format":"santase-counter","version":2,"matches":[],"x":[' + "[]," * 400_000 + "[]]}"
    response = client.post("/api/import", data=bomb, content_type="application/json")
    assert response.status_code == 413
    assert "far more than an export" in response.json["error"]


def test_a_browser_keeps_a_bounded_number_of_deals(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_DEALS_PER_BROWSER", 3)
    assert client.post("/api/import", json=document(a_match("a" * 32))).status_code == 201
    response = client.post("/api/import", json=document(a_match("b" * 32)))  # 2 + 2 > 3
    assert response.status_code == 409
    assert "more than 3 deals" in response.json["error"]
    assert len(client.get("/api/matches").json["matches"]) == 1


def test_a_body_too_large_to_drop_unread_closes_its_connection(client: FlaskClient) -> None:
    """Read and dropped it would cost the server its size; left unread, a proxy would send
    the next request, someone else's, after it. So the connection goes with the answer."""
    response = client.post("/api/matches", data=b"[" * 2_000_000, content_type="application/json")
    assert response.status_code == 413
    assert response.headers["Connection"] == "close"


def test_a_small_body_refused_unread_keeps_its_connection(client: FlaskClient) -> None:
    response = client.post("/api/matches", data=b"[" * 200_000, content_type="application/json")
    assert response.status_code == 413
    assert "Connection" not in response.headers

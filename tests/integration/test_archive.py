"""Export and import: the same matches come back, twice adds nothing, a bad file changes nothing."""

from __future__ import annotations

import copy
import csv
import io
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from helpers import api_play, api_start, page_field, submit, win_match

MINIMAL = {"Prefer": "return=minimal"}


def play_history(client: FlaskClient) -> None:
    first = api_start(
        client, target=7, players=["Иван", "Мария"], rules={"wrong_claim": "by_tricks"}
    )
    win_match(client, first["id"], player=2, target=7)
    second = api_play(client, api_start(client)["id"], (1, "normal"), (2, "wrong_claim_no_trick"))
    client.patch(f"/api/matches/{second['id']}/deals/1", json={"outcome": "schneider"})


def comparable(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Matches as a browser sees them, less what differs between browsers (the ids)."""
    kept = copy.deepcopy(matches)
    for match in kept:
        del match["id"]
    return kept


def full_history(client: FlaskClient) -> list[dict[str, Any]]:
    listed = client.get("/api/matches").json["matches"]
    return [client.get(f"/api/matches/{m['id']}").json for m in listed]


def test_an_export_imported_elsewhere_gives_the_same_matches(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    play_history(client)
    document = client.get("/api/export").json
    response = other_client.post("/api/import", json=document)
    assert response.status_code == 201
    assert len(response.json["new"]) == 2
    assert comparable(full_history(other_client)) == comparable(full_history(client))


def test_an_imported_history_lists_the_same_totals(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    play_history(client)
    other_client.post("/api/import", json=client.get("/api/export").json)
    listed = [other.get("/api/matches").json["matches"] for other in (client, other_client)]
    assert comparable(listed[1]) == comparable(listed[0])


def test_an_imported_match_plays_on_from_where_it_was(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    unfinished = api_start(client, first_dealer=2, rules={"next_dealer": "alternate"})
    api_play(client, unfinished["id"], (1, "schwarz"), (2, "normal"), (2, "normal"))
    other_client.post("/api/import", json=client.get("/api/export").json)
    imported = other_client.get("/api/matches").json["matches"][0]["id"]
    path = f"/api/matches/{imported}/deals"
    short = other_client.post(path, json={"player": 1, "outcome": "normal"}, headers=MINIMAL).json
    whole = other_client.get(f"/api/matches/{imported}").json
    assert (short["players"], short["dealer"]) == (whole["players"], whole["dealer"])
    assert [player["score"] for player in whole["players"]] == [4, 2]


def test_deals_of_one_second_are_told_apart_once_imported(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    """An export keeps whole seconds; a deal's page names its deal by when it was recorded."""
    api_play(client, api_start(client)["id"], (1, "normal"), (2, "normal"), (1, "schwarz"))
    document = client.get("/api/export").json
    for deal in document["matches"][0]["deals"]:
        deal["created_at"] = "2026-12-03T10:00:00Z"
    other_client.post("/api/import", json=document)
    imported = other_client.get("/api/matches").json["matches"][0]["id"]
    pages = [other_client.get(f"/matches/{imported}/deals/{n}") for n in (1, 2, 3)]
    times = {page_field(page.get_data(as_text=True), "recorded_at") for page in pages}
    assert len(times) == 3


def test_a_second_import_adds_nothing(client: FlaskClient, other_client: FlaskClient) -> None:
    play_history(client)
    document = client.get("/api/export").json
    other_client.post("/api/import", json=document)
    again = other_client.post("/api/import", json=document)
    assert again.status_code == 200
    assert again.json["new"] == []
    assert len(again.json["present"]) == 2
    assert len(other_client.get("/api/matches").json["matches"]) == 2


def test_a_dry_run_stores_nothing(client: FlaskClient, other_client: FlaskClient) -> None:
    play_history(client)
    report = other_client.post("/api/import?dry_run=1", json=client.get("/api/export").json)
    assert len(report.json["new"]) == 2
    assert other_client.get("/api/matches").json["matches"] == []


def broken(document: dict[str, Any], change: str) -> dict[str, Any]:
    spoiled = copy.deepcopy(document)
    match = spoiled["matches"][0]
    if change == "format":
        spoiled["format"] = "something-else"
    elif change == "points":
        match["deals"][0]["points"] = 9
    elif change == "deal after the win":
        match["deals"].append({**match["deals"][-1], "number": len(match["deals"]) + 1})
    elif change == "outcome":
        match["deals"][0]["outcome"] = "kapo"
    elif change == "names":
        match["players"] = ["Ivan", "ivan"]
    elif change == "uid":
        match["uid"] = "../../etc"
    elif change == "extra field":
        match["owner"] = "someone-else"
    return spoiled


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("format", "not an export of the counter"),
        ("points", "Match 1 of the file: Deal 1: schwarz is worth 3 under its house rules, not 9"),
        ("deal after the win", "Match 1 of the file: With that change the match would already"),
        ("outcome", "Match 1 of the file: Deal 1: Unknown outcome"),
        ("names", "different names"),
        ("uid", "32 lowercase hexadecimal digits"),
        ("extra field", "not those of an export"),
    ],
)
def test_a_bad_file_is_refused_and_changes_nothing(
    client: FlaskClient, other_client: FlaskClient, change: str, message: str
) -> None:
    play_history(client)
    api_start(other_client)
    before = other_client.get("/api/matches").json
    response = other_client.post("/api/import", json=broken(client.get("/api/export").json, change))
    assert response.status_code == 422
    assert message in response.json["error"]
    assert other_client.get("/api/matches").json == before


def test_the_csv_has_a_row_per_deal_with_running_totals(client: FlaskClient) -> None:
    play_history(client)
    response = client.get("/export.csv")
    assert response.headers["Content-Disposition"].startswith("attachment;")
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeff")  # spreadsheets then read the names as UTF-8
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == 5
    assert [(r["points to"], r["outcome"], r["total 1"], r["total 2"]) for r in rows[-2:]] == [
        ("Иван", "Schneider", "2", "0"),
        # Beside who received the points, whose mistake it was; the last match's rules carried.
        ("Мария", "Opponent's wrong 66, no trick", "2", "3"),
    ]
    assert rows[-2]["corrected"] != ""


@pytest.mark.parametrize(("language", "delimiter"), [("en", ","), ("bg", ";"), ("de", ";")])
def test_the_csv_splits_cells_as_the_languages_spreadsheets_do(
    client: FlaskClient, language: str, delimiter: str
) -> None:
    """Excel in Bulgarian or German reads a comma as a decimal mark, not between cells."""
    play_history(client)
    client.set_cookie("lang", language)
    text = client.get("/export.csv").get_data(as_text=True).removeprefix("\ufeff")
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    assert len(rows) == 6
    assert {len(row) for row in rows} == {len(rows[0])} != {1}


def test_the_json_download_is_what_import_reads(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    play_history(client)
    download = client.get("/export.json")
    assert download.headers["Content-Disposition"].endswith('.json"')
    response = other_client.post(
        "/api/import", data=download.get_data(), content_type="application/json"
    )
    assert response.status_code == 201


def test_importing_through_the_pages_previews_first(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    play_history(client)
    exported = client.get("/export.json").get_data()
    other_client.get("/import")
    preview = submit(other_client, "/import", archive=(io.BytesIO(exported), "santase.json"))
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "2 matches new to this browser" in page
    assert other_client.get("/api/matches").json["matches"] == []
    payload = json.loads(
        page.split('name="payload" value="')[1].split('">')[0].replace("&#34;", '"')
    )
    assert payload["format"] == "santase-counter"
    done = submit(other_client, "/import/confirm", payload=json.dumps(payload))
    assert done.status_code == 302
    assert "Imported 2 matches." in other_client.get("/matches").get_data(as_text=True)


def test_a_file_that_is_not_an_export_is_explained_on_the_page(client: FlaskClient) -> None:
    response = submit(client, "/import", archive=(io.BytesIO(b"hello"), "notes.txt"))
    assert response.status_code == 422
    assert "not an export of the counter" in response.get_data(as_text=True)

"""The JSON API, endpoint by endpoint, with its errors."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, win_match


def count_rows(client: FlaskClient) -> tuple[int, int]:
    from counter.storage.models import Deal, Match, db

    with client.application.app_context():
        return (
            db.session.query(Match).count(),
            db.session.query(Deal).count(),
        )


# --- starting and reading matches -------------------------------------------------


def test_a_new_match_starts_at_nil_to_11_with_default_names(client: FlaskClient) -> None:
    match = api_start(client)
    assert match["target"] == 11
    assert [(p["seat"], p["name"], p["score"], p["games"]) for p in match["players"]] == [
        (1, "Player 1", 0, 0),
        (2, "Player 2", 0, 0),
    ]
    assert match["winner"] is None
    assert match["finished"] is False
    assert match["deals"] == []
    assert match["finished_at"] is None
    assert match["created_at"].endswith("Z")


def test_a_new_match_answers_with_its_location(client: FlaskClient) -> None:
    response = client.post("/api/matches", json={})
    assert response.headers["Location"] == f"/api/matches/{response.json['id']}"


def test_a_new_match_takes_a_target_and_names(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Иван", "Мария"])
    assert match["target"] == 7
    assert [p["name"] for p in match["players"]] == ["Иван", "Мария"]


def test_a_new_match_can_be_started_without_a_body(client: FlaskClient) -> None:
    assert client.post("/api/matches").status_code == 201


def test_a_new_match_keeps_the_names_of_the_last_one(client: FlaskClient) -> None:
    api_start(client, players=["Ivan", "Maria"])
    assert [p["name"] for p in api_start(client)["players"]] == ["Ivan", "Maria"]


def test_current_is_the_match_started_last(client: FlaskClient) -> None:
    api_start(client)
    newest = api_start(client, target=15)
    assert client.get("/api/matches/current").json["id"] == newest["id"]


def test_current_is_404_before_any_match(client: FlaskClient) -> None:
    response = client.get("/api/matches/current")
    assert response.status_code == 404
    assert response.json == {"error": "This browser has no match yet."}


def test_a_match_is_read_by_its_id(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"))
    shown = client.get(f"/api/matches/{match['id']}").json
    assert shown["players"][0]["score"] == 1
    assert len(shown["deals"]) == 1


@pytest.mark.parametrize("match_id", ["999", "0", "99999999999999999999", "abc", "-1"])
def test_unknown_match_ids_are_404(client: FlaskClient, match_id: str) -> None:
    api_start(client)
    response = client.get(f"/api/matches/{match_id}")
    assert response.status_code == 404
    assert "error" in response.json


# --- recording deals ----------------------------------------------------------------


def test_a_deal_adds_its_points_and_shows_the_running_totals(client: FlaskClient) -> None:
    match = api_start(client)
    response = api_deal(client, match["id"], 2, "schneider")
    assert response.status_code == 201
    deal = response.json["deals"][0]
    assert deal["number"] == 1
    assert deal["player"] == 2
    assert deal["outcome"] == "schneider"
    assert deal["points"] == 2
    assert deal["scores"] == [0, 2]
    assert deal["created_at"].endswith("Z")
    assert response.json["players"][1]["score"] == 2


def test_deals_are_numbered_in_order(client: FlaskClient) -> None:
    match = api_start(client)
    played = api_play(client, match["id"], (1, "normal"), (2, "wrong_claim"), (1, "schwarz"))
    assert [d["number"] for d in played["deals"]] == [1, 2, 3]
    assert [d["scores"] for d in played["deals"]] == [[1, 0], [1, 2], [4, 2]]


def test_reaching_the_target_finishes_the_match(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    played = api_play(client, match["id"], (2, "schwarz"), (2, "schwarz"), (2, "normal"))
    assert played["finished"] is True
    assert played["winner"] == 2
    assert played["finished_at"] == played["deals"][-1]["created_at"]
    assert played["players"][1]["games"] == 1


def test_a_finished_match_refuses_deals_with_409(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, match["id"], player=1, target=7)
    response = api_deal(client, match["id"], 2, "normal")
    assert response.status_code == 409
    assert "Ivan won" in response.json["error"]
    assert count_rows(client) == (1, 3)


def test_the_same_request_id_records_one_deal(client: FlaskClient) -> None:
    match = api_start(client)
    first = api_deal(client, match["id"], 1, "schneider", request_id="tap-1")
    again = api_deal(client, match["id"], 1, "schneider", request_id="tap-1")
    assert first.status_code == 201
    assert again.status_code == 200
    assert again.json == first.json
    assert len(again.json["deals"]) == 1


def test_a_retry_of_the_winning_deal_returns_the_match_rather_than_409(
    client: FlaskClient,
) -> None:
    match = api_start(client, target=7)
    api_play(client, match["id"], (1, "schwarz"), (1, "schwarz"))
    assert api_deal(client, match["id"], 1, "normal", request_id="last").status_code == 201
    retry = api_deal(client, match["id"], 1, "normal", request_id="last")
    assert retry.status_code == 200
    assert retry.json["winner"] == 1


def test_a_request_id_reused_for_another_deal_is_refused(client: FlaskClient) -> None:
    match = api_start(client)
    api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    response = api_deal(client, match["id"], 2, "schwarz", request_id="tap-1")
    assert response.status_code == 409
    assert count_rows(client) == (1, 1)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"player": 3, "outcome": "normal"}, "player must be 1 or 2"),
        ({"player": "1", "outcome": "normal"}, "player must be 1 or 2"),
        ({"player": True, "outcome": "normal"}, "player must be 1 or 2"),
        ({"player": 1.5, "outcome": "normal"}, "player must be 1 or 2"),
        ({"player": 1, "outcome": "win"}, "Unknown outcome"),
        ({"player": 1, "outcome": None}, "Leave outcome out rather than sending null"),
        ({"player": 1, "outcome": ["normal"]}, "Unknown outcome"),
        ({"outcome": "normal"}, "Say which player"),
        ({"player": 1}, "Say how the deal ended"),
        ({"player": 1, "outcome": "normal", "request_id": ""}, "request id"),
        ({"player": 1, "outcome": "normal", "request_id": 5}, "request id"),
        ({"player": 1, "outcome": "normal", "request_id": "x" * 65}, "request id"),
        ({"player": 1, "outcome": "normal", "request_id": "a\x00b"}, "request id"),
        ({"player": 1, "outcome": "normal", "request_id": "тап-1"}, "printable ASCII"),
        ({"player": 1, "outcome": "normal", "points": 5}, 'Unknown field "points"'),
    ],
)
def test_a_bad_deal_is_refused_with_422_and_records_nothing(
    client: FlaskClient, body: dict[str, object], message: str
) -> None:
    match = api_start(client)
    response = client.post(f"/api/matches/{match['id']}/deals", json=body)
    assert response.status_code == 422
    assert message in response.json["error"]
    assert count_rows(client) == (1, 0)


# --- undo ---------------------------------------------------------------------------


def test_undo_removes_the_last_deal(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"), (2, "schwarz"))
    response = client.delete(f"/api/matches/{match['id']}/deals/last")
    assert response.status_code == 200
    assert [d["outcome"] for d in response.json["deals"]] == ["normal"]
    assert [p["score"] for p in response.json["players"]] == [1, 0]


def test_undo_reopens_a_match_its_deal_had_finished(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], player=2, target=7)
    reopened = client.delete(f"/api/matches/{match['id']}/deals/last").json
    assert reopened["finished"] is False
    assert reopened["winner"] is None
    assert reopened["finished_at"] is None
    assert reopened["players"][1]["games"] == 0
    assert api_deal(client, match["id"], 1, "normal").status_code == 201


def test_undo_without_deals_is_409(client: FlaskClient) -> None:
    match = api_start(client)
    response = client.delete(f"/api/matches/{match['id']}/deals/last")
    assert response.status_code == 409
    assert response.json == {"error": "There is no deal to undo in this match."}


def test_after_undo_the_next_deal_takes_the_freed_number(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"), (2, "normal"))
    client.delete(f"/api/matches/{match['id']}/deals/last")
    played = api_play(client, match["id"], (1, "schwarz"))
    assert [d["number"] for d in played["deals"]] == [1, 2]


# --- changing target and names ------------------------------------------------------


def test_the_target_can_be_switched_during_a_match(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "schwarz"))
    response = client.patch(f"/api/matches/{match['id']}", json={"target": 7})
    assert response.status_code == 200
    assert response.json["target"] == 7


def test_a_switch_that_would_end_the_match_is_409_and_changes_nothing(
    client: FlaskClient,
) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "schwarz"), (1, "schwarz"), (1, "normal"))
    response = client.patch(f"/api/matches/{match['id']}", json={"target": 7})
    assert response.status_code == 409
    assert response.json["error"] == (
        "Ivan already has 7 game points, so a target of 7 would end the match at once."
    )
    assert client.get(f"/api/matches/{match['id']}").json["target"] == 11


def test_raising_the_target_of_a_finished_match_asks_to_play_on(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, match["id"], player=1, target=7)
    response = client.patch(f"/api/matches/{match['id']}", json={"target": 11})
    assert response.status_code == 409
    assert "Ivan has already won 9:0" in response.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json["winner"] == 1


def test_playing_on_to_a_higher_target_reopens_a_finished_match(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], player=1, target=7)
    reopened = client.patch(
        f"/api/matches/{match['id']}", json={"target": 11, "play_on": True}
    ).json
    assert reopened["finished"] is False
    assert reopened["players"][0]["games"] == 0
    assert api_deal(client, match["id"], 2, "normal").status_code == 201


def test_players_can_be_renamed(client: FlaskClient) -> None:
    match = api_start(client)
    renamed = client.patch(f"/api/matches/{match['id']}", json={"players": [" Петър ", ""]})
    assert [p["name"] for p in renamed.json["players"]] == ["Петър", "Player 2"]


def test_a_rename_and_a_refused_switch_together_change_nothing(client: FlaskClient) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    api_play(client, match["id"], (2, "schwarz"), (2, "schwarz"), (2, "normal"))
    response = client.patch(
        f"/api/matches/{match['id']}", json={"players": ["A", "B"], "target": 7}
    )
    assert response.status_code == 409
    shown = client.get(f"/api/matches/{match['id']}").json
    assert [p["name"] for p in shown["players"]] == ["Ivan", "Maria"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"target": 10}, "7, 11 or 15"),
        ({"target": "7"}, "7, 11 or 15"),
        ({"players": ["x" * 41, "Maria"]}, "keep it to 40"),
        ({"players": ["Ivan"]}, "exactly two player names"),
        ({"players": "Ivan"}, "exactly two player names"),
        ({"players": ["Ivan", 7]}, "must be text"),
        ({"players": ["Ivan", "IVAN"]}, "different names"),
        ({"name": "Ivan"}, 'Unknown field "name"'),
    ],
)
def test_a_bad_change_is_422_and_changes_nothing(
    client: FlaskClient, body: dict[str, object], message: str
) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    response = client.patch(f"/api/matches/{match['id']}", json=body)
    assert response.status_code == 422
    assert message in response.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json == match


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"target": 12}, "7, 11 or 15"),
        ({"players": ["", "x" * 50]}, "keep it to 40"),
        ({"players": None, "target": None}, "null"),
        ({"uid": "not-a-uid"}, "32 lowercase hexadecimal"),
        ({"uid": "a" * 32 + "\n"}, "32 lowercase hexadecimal"),
        ({"players": [None, "Maria"]}, "name of player 1 must be text"),
        ({"players": ["Ivan" + " " * 37, ""]}, "41 characters long"),
        ({"players": ["Ivan", "\ufdd0"]}, "cannot be shown"),
    ],
)
def test_a_bad_new_match_is_422_and_stores_nothing(
    client: FlaskClient, body: dict[str, object], message: str
) -> None:
    response = client.post("/api/matches", json=body)
    assert response.status_code == 422
    assert message in response.json["error"]
    assert count_rows(client) == (0, 0)


def test_a_known_uid_answers_its_match_once_the_request_is_valid(client: FlaskClient) -> None:
    match = api_start(client, uid="b" * 32, target=7)
    again = client.post("/api/matches", json={"uid": "b" * 32, "target": 7})
    assert again.status_code == 200
    assert again.json["id"] == match["id"]
    refused = client.post("/api/matches", json={"uid": "b" * 32, "target": 12})
    assert refused.status_code == 422
    assert count_rows(client) == (1, 0)


def test_a_name_newer_than_this_python_is_welcome(client: FlaskClient) -> None:
    # U+1FAE8 (shaking face) came with Unicode 15; Python 3.11 knows Unicode 14.
    match = api_start(client, players=["Ivan \U0001fae8", "Maria"])
    assert match["players"][0]["name"] == "Ivan \U0001fae8"


# --- the history list ---------------------------------------------------------------


def test_the_list_is_newest_first_with_summaries(client: FlaskClient) -> None:
    first = api_start(client, players=["Ivan", "Maria"])
    api_play(client, first["id"], (1, "normal"), (2, "normal"))
    second = api_start(client)
    listed = client.get("/api/matches").json
    assert [m["id"] for m in listed["matches"]] == [second["id"], first["id"]]
    assert listed["matches"][1]["deal_count"] == 2
    assert "deals" not in listed["matches"][1]
    assert (listed["page"], listed["pages"]) == (1, 1)


def test_the_list_is_paginated_by_20(client: FlaskClient) -> None:
    ids = [api_start(client)["id"] for _ in range(21)]
    first_page = client.get("/api/matches?page=1").json
    second_page = client.get("/api/matches?page=2").json
    assert first_page["pages"] == 2
    assert len(first_page["matches"]) == 20
    assert [m["id"] for m in second_page["matches"]] == [ids[0]]


def test_an_empty_history_is_one_empty_page(client: FlaskClient) -> None:
    assert client.get("/api/matches").json == {"matches": [], "page": 1, "pages": 1}


@pytest.mark.parametrize(
    ("page", "status"),
    [
        ("0", 400),
        ("000", 400),
        ("x", 400),
        ("-1", 400),
        ("+1", 400),
        ("1.0", 400),
        ("", 400),
        ("2", 404),
        ("9" * 5000, 400),
        ("1" * 11, 400),
        ("9" * 10, 404),
    ],
)
def test_bad_pages_are_refused(client: FlaskClient, page: str, status: int) -> None:
    response = client.get(f"/api/matches?page={page}")
    assert response.status_code == status
    assert "error" in response.json


def test_leading_zeros_are_no_digits_of_a_page_number(client: FlaskClient) -> None:
    assert client.get("/api/matches?page=" + "0" * 20 + "1").status_code == 200


def test_games_count_matches_won_in_the_series(client: FlaskClient) -> None:
    for winner in (1, 2, 1):
        match = api_start(client, target=7, players=["Ivan", "Maria"])
        win_match(client, match["id"], player=winner, target=7)
    latest = api_start(client)
    assert [p["games"] for p in latest["players"]] == [2, 1]
    listed = client.get("/api/matches").json["matches"]
    assert [[p["games"] for p in m["players"]] for m in listed] == [[2, 1], [2, 1], [1, 1], [1, 0]]


# --- request format -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/matches"),
        ("patch", "/api/matches/{id}"),
        ("post", "/api/matches/{id}/deals"),
    ],
)
def test_a_body_that_is_not_json_is_415(client: FlaskClient, method: str, path: str) -> None:
    match = api_start(client)
    response = getattr(client, method)(
        path.format(id=match["id"]),
        data="player=1",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 415
    assert "application/json" in response.json["error"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'"text"', "must be a JSON object"),
        (b"null", "must be a JSON object"),
        (b"\xff\xfe{}", "not valid JSON"),  # not UTF-8
        (b"[" * 50_000, "not valid JSON"),  # nested deeper than the parser goes
        (b'{"player": NaN, "outcome": "normal"}', "not valid JSON"),  # NaN is not JSON
    ],
)
def test_malformed_json_is_refused(client: FlaskClient, raw: bytes, message: str) -> None:
    match = api_start(client)
    response = client.post(
        f"/api/matches/{match['id']}/deals", data=raw, content_type="application/json"
    )
    assert response.status_code in (400, 422)
    assert message in response.json["error"]


def test_an_oversized_body_is_413(client: FlaskClient) -> None:
    response = client.post(
        "/api/matches",
        data='{"players": ["' + "x" * 70_000 + '"]}',
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json == {"error": "The request is too large."}


def test_unknown_api_addresses_answer_json(client: FlaskClient) -> None:
    response = client.get("/api/nothing-here")
    assert response.status_code == 404
    assert response.json == {"error": "There is nothing at this address."}


def test_wrong_methods_answer_json_405(client: FlaskClient) -> None:
    response = client.put("/api/matches")
    assert response.status_code == 405
    assert "error" in response.json


def test_undo_of_a_named_deal_removes_only_that_deal(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"), (2, "normal"))
    first = client.delete(f"/api/matches/{match['id']}/deals/last?number=2")
    again = client.delete(f"/api/matches/{match['id']}/deals/last?number=2")
    assert first.status_code == 200
    assert again.status_code == 409
    assert len(client.get(f"/api/matches/{match['id']}").json["deals"]) == 1


def test_undo_with_a_malformed_number_is_400(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    response = client.delete(f"/api/matches/{match['id']}/deals/last?number=x")
    assert response.status_code == 400
    assert len(client.get(f"/api/matches/{match['id']}").json["deals"]) == 1


def test_undo_by_request_id_takes_back_that_deal_once(client: FlaskClient) -> None:
    match = api_start(client)
    api_deal(client, match["id"], 1, "normal", request_id="tap-1")
    api_deal(client, match["id"], 2, "normal", request_id="tap-2")
    path = f"/api/matches/{match['id']}/deals/last?request_id=tap-2"
    first, again = client.delete(path), client.delete(path)
    assert (first.status_code, again.status_code) == (200, 200)  # already undone: nothing more
    assert [d["request_id"] for d in again.json["deals"]] == ["tap-1"]
    assert (
        client.delete(f"/api/matches/{match['id']}/deals/last?request_id=tap-").status_code == 200
    )
    bad = client.delete(f"/api/matches/{match['id']}/deals/last?request_id=")
    assert bad.status_code == 422


def test_a_deleted_match_is_gone(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    assert client.delete(f"/api/matches/{match['id']}").status_code == 204
    assert client.delete(f"/api/matches/{match['id']}").status_code == 404
    assert count_rows(client) == (0, 0)


def _export_of_one_deal(**deal: object) -> dict[str, object]:
    return {
        "format": "santase-counter",
        "version": 2,
        "matches": [
            {
                "uid": "c" * 32,
                "target": 11,
                "players": ["Ivan", "Maria"],
                "rules": {},
                "first_dealer": 1,
                "created_at": "2026-01-01T10:00:00Z",
                "deals": [
                    {
                        "number": 1,
                        "player": 1,
                        "outcome": "normal",
                        "points": 1,
                        "created_at": "2026-01-01T10:05:00Z",
                        "corrected_at": None,
                        **deal,
                    }
                ],
            }
        ],
    }


def test_an_import_reads_whole_numbers_as_the_api_does(client: FlaskClient) -> None:
    response = client.post("/api/import", json=_export_of_one_deal(number=1.0, points=1.0))
    assert response.status_code == 201
    assert client.get("/api/matches/current").json["deals"][0]["points"] == 1


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({**_export_of_one_deal(), "version": True}, "another version"),
        ({**_export_of_one_deal(), "version": 4}, "another version"),
        (_export_of_one_deal(number=True), "not as an export writes it"),
        (_export_of_one_deal(points=1.5), "whole number"),
    ],
)
def test_an_import_refuses_what_its_schema_refuses(
    client: FlaskClient, document: dict[str, object], message: str
) -> None:
    response = client.post("/api/import", json=document)
    assert response.status_code == 422
    assert message in response.json["error"]
    assert count_rows(client) == (0, 0)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("DELETE", "/api/matches/{id}"),
        ("POST", "/api/matches/{id}/resume"),
        ("DELETE", "/api/matches/{id}/deals/last"),
        ("DELETE", "/api/matches/{id}/deals/1"),
    ],
)
def test_an_operation_without_a_body_refuses_one_that_is_not_json(
    client: FlaskClient, method: str, path: str
) -> None:
    match = api_start(client)
    api_deal(client, match["id"], 1, "normal")
    answer = client.open(
        path.format(id=match["id"]), method=method, data="x", content_type="text/plain"
    )
    assert answer.status_code == 415
    assert len(client.get(f"/api/matches/{match['id']}").json["deals"]) == 1

"""Your matches, your choice: continue an unfinished match, delete one, erase everything."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from counter.storage.models import Deal, DeviceLink, Match, db

from helpers import api_play, api_start, card_names, key_of, privacy_form, submit, tap, win_match

BULGARIAN = {"Accept-Language": "bg"}


def test_the_counter_shows_the_match_played_last_not_the_newest(client: FlaskClient) -> None:
    first = api_start(client, players=["Ivan", "Maria"])
    api_start(client, players=["Petar", "Gergana"])
    api_play(client, first["id"], (1, "schwarz"))  # played in last
    assert client.get("/api/matches/current").json["id"] == first["id"]
    assert card_names(client.get("/").get_data(as_text=True))[0] == "Ivan"


def test_an_unfinished_match_is_continued_through_the_api(client: FlaskClient) -> None:
    first = api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (2, "normal"))
    api_start(client, players=["Petar", "Gergana"])
    resumed = client.post(f"/api/matches/{first['id']}/resume")
    assert resumed.status_code == 200
    assert resumed.json["id"] == first["id"]
    current = client.get("/api/matches/current").json
    assert (current["id"], current["players"][1]["score"]) == (first["id"], 1)


def test_a_finished_match_cannot_be_continued(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], target=7)
    response = client.post(f"/api/matches/{match['id']}/resume")
    assert response.status_code == 409
    assert "This match is over" in response.json["error"]


def test_continue_from_the_history_page(client: FlaskClient) -> None:
    first = api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (1, "normal"))
    api_start(client, players=["Petar", "Gergana"])
    history = client.get("/matches").get_data(as_text=True)
    assert f'action="/matches/{first["id"]}/resume"' in history
    assert submit(client, f"/matches/{first['id']}/resume").status_code == 302
    page = client.get("/").get_data(as_text=True)
    assert "Back to Ivan – Maria 1:0, 1 deal." in page
    assert "<span data-score>1</span>" in page


def test_continue_says_so_in_bulgarian(client: FlaskClient) -> None:
    first = api_play(client, api_start(client, players=["Иван", "Мария"])["id"], (1, "normal"))
    api_start(client, players=["Петър", "Гергана"])
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "bg"
    history = client.get("/matches").get_data(as_text=True)
    assert "Продължи тази игра" in history
    submit(client, f"/matches/{first['id']}/resume")
    assert "Продължавате играта Иван – Мария 1:0, 1 раздаване." in client.get("/").get_data(
        as_text=True
    )


def test_a_finished_match_offers_no_continue(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], target=7)
    assert f'action="/matches/{match["id"]}/resume"' not in client.get("/matches").get_data(
        as_text=True
    )


def test_deleting_asks_first_naming_the_match(client: FlaskClient) -> None:
    match = api_play(
        client, api_start(client, players=["Иван", "Мария"])["id"], (1, "schwarz"), (2, "normal")
    )
    asked = submit(client, f"/matches/{match['id']}/delete")
    assert asked.status_code == 200
    assert "Иван – Мария 3:1, 2 deals will be deleted for good" in asked.get_data(as_text=True)
    assert client.get(f"/api/matches/{match['id']}").status_code == 200


def test_a_deleted_match_is_gone_with_its_games_statistics_and_share_link(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    won = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, won["id"], player=1, target=7)
    later = api_start(client, players=["Ivan", "Maria"])
    assert later["players"][0]["games"] == 1
    submit(client, f"/matches/{won['id']}/share")
    page = client.get(f"/matches/{won['id']}").get_data(as_text=True)
    shared = re.search(r'href="http://localhost(/shared/[^"]+)"', page)
    assert shared
    done = submit(client, f"/matches/{won['id']}/delete", confirmed="1")
    assert done.status_code == 302
    assert "Deleted: Ivan – Maria 9:0, 3 deals." in client.get("/matches").get_data(as_text=True)
    assert client.get(f"/api/matches/{won['id']}").status_code == 404
    assert client.get(f"/api/matches/{later['id']}").json["players"][0]["games"] == 0
    assert (
        "Matches won"
        not in client.get("/statistics")
        .get_data(as_text=True)
        .split("Ivan – Maria")[1]
        .split("<tr>")[1]
    )
    assert other_client.get(shared.group(1)).status_code == 404


def test_delete_through_the_api(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    assert client.delete(f"/api/matches/{match['id']}").status_code == 204
    assert client.delete(f"/api/matches/{match['id']}").status_code == 404
    assert client.get("/api/matches").json["matches"] == []


def test_the_statistics_forget_a_deleted_match(client: FlaskClient) -> None:
    first = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, first["id"], player=2, target=7)
    second = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, second["id"], player=1, target=7)
    client.delete(f"/api/matches/{second['id']}")
    page = client.get("/statistics").get_data(as_text=True)
    assert "1 match" in page
    assert '<th scope="row">Matches won</th><td class="num">0</td><td class="num">1</td>' in page


def test_erasing_asks_first_and_says_what_goes(client: FlaskClient) -> None:
    api_start(client)
    api_start(client)
    asked = privacy_form(client, action="/privacy/erase").get_data(as_text=True)
    assert "2 matches with all their deals" in asked
    assert "Other devices that continue these matches lose them too." in asked
    assert len(client.get("/api/matches").json["matches"]) == 2


def test_erasing_everything_leaves_nothing_and_a_new_key(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_play(client, api_start(client, players=["Ivan", "Maria"])["id"], (1, "normal"))
    submit(client, "/device-link")
    old_key = key_of(client)
    old_cookie = client.get_cookie("session")
    assert old_cookie is not None
    assert privacy_form(client, action="/privacy/erase", confirmed="1").status_code == 302
    new_key = key_of(client)
    assert new_key is not None
    assert new_key != old_key
    assert client.get("/api/matches").json["matches"] == []
    assert "Erased: 1 match. This browser starts afresh." in client.get("/").get_data(as_text=True)
    with app.app_context():
        for table in (Match, Deal, DeviceLink):
            assert db.session.scalar(select(func.count()).select_from(table)) == 0
    other_client.set_cookie("session", old_cookie.value)  # another device with the old key
    assert other_client.get("/api/matches").json["matches"] == []
    assert other_client.get(f"/api/matches/{match['id']}").status_code == 404


def test_an_erase_tells_the_browser_to_drop_what_it_kept(client: FlaskClient) -> None:
    api_start(client, players=["Ivan", "Maria"])
    erased = privacy_form(client, action="/privacy/erase", confirmed="1")
    assert erased.headers["Clear-Site-Data"] == '"storage"'


def test_the_privacy_page_says_what_is_kept_in_both_languages(client: FlaskClient) -> None:
    english = client.get("/privacy").get_data(as_text=True)
    assert "What we keep" in english
    assert "no trackers" in english.lower()
    bulgarian = client.get("/privacy", headers=BULGARIAN).get_data(as_text=True)
    assert "Какво пазим" in bulgarian
    assert 'href="/privacy"' in client.get("/rules").get_data(as_text=True)  # every footer


def test_another_browser_learns_nothing_of_a_deleted_match(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = api_start(client)
    client.delete(f"/api/matches/{match['id']}")
    tap(other_client, 1, "normal")
    gone = other_client.delete(f"/api/matches/{match['id']}")
    never = other_client.delete("/api/matches/999")
    assert gone.status_code == never.status_code == 404

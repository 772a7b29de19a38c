"""The HTML pages through the test client: every flow works with plain forms, no script."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from helpers import api_play, api_start, card_names, page_form, press, submit, tap, win_match


def text_of(response: object) -> str:
    return response.get_data(as_text=True)  # type: ignore[attr-defined,no-any-return]


def scores_on(page: str) -> list[str]:
    import re

    return re.findall(r"<span data-score>(\d+)</span>", page)


def test_the_counter_opens_blank_and_stores_nothing(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = text_of(response)
    assert "Player 1" in page
    assert "Player 2" in page
    assert 'value="11" aria-pressed="true" disabled>11</button>' in page
    assert scores_on(page) == ["0", "0"]
    assert "No deals recorded yet." in page
    with client.session_transaction() as session:
        assert "device" not in session  # only the form token, no device yet
    assert "Expires=" not in response.headers["Set-Cookie"]
    assert client.get("/api/matches").json["matches"] == []


def test_a_tap_records_a_deal_and_redirects_to_the_counter(client: FlaskClient) -> None:
    response = tap(client, 1, "schneider")
    assert response.status_code == 302
    assert response.headers["Location"] == "/"
    page = text_of(client.get("/"))
    assert scores_on(page) == ["2", "0"]
    assert "+2 Player 1 · Schneider" in page  # the confirmation


def test_the_first_tap_gives_the_browser_a_lasting_cookie(client: FlaskClient) -> None:
    response = tap(client, 2, "normal")
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Expires=" in cookie


def test_the_deal_list_shows_running_totals_newest_first(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    tap(client, 2, "schwarz")
    page = text_of(client.get("/"))
    rows = page.split("<tbody>")[1]
    assert rows.index("+3 Player 2") < rows.index("+1 Player 1")
    assert scores_on(page) == ["1", "3"]


def test_resubmitting_the_same_page_records_once(client: FlaskClient) -> None:
    form = {**page_form(client), "player": "1", "outcome": "normal"}
    client.post("/deals", data=form)
    form["match_id"] = client.get("/api/matches/current").json["id"]
    client.post("/deals", data=form)  # a double tap, or the back button
    assert len(client.get("/api/matches/current").json["deals"]) == 1


def test_undo_takes_back_the_last_deal_and_says_which(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    tap(client, 2, "wrong_claim")
    response = press(client, "/undo")
    assert response.status_code == 302
    page = text_of(client.get("/"))
    assert scores_on(page) == ["1", "0"]
    assert "Undone: +2 Player 2 · Opponent&#39;s wrong 66." in page


@pytest.mark.parametrize(
    ("language", "named"),
    [("en", "Opponent&#39;s failed close"), ("bg", "Неуспешно затваряне на противника")],
)
def test_the_deal_list_names_a_mistake_as_the_opponents(
    client: FlaskClient, language: str, named: str
) -> None:
    """ "+2 Иван · Неуспешно затваряне" reads as Иван's own failed close: the list says whose."""
    client.set_cookie("lang", language)
    tap(client, 1, "failed_close")
    rows = text_of(client.get("/")).split("<tbody>")[1]
    assert named in rows


def test_undo_is_disabled_before_the_first_deal(client: FlaskClient) -> None:
    assert '<button aria-label="Undo last deal" disabled>Undo</button>' in text_of(client.get("/"))


def test_undo_with_nothing_to_undo_shows_the_page_with_a_message(client: FlaskClient) -> None:
    response = press(client, "/undo")
    assert response.status_code == 409
    assert "There is no deal to undo yet." in text_of(response)


def test_a_whole_match_to_11_played_by_taps(client: FlaskClient) -> None:
    press(client, "/settings", player1="Иван", player2="Мария")
    for player, outcome in [(1, "schwarz"), (2, "normal"), (1, "schneider"), (1, "schwarz")]:
        tap(client, player, outcome)
    tap(client, 2, "failed_close_no_trick")
    tap(client, 1, "schwarz")
    page = text_of(client.get("/"))
    assert scores_on(page) == ["11", "4"]
    assert "Иван won the match 11:4" in page
    assert '<section class="record" aria-labelledby="record-heading" hidden>' in page
    assert "New match to 11" in page


def test_a_tap_on_a_finished_match_is_refused_on_the_page(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, match["id"], player=1, target=7)
    response = tap(client, 2, "normal")
    assert response.status_code == 409
    assert "The match is over: Ivan won 9:0" in text_of(response)
    assert len(client.get("/api/matches/current").json["deals"]) == 3


def test_a_new_match_keeps_the_names_and_the_target(client: FlaskClient) -> None:
    match = api_start(client, target=15, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "normal"))
    response = press(client, "/new", target="15", confirmed="1")
    assert response.status_code == 302
    page = text_of(client.get("/"))
    assert "New match to 15 started." in page
    assert scores_on(page) == ["0", "0"]
    current = client.get("/api/matches/current").json
    assert current["id"] != match["id"]
    assert [p["name"] for p in current["players"]] == ["Ivan", "Maria"]
    assert current["target"] == 15


def test_a_new_match_can_take_another_target(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    press(client, "/new", target="7", confirmed="1")
    assert client.get("/api/matches/current").json["target"] == 7


def test_a_new_match_asks_first_while_one_is_open(client: FlaskClient) -> None:
    press(client, "/settings", player1="Иван", player2="Мария")
    tap(client, 1, "normal")
    response = press(client, "/new", target="7")
    assert response.status_code == 200
    page = text_of(response)
    assert "The match Иван – Мария, 1:0, is not finished." in page
    assert '<input type="hidden" name="confirmed" value="1">' in page
    assert '<input type="hidden" name="target" value="7">' in page
    assert len(client.get("/api/matches").json["matches"]) == 1


def test_a_new_match_does_not_ask_once_the_match_is_won(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], player=1, target=7)
    assert press(client, "/new", target="7").status_code == 302
    assert len(client.get("/api/matches").json["matches"]) == 2


def test_the_target_can_be_switched_from_the_page(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    press(client, "/settings", target="15")
    page = text_of(client.get("/"))
    assert 'value="15" aria-pressed="true" disabled>15</button>' in page
    assert "The match is now played to 15." in page


def test_a_target_switch_before_any_deal_starts_the_match(client: FlaskClient) -> None:
    press(client, "/settings", target="7")
    assert client.get("/api/matches/current").json["target"] == 7


def test_a_switch_that_would_end_the_match_is_explained_and_changes_nothing(
    client: FlaskClient,
) -> None:
    for _ in range(3):
        tap(client, 2, "schwarz")
    response = press(client, "/settings", target="7")
    assert response.status_code == 409
    assert "Player 2 already has 9 game points, so a target of 7 would end the match at once." in (
        text_of(response)
    )
    assert client.get("/api/matches/current").json["target"] == 11


def test_raising_the_target_of_a_finished_match_asks_to_play_on(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, match["id"], player=1, target=7)
    response = press(client, "/settings", target="11")
    page = text_of(response)
    assert "Ivan has already won 9:0. Playing on to 11 takes that win back" in page
    assert '<button class="primary">Play on to 11</button>' in page
    assert client.get("/api/matches/current").json["winner"] == 1


def test_playing_on_reopens_a_finished_match(client: FlaskClient) -> None:
    match = api_start(client, target=7)
    win_match(client, match["id"], player=1, target=7)
    press(client, "/settings", target="11", confirmed="1")
    page = text_of(client.get("/"))
    assert '<section class="result" aria-labelledby="result-heading" hidden>' in page
    assert '<section class="record" aria-labelledby="record-heading" >' in page
    assert tap(client, 2, "normal").status_code == 302


def test_players_are_named_from_the_page(client: FlaskClient) -> None:
    press(client, "/settings", player1="  Иван ", player2="")
    assert card_names(text_of(client.get("/"))) == ["Иван", "Player 2"]


@pytest.mark.parametrize(
    ("fields", "status", "message"),
    [
        ({"player": "3", "outcome": "normal"}, 422, "The player must be 1 or 2"),
        ({"player": "1", "outcome": "kapo"}, 422, "Unknown outcome"),
        ({"player": "", "outcome": "normal"}, 422, "Say which player receives the points"),
        ({"outcome": "normal"}, 422, "Say which player receives the points"),
    ],
)
def test_a_bad_tap_shows_the_page_again_and_stores_nothing(
    client: FlaskClient, fields: dict[str, str], status: int, message: str
) -> None:
    response = submit(client, "/deals", match_id="", **fields)
    assert response.status_code == status
    assert message in text_of(response)
    assert client.get("/api/matches").json["matches"] == []


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"target": "10"}, "7, 11 or 15"),
        ({"target": "eleven"}, "7, 11 or 15"),
        ({"player1": "x" * 41, "player2": "Maria"}, "keep it to 40"),
        ({"player1": "Ivan", "player2": " ivan "}, "different names"),
    ],
)
def test_bad_settings_show_the_page_again_and_change_nothing(
    client: FlaskClient, fields: dict[str, str], message: str
) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    response = press(client, "/settings", **fields)
    assert response.status_code == 422
    assert message in text_of(response)
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_settings_without_anything_to_change_are_400(client: FlaskClient) -> None:
    response = press(client, "/settings")
    assert response.status_code == 400
    assert "Choose a target" in text_of(response)


@pytest.mark.parametrize("match_id", ["abc", "0", "99999999999", "12"])
def test_a_form_naming_an_unknown_match_is_404(client: FlaskClient, match_id: str) -> None:
    api_start(client)
    response = submit(client, "/deals", match_id=match_id, player="1", outcome="normal")
    assert response.status_code == 404
    assert len(client.get("/api/matches/current").json["deals"]) == 0


def test_history_lists_matches_newest_first(client: FlaskClient) -> None:
    first = api_start(client, target=7, players=["Ivan", "Maria"])
    win_match(client, first["id"], player=2, target=7)
    api_start(client)
    page = text_of(client.get("/matches"))
    assert page.index("Unfinished, 0:0") < page.index("Maria won 9:0")
    assert "to 7 · 3 deals" in page
    assert f'href="/matches/{first["id"]}"' in page


def test_history_is_paginated(client: FlaskClient) -> None:
    for _ in range(21):
        api_start(client)
    first = text_of(client.get("/matches"))
    assert "Page 1 of 2" in first
    assert 'href="/matches?page=2"' in first
    assert text_of(client.get("/matches?page=2")).count("Unfinished") == 1


@pytest.mark.parametrize(
    ("page", "status"), [("9", 404), ("x", 400), ("0", 404), ("9" * 5000, 400)]
)
def test_history_refuses_pages_that_do_not_exist(
    client: FlaskClient, page: str, status: int
) -> None:
    assert client.get(f"/matches?page={page}").status_code == status


def test_an_empty_history_points_to_the_counter(client: FlaskClient) -> None:
    assert "No matches yet." in text_of(client.get("/matches"))


def test_a_past_match_shows_every_deal(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "normal"), (2, "schwarz"), (2, "schwarz"), (2, "normal"))
    page = text_of(client.get(f"/matches/{match['id']}"))
    assert "Maria won 7:1" in page
    assert page.count("<tr>") == 5  # header and four deals
    assert "finished" in page


def test_an_unknown_match_page_is_404(client: FlaskClient) -> None:
    response = client.get("/matches/41")
    assert response.status_code == 404
    assert "There is no match 41 in this browser." in text_of(response)


def test_the_rules_page_explains_every_outcome(client: FlaskClient) -> None:
    page = text_of(client.get("/rules"))
    for name in ["Win", "Schneider", "Schwarz", "Failed close", "Wrong 66", "33"]:
        assert name in page


def test_names_are_escaped_on_every_page(client: FlaskClient) -> None:
    match = api_start(client, players=["<script>alert(1)</script>", "Maria"])
    api_play(client, match["id"], (1, "normal"))
    for path in ("/", "/matches", f"/matches/{match['id']}"):
        page = text_of(client.get(path))
        assert "<script>alert(1)</script>" not in page
        assert "&lt;script&gt;" in page


def test_unknown_pages_are_a_friendly_404(client: FlaskClient) -> None:
    response = client.get("/nowhere")
    assert response.status_code == 404
    assert "There is nothing at this address." in text_of(response)


def test_a_double_tap_on_undo_takes_back_one_deal(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    tap(client, 2, "schwarz")
    form = {**page_form(client), "deal_number": "2"}
    assert client.post("/undo", data=form).status_code == 302
    again = client.post("/undo", data=form)
    assert again.status_code == 409
    assert "Deal 2 is no longer the last one; nothing was undone." in text_of(again)
    assert scores_on(text_of(client.get("/"))) == ["1", "0"]


def test_a_double_tap_on_new_match_starts_one_match(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    form = {**page_form(client), "target": "11", "confirmed": "1"}
    client.post("/new", data=form)
    client.post("/new", data=form)
    assert len(client.get("/api/matches").json["matches"]) == 2
    assert "This new match was started already; here it is." in text_of(client.get("/"))


@pytest.mark.parametrize(
    ("address", "noted"),
    [
        ("http://192.168.1.5:5000", True),  # the computer's address on the home Wi-Fi
        ("http://santase-pc.local:5000", True),
        ("http://[fe80::1]:5000", True),
        ("http://localhost:5000", False),  # this computer itself: a secure context
        ("http://127.0.0.1:5000", False),
        ("http://[::1]:5000", False),
        ("http://counter.localhost", False),
        ("https://santase.example.org", False),
    ],
)
def test_what_needs_https_is_noted_only_where_the_page_is_plain_http(
    client: FlaskClient, address: str, noted: bool
) -> None:
    page = client.get("/", base_url=address).get_data(as_text=True)
    assert ("data-plain-http" in page) is noted


def test_the_footer_switches_lead_back_to_the_counter_from_a_refused_form(
    client: FlaskClient,
) -> None:
    """The address a form was posted to answers only POST: a switch there would be a 405."""
    page = tap(client, 3, "normal").get_data(as_text=True)
    assert 'name="next" value="/deals"' not in page
    assert page.count('name="next" value="/"') == 2  # the language and the display switches


def test_a_deal_form_without_its_player_asks_who_receives_the_points(
    client: FlaskClient,
) -> None:
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    answer = client.post(
        "/deals", data={"csrf_token": token.group(1), "outcome": "normal", "player": ""}
    )
    assert answer.status_code == 422
    assert "Say which player receives the points" in answer.get_data(as_text=True)

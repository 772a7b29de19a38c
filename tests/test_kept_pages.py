"""The counter's page is rendered once for what it shows and kept: a reload, or another
phone showing the same match, gets the same page with its own token and ids in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask, template_rendered
from flask.testing import FlaskClient
from test_devices import make_link

from counter.services import matches

from helpers import api_deal, api_start, page_field, page_form, same_browser, submit, win_match


@contextmanager
def renders(app: Flask) -> Iterator[list[str]]:
    """The templates rendered meanwhile, by name."""
    names: list[str] = []

    def rendered(_app: Flask, template: object, **_context: object) -> None:
        names.append(getattr(template, "name", ""))

    template_rendered.connect(rendered, app)
    try:
        yield names
    finally:
        template_rendered.disconnect(rendered, app)


def page(client: FlaskClient) -> str:
    answer = client.get("/")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def test_a_reload_of_the_same_match_is_not_rendered_again(app: Flask, client: FlaskClient) -> None:
    api_start(client, players=["Ana", "Boris"])
    first = page(client)
    with renders(app) as rendered:
        again = page(client)
    assert rendered == []
    assert again.replace(page_field(again, "request_id"), "") == first.replace(
        page_field(first, "request_id"), ""
    ).replace(page_field(first, "uid"), page_field(again, "uid"))


def test_each_page_gets_its_own_request_id_and_new_match_uid(client: FlaskClient) -> None:
    api_start(client, players=["Ana", "Boris"])
    first, again = page_form(client), page_form(client)
    assert first["request_id"] != again["request_id"]
    assert first["uid"] != again["uid"]
    assert first["match_id"] == again["match_id"]


def test_another_phone_showing_the_same_match_gets_its_own_csrf_token(
    app: Flask, client: FlaskClient, other_client: FlaskClient
) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    match = api_start(client, players=["Ana", "Boris"])
    link = make_link(client)
    assert submit(other_client, link).status_code == 302  # the other phone joins
    mine, theirs = page(client), page(other_client)
    assert "Boris" in theirs
    assert page_field(mine, "csrf_token") != page_field(theirs, "csrf_token")
    # The other phone's token is its own: its form is taken, and the deal counted.
    taken = other_client.post(
        "/deals",
        data={
            "csrf_token": page_field(theirs, "csrf_token"),
            "match_id": str(match["id"]),
            "player": "1",
            "outcome": "normal",
        },
    )
    assert taken.status_code == 302
    assert client.get(f"/api/matches/{match['id']}").json["players"][0]["score"] == 1


def test_a_change_of_the_match_renders_the_page_anew(app: Flask, client: FlaskClient) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    page(client)
    api_deal(client, match["id"], 2, "schwarz")
    with renders(app) as rendered:
        shown = page(client)
    assert "home.html" in rendered
    assert "0:3" in shown


def test_the_other_language_is_another_page(client: FlaskClient) -> None:
    api_start(client, players=["Ana", "Boris"])
    client.set_cookie("lang", "en")
    english = page(client)
    client.set_cookie("lang", "bg")
    bulgarian = page(client)
    assert 'lang="en"' in english
    assert 'lang="bg"' in bulgarian


def test_a_message_shows_once_and_is_not_kept(client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    api_start(client, players=["Ana", "Boris"])
    submit(client, "/settings", player1="Ana", player2="Vera")
    assert "Names saved" in page(client)
    assert "Names saved" not in page(client)


def test_a_name_that_looks_like_a_marker_is_shown_as_typed(client: FlaskClient) -> None:
    api_start(client, players=["<csrf>", "<request-id>"])
    shown = page(client)
    assert "&lt;csrf&gt;" in shown
    assert "&lt;request-id&gt;" in shown
    assert "<csrf>" not in shown
    assert "<request-id>" not in shown


def test_two_browsers_with_one_key_share_the_kept_page(app: Flask, client: FlaskClient) -> None:
    api_start(client, players=["Ana", "Boris"])
    page(client)
    with renders(app) as rendered:
        shown = page(same_browser(app, client))
    assert rendered == []
    assert "Boris" in shown


def test_a_corrected_deal_renders_the_page_anew(client: FlaskClient) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    api_deal(client, match["id"], 1, "normal")
    assert "1:0" in page(client)
    corrected = client.patch(f"/api/matches/{match['id']}/deals/1", json={"outcome": "schwarz"})
    assert corrected.status_code == 200
    assert "3:0" in page(client)


def test_a_deal_undone_and_recorded_again_alike_renders_the_page_anew(
    client: FlaskClient,
) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    api_deal(client, match["id"], 1, "normal", request_id="first-tap")
    assert "first-tap" in page(client)
    client.delete(f"/api/matches/{match['id']}/deals/last")
    api_deal(client, match["id"], 1, "normal", request_id="second-tap")
    shown = page(client)
    assert "second-tap" in shown
    assert "first-tap" not in shown


def test_games_won_before_the_match_change_its_page(client: FlaskClient) -> None:
    client.set_cookie("lang", "en")
    first = api_start(client, players=["Ana", "Boris"])
    win_match(client, first["id"])
    api_start(client, players=["Ana", "Boris"])
    assert '"games":1' in page(client)
    assert client.delete(f"/api/matches/{first['id']}").status_code in (200, 204)
    assert '"games":1' not in page(client)


def test_a_browser_without_a_match_never_gets_another_browsers_page(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    blank = page(other_client)
    api_start(client, players=["Zlatomira", "Boris"])
    assert "Zlatomira" in page(client)
    assert "Zlatomira" not in page(other_client)
    assert page(other_client).count("Boris") == blank.count("Boris")


def test_a_page_kept_shows_the_match_as_its_version_read_it(
    app: Flask, client: FlaskClient, other_client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another phone's change lands between the read of the version and the read of the
    match: the page kept under that version must not show the change (it would be
    served again once the version comes back)."""
    first = api_start(client, players=["Ana", "Boris"])
    win_match(client, first["id"])
    api_start(client, players=["Ana", "Boris"])
    assert submit(other_client, make_link(client)).status_code == 302  # another phone
    real = matches.get_match

    def meanwhile(**asked: Any) -> Any:
        monkeypatch.setattr(matches, "get_match", real)
        with app.app_context():  # the other phone's request: its own session and connection
            undo = other_client.delete(f"/api/matches/{first['id']}/deals/last")
            assert undo.status_code == 200
        return real(**asked)

    monkeypatch.setattr(matches, "get_match", meanwhile)
    app.extensions["kept_pages"].clear()  # the link's page was kept: render this one
    page(client)  # its version: Ana won a game before this match
    again = api_deal(other_client, first["id"], 1, "schwarz")
    assert again.status_code == 201, again.json  # won again
    assert re.findall(r'"games":(\d)', page(client)) == ["1", "0"]


def test_a_reload_of_the_history_is_not_rendered_again(app: Flask, client: FlaskClient) -> None:
    api_start(client, players=["Ana", "Boris"])
    first = client.get("/matches").get_data(as_text=True)
    with renders(app) as rendered:
        again = client.get("/matches").get_data(as_text=True)
    assert rendered == []
    assert again == first


def test_a_deal_renders_the_history_anew(app: Flask, client: FlaskClient) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    client.get("/matches")
    api_deal(client, match["id"], 1, "schwarz")
    with renders(app) as rendered:
        again = client.get("/matches").get_data(as_text=True)
    assert "history.html" in rendered
    assert "3:0" in again


def test_another_browser_never_gets_this_browser_s_history(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    api_start(client, players=["Zlatomira", "Boris"])
    assert "Zlatomira" in client.get("/matches").get_data(as_text=True)
    assert "Zlatomira" not in other_client.get("/matches").get_data(as_text=True)

"""Several phones on one key: each keeps its own match, and the same deal tapped on two
phones is never counted twice unasked."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, submit, tap


@pytest.fixture
def two_phones(app: Flask, client: FlaskClient) -> tuple[FlaskClient, FlaskClient]:
    """Phone A, and phone C that continued A's matches with a one-time link."""
    api_start(client)  # A has a key
    page = submit(client, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    other = app.test_client()
    assert submit(other, link.group(1)).status_code == 302
    return client, other


def test_a_phone_keeps_its_match_while_another_starts_one(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    ours = api_start(a, players=["Ana", "Boris"])
    api_play(a, ours["id"], (1, "normal"), (2, "schneider"))
    theirs = api_start(c, players=["Vera", "Gosho"])
    api_play(c, theirs["id"], (1, "normal"))
    assert a.get("/api/matches/current").json["id"] == ours["id"]
    assert c.get("/api/matches/current").json["id"] == theirs["id"]


def test_the_counter_page_of_a_phone_keeps_its_match_too(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    ours = api_start(a, players=["Ana", "Boris"])
    api_start(c, players=["Vera", "Gosho"])
    tap(c, 1, "normal")
    page = a.get("/").get_data(as_text=True)
    assert f'name="match_id" value="{ours["id"]}"' in page
    assert "Vera" not in page


def test_a_phone_without_a_match_of_its_own_shows_the_one_played_last(
    app: Flask, two_phones: tuple[FlaskClient, FlaskClient]
) -> None:
    a, _c = two_phones
    latest = api_start(a, players=["Ana", "Boris"])
    page = submit(a, "/device-link").get_data(as_text=True)
    link = re.search(r'href="http://localhost(/continue/[^"]+)"', page)
    assert link
    newcomer = app.test_client()
    submit(newcomer, link.group(1))
    assert newcomer.get("/api/matches/current").json["id"] == latest["id"]


def test_a_deal_that_follows_the_match_as_it_is_is_recorded(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"))
    assert api_deal(client, match["id"], 2, "normal", after=1).status_code == 201


def test_a_deal_after_another_phone_recorded_one_is_refused_with_the_match(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    match = api_start(a)
    assert api_deal(c, match["id"], 1, "schneider", after=0, request_id="c-1").status_code == 201
    answer = api_deal(a, match["id"], 1, "schneider", after=0, request_id="a-1")
    assert answer.status_code == 409
    assert "Another phone changed this match" in answer.json["error"]
    assert [deal["request_id"] for deal in answer.json["match"]["deals"]] == ["c-1"]
    assert len(a.get(f"/api/matches/{match['id']}").json["deals"]) == 1


def test_the_question_names_the_other_phones_deal_and_this_ones(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    """So that the player can compare them: two results tapped a second apart are most
    often one deal seen two ways."""
    a, c = two_phones
    match = api_start(a, players=["Ana", "Boris"])
    api_deal(c, match["id"], 1, "normal", after=0)
    answer = api_deal(a, match["id"], 1, "normal", after=0)
    assert answer.json["ask"]["question"] == (
        "Another phone recorded deal 1: +1 Ana · Win. Yours: +1 Ana · Win. Same deal?"
    )


def test_two_phones_that_disagree_are_asked_which_result_is_right(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    """One says Ana +1, the other Boris +1: the question offers this phone's result as the
    right one, a correction of the other phone's deal, which it names by number."""
    a, c = two_phones
    match = api_start(a, players=["Ana", "Boris"])
    api_deal(c, match["id"], 1, "normal", after=0)
    ask = api_deal(a, match["id"], 2, "normal", after=0).json["ask"]
    assert ask == {
        "question": "Another phone recorded deal 1: +1 Ana · Win. This phone: +1 Boris · Win. "
        "Which is right?",
        "same": "The other phone's",
        "mine": "Mine",
        "add": "Both: two deals",
        "deal": 1,
    }


def won_by_c(a: FlaskClient, c: FlaskClient) -> int:
    """A match to 7 that C's third deal won for Ana, before A's result for that deal came."""
    match = api_start(a, players=["Ana", "Boris"], target=7)
    for after, outcome in enumerate(["schwarz", "schwarz", "normal"]):
        api_deal(c, match["id"], 1, outcome, after=after)
    return int(match["id"])


def test_a_deal_that_missed_the_winning_deal_is_asked_about_without_adding_it(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    """The other phone's deal won the match; this phone's result for it may be the right one."""
    a, c = two_phones
    answer = api_deal(a, won_by_c(a, c), 2, "normal", after=2)
    assert answer.status_code == 409
    assert set(answer.json["ask"]) == {"question", "same", "mine", "deal"}
    assert answer.json["ask"]["deal"] == 3


def test_mine_takes_back_the_other_phones_winning_deal(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    mine = a.patch(
        f"/api/matches/{won_by_c(a, c)}/deals/3", json={"player": 2, "outcome": "normal"}
    )
    assert (mine.json["winner"], [p["score"] for p in mine.json["players"]]) == (None, [6, 1])


def test_a_phone_that_missed_several_deals_is_not_offered_to_correct_one(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    match = api_start(a)
    api_deal(c, match["id"], 1, "normal", after=0)
    api_deal(c, match["id"], 1, "normal", after=1)
    ask = api_deal(a, match["id"], 2, "normal", after=0).json["ask"]
    assert set(ask) == {"question", "same", "add"}


def test_adding_mine_too_is_a_deal_that_follows_what_the_phone_now_knows(
    two_phones: tuple[FlaskClient, FlaskClient],
) -> None:
    a, c = two_phones
    match = api_start(a)
    api_deal(c, match["id"], 1, "schneider", after=0)
    api_deal(a, match["id"], 1, "schneider", after=0, request_id="a-1")
    again = api_deal(a, match["id"], 1, "schneider", after=1, request_id="a-1")
    assert again.status_code == 201
    assert [player["score"] for player in again.json["players"]] == [4, 0]


def test_a_deal_after_another_phone_undid_one_is_refused_too(client: FlaskClient) -> None:
    match = api_start(client)
    api_play(client, match["id"], (1, "normal"), (2, "normal"))
    client.delete(f"/api/matches/{match['id']}/deals/last")
    assert api_deal(client, match["id"], 1, "normal", after=2).status_code == 409


def test_a_retried_deal_counts_once_whatever_it_followed(client: FlaskClient) -> None:
    match = api_start(client)
    first = api_deal(client, match["id"], 1, "normal", after=0, request_id="tap-1")
    again = api_deal(client, match["id"], 1, "normal", after=0, request_id="tap-1")
    assert (first.status_code, again.status_code) == (201, 200)


@pytest.mark.parametrize("after", [-1, 1.5, "2", True, 301])
def test_after_is_a_count_of_deals(client: FlaskClient, after: object) -> None:
    match = api_start(client)
    answer = api_deal(client, match["id"], 1, "normal", after=after)
    assert answer.status_code == 422
    assert "after is the number of deals" in answer.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json["deals"] == []

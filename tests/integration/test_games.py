"""A match of each game of the 66 family through the API, the pages and the export: its
game is kept, shown and carried, and its series counts what its players count."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from counter.game.scoring import GameName
from counter.services import matches

from helpers import api_play, api_start, key_of, press, tap, win_match


def bummerl(
    client: FlaskClient, winner: int, loser_points: int = 1, session: str = "one"
) -> dict[str, Any]:
    """A Schnapsen match won by ``winner``, the loser having made ``loser_points`` (0: none),
    played as one Bummerl or as one of a best of three (``session``)."""
    match = api_start(
        client, game="schnapsen", players=["Sepp", "Resi"], rules={"session": session}
    )
    deals = [(3 - winner, "normal")] * loser_points + [(winner, "schwarz")] * 2
    return api_play(client, match["id"], *deals, (winner, "normal"))


def test_a_match_is_santase_unless_another_game_is_chosen(client: FlaskClient) -> None:
    match = api_start(client)
    assert (match["game"], match["target"]) == ("santase", 11)


@pytest.mark.parametrize(("game", "target"), [("sixty_six", 7), ("schnapsen", 7)])
def test_a_game_chosen_at_the_start_brings_its_target(
    client: FlaskClient, game: str, target: int
) -> None:
    match = api_start(client, game=game)
    assert (match["game"], match["target"]) == (game, target)


def test_a_new_match_keeps_the_game_of_the_last(client: FlaskClient) -> None:
    api_start(client, game="schnapsen")
    assert api_start(client)["game"] == "schnapsen"


def test_the_service_starts_a_match_of_a_game(app: Flask) -> None:
    """The keyword other use cases start a match with."""
    with app.test_request_context():
        match, started = matches.start_match(owner="a-key", game=GameName.SCHNAPSEN)
    assert (started, match.game.name) == (True, GameName.SCHNAPSEN)


@pytest.mark.parametrize(
    "body",
    [
        {"game": "schnapsen", "target": 11},
        {"game": "schnapsen", "rules": {"next_dealer": "winner"}},
        {"game": "santase", "rules": {"shutout": "twice"}},
        {"game": "sixty_six", "rules": {"session": "best_of_three"}},
        {"game": "bridge"},
    ],
)
def test_a_start_the_game_is_not_played_so_is_refused(
    client: FlaskClient, body: dict[str, Any]
) -> None:
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 422
    assert client.get("/api/matches").json["matches"] == []


def test_the_game_changes_only_before_the_first_deal(client: FlaskClient) -> None:
    match = api_start(client)
    changed = client.patch(f"/api/matches/{match['id']}", json={"game": "schnapsen"}).json
    assert (changed["game"], changed["target"], changed["rules"]["shutout"]) == (
        "schnapsen",
        7,
        "twice",
    )
    api_play(client, match["id"], (1, "normal"))
    refused = client.patch(f"/api/matches/{match['id']}", json={"game": "santase"})
    assert refused.status_code == 409
    assert client.get(f"/api/matches/{match['id']}").json["game"] == "schnapsen"


def test_schnapsen_ends_when_a_player_has_made_7(client: FlaskClient) -> None:
    match = bummerl(client, winner=1)
    assert (match["winner"], match["marks"]) == (1, 1)
    assert [player["score"] for player in match["players"]] == [7, 1]


def test_the_loser_gets_the_bummerl_and_a_schneider_bummerl_counts_2(client: FlaskClient) -> None:
    bummerl(client, winner=1, loser_points=1)  # Resi has the Bummerl
    last = bummerl(client, winner=2, loser_points=0)  # Sepp never scored: Schneider-Bummerl
    assert last["marks"] == 2
    assert [player["games"] for player in last["players"]] == [2, 1]


def test_a_bummerl_tally_is_not_counted_with_santase_games(client: FlaskClient) -> None:
    santase = api_start(client, players=["Sepp", "Resi"])
    win_match(client, santase["id"], player=1)
    match = bummerl(client, winner=1)
    assert [player["games"] for player in match["players"]] == [0, 1]
    santase_again = api_start(client, game="santase", players=["Sepp", "Resi"])
    assert [player["games"] for player in santase_again["players"]] == [1, 0]


def test_the_counter_counts_schnapsen_down_from_7(client: FlaskClient) -> None:
    match = api_start(client, game="schnapsen", players=["Sepp", "Resi"])
    api_play(client, match["id"], (1, "schneider"))
    page = client.get("/").get_data(as_text=True)
    assert "<span data-score>5</span>" in page
    assert "<span data-score>7</span>" in page
    assert "Bummerl:" in page


def test_the_history_and_the_statistics_name_the_game(client: FlaskClient) -> None:
    bummerl(client, winner=1, loser_points=0)
    assert "Schnapsen" in client.get("/matches").get_data(as_text=True)
    statistics = client.get("/statistics").get_data(as_text=True)
    assert "Bummerl got" in statistics
    assert "1 Bummerl played" in statistics


def test_the_export_carries_the_game_and_the_import_keeps_it(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    bummerl(client, winner=1)
    exported = client.get("/api/export").get_data(as_text=True)
    assert json.loads(exported)["matches"][0]["game"] == "schnapsen"
    answer = other_client.post(
        "/api/import", data=exported, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code in (200, 201), answer.json
    imported = other_client.get("/api/matches").json["matches"][0]
    assert (imported["game"], imported["marks"]) == ("schnapsen", 1)


def test_an_export_from_before_games_is_read_as_its_rules_say(client: FlaskClient) -> None:
    old_sixty_six = {
        "failed_close": "by_tricks",
        "wrong_claim": "by_tricks",
        "next_dealer": "winner",
        "ties": "no_points",
    }
    document = {
        "format": "santase-counter",
        "version": 2,
        "exported_at": "2026-11-01T20:00:00Z",
        "matches": [
            {
                "uid": "1" * 32,
                "target": 7,
                "players": ["Ana", "Boris"],
                "rules": old_sixty_six,
                "first_dealer": 1,
                "created_at": "2026-11-01T19:00:00Z",
                "deals": [],
            }
        ],
    }
    answer = client.post("/api/import", json=document)
    assert answer.status_code in (200, 201), answer.json
    assert client.get("/api/matches").json["matches"][0]["game"] == "sixty_six"


def test_a_new_match_of_another_game_from_the_form(client: FlaskClient) -> None:
    api_start(client)
    press(client, "/new", game="schnapsen", target="11", confirmed="1")
    assert key_of(client) is not None
    match = client.get("/api/matches/current").json
    assert (match["game"], match["target"]) == ("schnapsen", 7)


def test_the_statistics_count_bummerl_sessions_of_best_of_three(client: FlaskClient) -> None:
    bummerl(client, winner=1, session="best_of_three")
    bummerl(client, winner=2)  # one Bummerl on its own: not part of a best of three
    bummerl(client, winner=2, session="best_of_three")
    bummerl(client, winner=1, session="best_of_three")  # Sepp wins the first best of three, 2:1
    bummerl(client, winner=2, session="best_of_three")
    page = client.get("/statistics").get_data(as_text=True)
    row = page[page.index("Best of three won") :].split("</tr>")[0]
    assert '<td class="num">1</td><td class="num">0</td>' in row


def test_a_schnapsen_match_is_one_bummerl_unless_best_of_three_is_chosen(
    client: FlaskClient,
) -> None:
    match = api_start(client, game="schnapsen")
    assert (match["rules"]["session"], match["session"]) == ("one", None)
    changed = client.patch(
        f"/api/matches/{match['id']}", json={"rules": {"session": "best_of_three"}}
    )
    assert (changed.json["rules"]["session"], changed.json["session"]) == ("best_of_three", [0, 0])


# Each Bummerl of a best of three, its winner, and the standing the match shows once won.
BEST_OF_THREE = [
    ([1], [1, 0]),
    ([1, 2], [1, 1]),
    ([1, 2, 1], [2, 1]),
    ([2, 2], [0, 2]),
    ([1, 1, 2], [0, 1]),  # Sepp took the first 2:0; the next best of three starts at 0:0
]


@pytest.mark.parametrize(("winners", "session"), BEST_OF_THREE)
def test_a_best_of_three_stands_as_its_bummerl_in_order(
    client: FlaskClient, winners: list[int], session: list[int]
) -> None:
    for winner in winners:
        last = bummerl(client, winner=winner, session="best_of_three")
    assert last["session"] == session


def test_the_counter_says_who_won_the_best_of_three(client: FlaskClient) -> None:
    bummerl(client, winner=1, session="best_of_three")
    during = api_start(client, game="schnapsen", players=["Sepp", "Resi"])
    assert during["session"] == [1, 0]  # a new match keeps the choice, and the best of three
    assert "Best of three: Sepp 1, Resi 0" in client.get("/").get_data(as_text=True)
    api_play(client, during["id"], (1, "schwarz"), (1, "schwarz"), (1, "normal"))
    assert "Sepp won the best of three 2:0" in client.get("/").get_data(as_text=True)
    assert api_start(client)["session"] == [0, 0]


def test_a_match_played_as_one_shows_no_best_of_three(client: FlaskClient) -> None:
    bummerl(client, winner=1)
    page = client.get("/").get_data(as_text=True)
    assert '<p class="session" data-session hidden></p>' in page


def test_the_export_carries_best_of_three_and_the_import_keeps_it(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    bummerl(client, winner=1, session="best_of_three")
    exported = client.get("/api/export").get_data(as_text=True)
    assert json.loads(exported)["matches"][0]["rules"]["session"] == "best_of_three"
    answer = other_client.post(
        "/api/import", data=exported, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code in (200, 201), answer.json
    imported = other_client.get("/api/matches").json["matches"][0]
    assert imported["rules"]["session"] == "best_of_three"
    following = api_start(other_client, game="schnapsen", players=["Sepp", "Resi"])
    assert following["session"] == [1, 0]


@pytest.mark.parametrize(
    ("outcome", "words"),
    [
        ("normal", "+1 Sepp · Einfach"),
        ("failed_close", "+2 Sepp · Gegner: Zudrehen verfehlt"),
        ("wrong_claim", "+2 Sepp · Gegner: falsch abgemeldet"),
        ("wrong_claim_no_trick", "+3 Sepp · Gegner: falsch abgemeldet, ohne Stich"),
    ],
)
def test_a_schnapsen_deal_is_confirmed_and_listed_in_austrian_words(
    client: FlaskClient, outcome: str, words: str
) -> None:
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de-AT"
    api_start(client, game="schnapsen", players=["Sepp", "Resi"])
    assert tap(client, 1, outcome).status_code == 302
    page = client.get("/").get_data(as_text=True)
    assert words in page  # the confirmation line
    kind = words.split(" · ")[1]
    assert f"<td>{kind}</td>" in page  # the deal list
    statistics = client.get("/statistics").get_data(as_text=True)
    assert f'<th scope="row">{kind}</th>' in statistics


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["Session", "best of three", "preisschnapsen.at"]),
        ("de", ["Gespielt wird", "zwei aus drei", "preisschnapsen.at"]),
        ("bg", ["Играе се", "две от три", "preisschnapsen.at"]),
    ],
)
def test_the_schnapsen_rules_page_credits_best_of_three_and_the_variants(
    client: FlaskClient, language: str, words: list[str]
) -> None:
    page = client.get("/rules/schnapsen", headers={"Accept-Language": language})
    text = page.get_data(as_text=True)
    for word in words:
        assert word in text
    assert text.count("schnopsn.com") >= 3


@pytest.mark.parametrize(
    ("game", "rules"), [("santase", "/rules"), ("schnapsen", "/rules/schnapsen")]
)
def test_the_menus_rules_are_the_rules_of_the_game_on_the_counter(
    client: FlaskClient, game: str, rules: str
) -> None:
    api_start(client, game=game)
    page = client.get("/").get_data(as_text=True)
    assert f'href="{rules}"' in page  # the buttons' hint links to a part of it: {rules}#…

"""House rules per match, and who deals: through the API and the pages."""

from __future__ import annotations

from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, page_form, press, tap


def test_a_match_starts_with_the_default_rules_and_player_1_dealing(client: FlaskClient) -> None:
    match = api_start(client)
    assert match["rules"] == {
        "failed_close": "by_tricks",
        "wrong_claim": "always_2",
        "next_dealer": "winner",
        "ties": "not_recorded",
        "shutout": "once",
        "session": "one",
    }
    assert match["game"] == "santase"
    assert (match["first_dealer"], match["dealer"], match["leader"]) == (1, 1, 2)


def test_a_match_takes_its_rules_and_first_dealer(client: FlaskClient) -> None:
    match = api_start(client, rules={"failed_close": "always_3"}, first_dealer=2)
    assert match["rules"]["failed_close"] == "always_3"
    assert match["dealer"] == 2
    played = api_play(client, match["id"], (1, "failed_close"))
    assert played["deals"][0]["points"] == 3


def test_a_new_match_takes_the_browsers_last_choice(client: FlaskClient) -> None:
    api_start(client, rules={"wrong_claim": "by_tricks", "next_dealer": "alternate"})
    assert api_start(client)["rules"] == {
        "failed_close": "by_tricks",
        "wrong_claim": "by_tricks",
        "next_dealer": "alternate",
        "ties": "not_recorded",
        "shutout": "once",
        "session": "one",
    }


def test_changed_rules_count_from_the_next_deal(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (1, "failed_close"))
    changed = client.patch(
        f"/api/matches/{match['id']}", json={"rules": {"failed_close": "always_3"}}
    ).json
    assert changed["deals"][0]["points"] == 2  # kept as recorded
    later = api_play(client, match["id"], (2, "failed_close"))
    assert [d["points"] for d in later["deals"]] == [2, 3]


def test_the_winner_deals_next_by_default(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (2, "normal"), (1, "normal"))
    assert [d["dealer"] for d in match["deals"]] == [1, 2]
    assert (match["dealer"], match["leader"]) == (1, 2)


def test_players_deal_in_turn_when_the_rule_says_so(client: FlaskClient) -> None:
    start = api_start(client, rules={"next_dealer": "alternate"})
    match = api_play(client, start["id"], (2, "normal"), (2, "normal"))
    assert [d["dealer"] for d in match["deals"]] == [1, 2]
    assert match["dealer"] == 1


def test_the_dealer_follows_undo_and_corrections(client: FlaskClient) -> None:
    match = api_play(client, api_start(client)["id"], (2, "normal"), (2, "normal"))
    assert match["dealer"] == 2
    fixed = client.patch(f"/api/matches/{match['id']}/deals/2", json={"player": 1}).json
    assert fixed["dealer"] == 1
    undone = client.delete(f"/api/matches/{match['id']}/deals/last").json
    assert undone["dealer"] == 2


def test_bad_rules_are_refused_and_change_nothing(client: FlaskClient) -> None:
    match = api_start(client)
    response = client.patch(f"/api/matches/{match['id']}", json={"rules": {"ties": True}})
    assert response.status_code == 422
    assert client.get(f"/api/matches/{match['id']}").json == match
    assert client.post("/api/matches", json={"first_dealer": 3}).status_code == 422


NO_TRICK_CLAIM = 'value="wrong_claim_no_trick" class="deal"'


def test_the_wrong_claim_no_trick_button_appears_with_its_rule(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    assert f"{NO_TRICK_CLAIM} hidden>" in client.get("/").get_data(as_text=True)
    press(client, "/settings", wrong_claim="by_tricks")
    page = client.get("/").get_data(as_text=True)
    assert f"{NO_TRICK_CLAIM}>" in page
    assert "House rules saved (" in page
    assert "Wrong 66: 2 (3 if the opponent had no trick)" in page
    assert "They count from the next deal; the deals recorded keep their points." in page
    match = client.get("/api/matches/current").json
    assert api_deal(client, match["id"], 2, "wrong_claim_no_trick").json["deals"][-1]["points"] == 3


def test_the_page_marks_who_deals_and_who_leads(client: FlaskClient) -> None:
    tap(client, 2, "normal")
    page = client.get("/").get_data(as_text=True)
    seat1, seat2 = (page.split(f'data-seat="{seat}"')[1].split("</div>")[0] for seat in (1, 2))
    assert '<span class="turn" data-deals >Deals next</span>' in seat2
    assert '<span class="turn" data-deals hidden>Deals next</span>' in seat1


def test_a_new_match_from_the_sixty_six_preset(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    press(client, "/new", preset="sixty_six", first_dealer="2", target="11", confirmed="1")
    match = client.get("/api/matches/current").json
    assert (match["target"], match["dealer"]) == (7, 2)
    assert match["rules"]["ties"] == "no_points"


def test_the_match_page_shows_its_house_rules(client: FlaskClient) -> None:
    match = api_start(client, rules={"failed_close": "always_2"})
    page = client.get(f"/matches/{match['id']}").get_data(as_text=True)
    assert "Failed close: always 2" in page


def test_sixty_six_can_be_picked_before_the_first_deal(client: FlaskClient) -> None:
    press(client, "/settings", preset="sixty_six", first_dealer="2")
    match = client.get("/api/matches/current").json
    assert (match["target"], match["dealer"], match["deals"]) == (7, 2, [])
    page = client.get("/").get_data(as_text=True)
    assert 'value="7" aria-pressed="true" disabled>7</button>' in page


def test_who_deals_first_is_fixed_once_a_deal_is_recorded(client: FlaskClient) -> None:
    match = api_start(client)
    assert client.patch(f"/api/matches/{match['id']}", json={"first_dealer": 2}).json["dealer"] == 2
    api_deal(client, match["id"], 1, "normal")
    refused = client.patch(f"/api/matches/{match['id']}", json={"first_dealer": 1})
    assert refused.status_code == 409
    assert "before the first deal" in refused.json["error"]


def test_a_tie_is_recorded_where_the_rules_say_so(client: FlaskClient) -> None:
    match = api_start(client, rules={"ties": "no_points"}, first_dealer=2)
    response = client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    assert response.status_code == 201
    deal = response.json["deals"][0]
    assert (deal["player"], deal["points"], deal["dealer"]) == (None, 0, 2)
    assert response.json["dealer"] == 2  # the same dealer deals again
    assert [p["score"] for p in response.json["players"]] == [0, 0]


def test_a_tie_is_refused_where_the_rules_do_not_record_it(client: FlaskClient) -> None:
    match = api_start(client)
    response = client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    assert response.status_code == 422
    assert "not recorded" in response.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json["deals"] == []


def test_the_tie_button_records_a_tie_from_the_page(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    assert '<form method="post" action="/deals" class="tie" data-action="deal" hidden>' in (
        client.get("/").get_data(as_text=True)
    )
    press(client, "/settings", ties="no_points")
    form = page_form(client)
    assert client.post("/deals", data={**form, "player": "", "outcome": "tie"}).status_code == 302
    page = client.get("/").get_data(as_text=True)
    assert '<p class="message"><span>±0 Tie</span></p>' in page
    assert '<form method="post" action="/deals" class="tie" data-action="deal" >' in page
    assert [d["outcome"] for d in client.get("/api/matches/current").json["deals"]] == [
        "normal",
        "tie",
    ]

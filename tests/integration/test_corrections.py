"""Correcting or deleting a past deal: totals, winner and games follow from the deals."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from helpers import api_play, api_start, page_field, page_form, press, tap


def played(client: FlaskClient, *deals: tuple[int, str], **settings: Any) -> dict[str, Any]:
    return api_play(client, api_start(client, **settings)["id"], *deals)


def test_a_past_deal_can_be_given_to_the_other_player(client: FlaskClient) -> None:
    match = played(client, (1, "normal"), (1, "schneider"), (2, "normal"))
    response = client.patch(f"/api/matches/{match['id']}/deals/2", json={"player": 2})
    assert response.status_code == 200
    assert [d["scores"] for d in response.json["deals"]] == [[1, 0], [1, 2], [1, 3]]
    assert [d["corrected"] for d in response.json["deals"]] == [False, True, False]


def test_a_corrected_outcome_brings_its_own_points(client: FlaskClient) -> None:
    match = played(client, (1, "normal"), (2, "normal"))
    fixed = client.patch(f"/api/matches/{match['id']}/deals/1", json={"outcome": "schwarz"}).json
    assert fixed["deals"][0]["points"] == 3
    assert [p["score"] for p in fixed["players"]] == [3, 1]


def test_a_correction_that_changes_nothing_is_not_marked(client: FlaskClient) -> None:
    match = played(client, (1, "normal"))
    same = client.patch(
        f"/api/matches/{match['id']}/deals/1", json={"player": 1, "outcome": "normal"}
    ).json
    assert same["deals"][0]["corrected"] is False


def test_a_correction_can_finish_the_match_with_its_last_deal(client: FlaskClient) -> None:
    match = played(client, (1, "schwarz"), (1, "schwarz"), (2, "normal"), target=7)
    fixed = client.patch(f"/api/matches/{match['id']}/deals/3", json={"player": 1}).json
    assert fixed["winner"] == 1
    assert fixed["finished_at"] == fixed["deals"][-1]["created_at"]
    assert fixed["players"][0]["games"] == 1


def test_a_correction_that_would_win_the_match_early_is_refused(client: FlaskClient) -> None:
    match = played(client, (1, "schwarz"), (1, "schwarz"), (2, "normal"), (2, "normal"), target=7)
    response = client.patch(f"/api/matches/{match['id']}/deals/3", json={"player": 1})
    assert response.status_code == 409
    assert "already be won at deal 3" in response.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_correcting_the_winning_deal_away_reopens_the_match(client: FlaskClient) -> None:
    match = played(client, (2, "schwarz"), (2, "schwarz"), (2, "normal"), target=7)
    assert match["winner"] == 2
    reopened = client.patch(f"/api/matches/{match['id']}/deals/3", json={"player": 1}).json
    assert reopened["finished"] is False
    assert reopened["players"][1]["games"] == 0


def test_deleting_a_deal_moves_the_later_ones_up(client: FlaskClient) -> None:
    match = played(client, (1, "normal"), (2, "schwarz"), (1, "schneider"), (2, "normal"))
    response = client.delete(f"/api/matches/{match['id']}/deals/2")
    assert response.status_code == 200
    assert [(d["number"], d["outcome"]) for d in response.json["deals"]] == [
        (1, "normal"),
        (2, "schneider"),
        (3, "normal"),
    ]
    assert [p["score"] for p in response.json["players"]] == [3, 1]
    next_deal = api_play(client, match["id"], (1, "normal"))
    assert [d["number"] for d in next_deal["deals"]] == [1, 2, 3, 4]


def test_deleting_the_winning_deal_reopens_the_match(client: FlaskClient) -> None:
    match = played(client, (1, "schwarz"), (1, "schwarz"), (1, "normal"), target=7)
    reopened = client.delete(f"/api/matches/{match['id']}/deals/3").json
    assert reopened["finished"] is False
    assert reopened["players"][0]["games"] == 0


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("patch", "/api/matches/{id}/deals/9", {"player": 1}, 404),
        ("delete", "/api/matches/{id}/deals/9", None, 404),
        ("patch", "/api/matches/{id}/deals/1", {}, 422),
        ("patch", "/api/matches/{id}/deals/1", {"player": 3}, 422),
        ("patch", "/api/matches/{id}/deals/1", {"outcome": "kapo"}, 422),
        ("patch", "/api/matches/{id}/deals/1", {"points": 3}, 422),
        ("patch", "/api/matches/{id}/deals/0", {"player": 1}, 404),
    ],
)
def test_bad_corrections_are_refused_and_change_nothing(
    client: FlaskClient, method: str, path: str, body: Any, status: int
) -> None:
    match = played(client, (1, "normal"))
    response = getattr(client, method)(path.format(id=match["id"]), json=body)
    assert response.status_code == status
    assert "error" in response.json
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_another_browser_cannot_correct_or_delete(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    match = played(client, (1, "normal"))
    api_start(other_client)
    assert (
        other_client.patch(f"/api/matches/{match['id']}/deals/1", json={"player": 2}).status_code
        == 404
    )
    assert other_client.delete(f"/api/matches/{match['id']}/deals/1").status_code == 404
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_a_deal_is_corrected_from_its_page(client: FlaskClient) -> None:
    tap(client, 1, "normal")
    tap(client, 2, "normal")
    tap(client, 1, "normal")
    match_id = client.get("/api/matches/current").json["id"]
    page = client.get(f"/matches/{match_id}/deals/1").get_data(as_text=True)
    assert "Correct deal 1" in page
    response = press(client, f"/matches/{match_id}/deals/1", player="2", outcome="schwarz")
    assert response.status_code == 302
    counter = client.get("/").get_data(as_text=True)
    assert "Deal 1 corrected: +3 Player 2 · Schwarz." in counter
    assert '<small class="corrected">corrected</small>' in counter


def test_a_deal_is_deleted_from_its_page(client: FlaskClient) -> None:
    tap(client, 1, "schneider")
    tap(client, 2, "normal")
    match_id = client.get("/api/matches/current").json["id"]
    form = {**page_form(client), "confirmed": "1"}
    del form["request_id"]
    assert client.post(f"/matches/{match_id}/deals/1/delete", data=form).status_code == 302
    assert "Deal 1 deleted: +2 Player 1 · Schneider." in client.get("/").get_data(as_text=True)
    assert [d["outcome"] for d in client.get("/api/matches/current").json["deals"]] == ["normal"]


def test_deleting_a_deal_asks_first_and_changes_nothing_until_confirmed(
    client: FlaskClient,
) -> None:
    tap(client, 1, "schneider")
    form = opened(client, 1)
    asked = client.post(f"/matches/{form['match_id']}/deals/1/delete", data=form)
    page = asked.get_data(as_text=True)
    assert "Delete deal 1?" in page
    assert "Deal 1 (+2 Player 1 · Schneider) will be deleted for good" in page
    assert page_field(page, "recorded_at") == form["recorded_at"]
    assert len(client.get("/api/matches/current").json["deals"]) == 1


def test_a_refused_correction_shows_the_form_again(client: FlaskClient) -> None:
    match = played(client, (1, "schwarz"), (1, "schwarz"), (2, "normal"), (2, "normal"), target=7)
    response = press(client, f"/matches/{match['id']}/deals/3", player="1", outcome="normal")
    assert response.status_code == 409
    assert "already be won at deal 3" in response.get_data(as_text=True)
    assert client.get(f"/api/matches/{match['id']}").json == match


def opened(client: FlaskClient, number: int) -> dict[str, str]:
    """The fields of deal ``number``'s page as the player opened it."""
    page = client.get(f"/matches/{client.get('/api/matches/current').json['id']}/deals/{number}")
    text = page.get_data(as_text=True)
    return {name: page_field(text, name) for name in ("csrf_token", "match_id", "recorded_at")}


def sent_from_its_page(client: FlaskClient, form: dict[str, str], action: str) -> Any:
    """Deal 2's page sent: corrected to player 1, or deleted (``?asked``: before confirming)."""
    confirmed = {} if action.endswith("?asked") else {"confirmed": "1"}
    return client.post(
        f"/matches/{form['match_id']}/deals/2{action.removesuffix('?asked')}",
        data={**form, "player": "1", **confirmed},
    )


@pytest.mark.parametrize("action", ["", "/delete", "/delete?asked"])
def test_a_deal_changed_by_another_phone_since_its_page_opened_is_left_alone(
    client: FlaskClient, action: str
) -> None:
    """Deal 2 was opened, then deal 1 deleted elsewhere: the deal now numbered 2 is another
    (and a delete is not even asked about)."""
    for seat, outcome in [(1, "normal"), (1, "schneider"), (2, "schwarz")]:
        tap(client, seat, outcome)
    form = opened(client, 2)
    match = client.delete(f"/api/matches/{form['match_id']}/deals/1").json
    response = sent_from_its_page(client, form, action)
    assert response.status_code == 409
    assert "deal 2 is now another deal. Nothing was changed." in response.get_data(as_text=True)
    assert client.get(f"/api/matches/{match['id']}").json == match


@pytest.mark.parametrize("action", ["", "/delete", "/delete?asked"])
def test_a_deal_taken_back_by_another_phone_since_its_page_opened_is_said_so(
    client: FlaskClient, action: str
) -> None:
    """Deal 2 was opened, then undone elsewhere: the refusal says why, not just "no deal"."""
    for seat, outcome in [(1, "normal"), (2, "schwarz")]:
        tap(client, seat, outcome)
    form = opened(client, 2)
    match = client.delete(f"/api/matches/{form['match_id']}/deals/last").json
    response = sent_from_its_page(client, form, action)
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "Another phone changed this match meanwhile, and it has no deal 2 any more." in page
    assert "Back to the counter" in page
    assert client.get(f"/api/matches/{match['id']}").json == match


@pytest.mark.parametrize(
    ("action", "kept"), [("", "corrected"), ("/delete", "deleted"), ("/delete", "without a time")]
)
def test_the_deal_its_page_opened_is_corrected_or_deleted(
    client: FlaskClient, action: str, kept: str
) -> None:
    """A page opened before pages said when their deal was recorded still works."""
    for seat, outcome in [(1, "normal"), (2, "schwarz")]:
        tap(client, seat, outcome)
    form = opened(client, 2)
    if kept == "without a time":
        del form["recorded_at"]
    response = client.post(
        f"/matches/{form['match_id']}/deals/2{action}",
        data={**form, "player": "1", "confirmed": "1"},
    )
    assert response.status_code == 302
    deals = client.get("/api/matches/current").json["deals"]
    left = [(deal["player"], deal["outcome"]) for deal in deals]
    assert left == ([(1, "normal"), (1, "schwarz")] if action == "" else [(1, "normal")])


@pytest.mark.parametrize("when", ["yesterday", "2026-12-03", "2026-12-03T10:00:00+02:00"])
def test_a_mangled_record_time_is_refused(client: FlaskClient, when: str) -> None:
    tap(client, 1, "normal")
    form = {**opened(client, 1), "recorded_at": when}
    response = client.post(f"/matches/{form['match_id']}/deals/1", data={**form, "player": "2"})
    assert response.status_code == 400
    assert "Reload the page and try again." in response.get_data(as_text=True)


@pytest.mark.parametrize("path", ["/matches/{id}/deals/5", "/matches/999/deals/1"])
def test_an_unknown_deal_page_is_404(client: FlaskClient, path: str) -> None:
    match = played(client, (1, "normal"))
    assert client.get(path.format(id=match["id"])).status_code == 404

"""A client that keeps the match itself asks a write for an acknowledgement and the deals
it has not seen (Prefer: return=minimal, ?since=N); every other client gets the whole match."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from api_spec import fits
from helpers import api_deal, api_play, api_start

MINIMAL = {"Prefer": "return=minimal"}


def started_with_deals(client: FlaskClient, count: int) -> int:
    match_id: int = api_start(client, players=["Ivan", "Maria"])["id"]
    api_play(client, match_id, *[(1 + n % 2, "normal") for n in range(count)])
    return match_id


def deal(client: FlaskClient, match_id: int, query: str = "", **headers: str) -> Any:
    return client.post(
        f"/api/matches/{match_id}/deals{query}",
        json={"player": 1, "outcome": "normal"},
        headers=headers,
    )


def test_a_deal_answers_the_whole_match_unless_asked(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 3)
    answer = deal(client, match_id)
    assert answer.status_code == 201
    assert [each["number"] for each in answer.json["deals"]] == [1, 2, 3, 4]
    assert "deal_count" not in answer.json
    assert "Preference-Applied" not in answer.headers


def test_return_minimal_answers_the_match_without_its_deals(
    client: FlaskClient, spec: dict[str, Any]
) -> None:
    match_id = started_with_deals(client, 3)
    answer = deal(client, match_id, **MINIMAL)
    assert answer.status_code == 201
    assert answer.headers["Preference-Applied"] == "return=minimal"
    assert answer.headers["Location"] == f"/api/matches/{match_id}"
    assert answer.json["deal_count"] == 4
    assert answer.json["deals"] == []
    assert [player["score"] for player in answer.json["players"]] == [3, 1]
    assert fits(spec, "MatchUpdate", answer.json) == []
    assert fits(spec, "MatchAnswer", answer.json) == []


def test_since_adds_the_deals_the_client_has_not_seen(
    client: FlaskClient, spec: dict[str, Any]
) -> None:
    match_id = started_with_deals(client, 3)
    answer = deal(client, match_id, "?since=2", **MINIMAL)
    assert [each["number"] for each in answer.json["deals"]] == [3, 4]
    assert answer.json["deals"][-1]["scores"] == [3, 1]
    whole = client.get(f"/api/matches/{match_id}").json
    assert answer.json["deals"] == whole["deals"][2:]
    assert fits(spec, "MatchUpdate", answer.json) == []


def test_since_alone_asks_for_the_short_answer_too(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 1)
    answer = deal(client, match_id, "?since=0")
    assert [each["number"] for each in answer.json["deals"]] == [1, 2]
    assert answer.json["deal_count"] == 2
    assert "Preference-Applied" not in answer.headers  # Prefer was not sent


def test_the_short_answer_matches_the_whole_one_but_for_the_deals(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 2)
    short = deal(client, match_id, **MINIMAL).json
    whole = client.get(f"/api/matches/{match_id}").json
    assert short.pop("deal_count") == len(whole["deals"])
    assert short.pop("deals") == []
    del whole["deals"]
    assert short == whole


def test_a_replayed_deal_answers_short_as_well(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 1)
    first = api_deal(client, match_id, 1, "normal", request_id="tap-1")
    assert first.status_code == 201
    again = client.post(
        f"/api/matches/{match_id}/deals?since=2",
        json={"player": 1, "outcome": "normal", "request_id": "tap-1"},
        headers=MINIMAL,
    )
    assert again.status_code == 200
    assert (again.json["deal_count"], again.json["deals"]) == (2, [])


def test_an_undo_answers_short_when_asked(client: FlaskClient, spec: dict[str, Any]) -> None:
    match_id = started_with_deals(client, 3)
    answer = client.delete(f"/api/matches/{match_id}/deals/last?number=3&since=3", headers=MINIMAL)
    assert answer.status_code == 200
    assert answer.headers["Preference-Applied"] == "return=minimal"
    # since above deal_count: the client holds a deal that is gone.
    assert (answer.json["deal_count"], answer.json["deals"]) == (2, [])
    assert fits(spec, "MatchUpdate", answer.json) == []


def test_a_settings_change_answers_short_when_asked(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 2)
    answer = client.patch(f"/api/matches/{match_id}?since=1", json={"target": 15}, headers=MINIMAL)
    assert answer.status_code == 200
    assert answer.json["target"] == 15
    assert [each["number"] for each in answer.json["deals"]] == [2]


@pytest.mark.parametrize(
    "prefer", ["return=minimal", "respond-async, return=minimal", "RETURN=MINIMAL"]
)
def test_return_minimal_is_read_among_other_preferences(client: FlaskClient, prefer: str) -> None:
    match_id = started_with_deals(client, 1)
    assert deal(client, match_id, Prefer=prefer).json["deals"] == []


def test_return_representation_is_the_whole_match(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 1)
    answer = deal(client, match_id, Prefer="return=representation")
    assert len(answer.json["deals"]) == 2


def test_reads_and_other_writes_answer_whole_whatever_is_asked(client: FlaskClient) -> None:
    match_id = started_with_deals(client, 2)
    shown = client.get(f"/api/matches/{match_id}?since=1", headers=MINIMAL)
    assert len(shown.json["deals"]) == 2
    assert "Preference-Applied" not in shown.headers
    corrected = client.patch(
        f"/api/matches/{match_id}/deals/1?since=1", json={"outcome": "schwarz"}, headers=MINIMAL
    )
    assert len(corrected.json["deals"]) == 2


@pytest.mark.parametrize("since", ["-1", "x", "1.0", "+1", ""])
def test_a_since_that_is_not_a_count_is_refused(client: FlaskClient, since: str) -> None:
    match_id = started_with_deals(client, 1)
    answer = deal(client, match_id, f"?since={since}")
    assert answer.status_code == 400
    assert client.get(f"/api/matches/{match_id}").json["deals"][-1]["number"] == 1


def test_the_deal_that_wins_answers_short_with_when_the_match_finished(
    client: FlaskClient,
) -> None:
    match_id = started_with_deals(client, 2)
    for _ in range(4):  # 4:1, 7:1, 10:1, 13:1
        won = client.post(
            f"/api/matches/{match_id}/deals",
            json={"player": 1, "outcome": "schwarz"},
            headers=MINIMAL,
        ).json
    whole = client.get(f"/api/matches/{match_id}").json
    assert won["winner"] == 1
    assert won["finished_at"] == whole["finished_at"] is not None

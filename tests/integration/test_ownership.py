"""Matches belong to the browser that played them; another browser never sees them."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from helpers import api_deal, api_play, api_start, submit, tap


def test_each_browser_sees_only_its_own_history(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    mine = api_start(client, players=["Ivan", "Maria"])
    theirs = api_start(other_client, players=["Petar", "Gergana"])
    assert [m["id"] for m in client.get("/api/matches").json["matches"]] == [mine["id"]]
    assert [m["id"] for m in other_client.get("/api/matches").json["matches"]] == [theirs["id"]]
    assert "Petar" not in client.get("/matches").get_data(as_text=True)


def test_current_match_is_per_browser(client: FlaskClient, other_client: FlaskClient) -> None:
    tap(client, 1, "normal")
    assert other_client.get("/api/matches/current").status_code == 404
    assert "No deals recorded yet." in other_client.get("/").get_data(as_text=True)


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("get", "/api/matches/{id}", None),
        ("patch", "/api/matches/{id}", {"target": 15}),
        ("post", "/api/matches/{id}/deals", {"player": 1, "outcome": "schwarz"}),
        ("delete", "/api/matches/{id}/deals/last", None),
        ("delete", "/api/matches/{id}", None),
        ("post", "/api/matches/{id}/resume", None),
    ],
)
def test_another_browsers_match_is_404_in_the_api_and_untouched(
    client: FlaskClient,
    other_client: FlaskClient,
    method: str,
    path: str,
    body: dict[str, object] | None,
) -> None:
    match = api_start(client)
    match = api_play(client, match["id"], (1, "normal"))
    unknown = getattr(other_client, method)(path.format(id=999), json=body)
    foreign = getattr(other_client, method)(path.format(id=match["id"]), json=body)
    assert foreign.status_code == 404
    # The answer is the same as for an id that does not exist: nothing leaks.
    assert foreign.json["error"].replace(str(match["id"]), "N") == unknown.json["error"].replace(
        "999", "N"
    )
    assert client.get(f"/api/matches/{match['id']}").json == match


@pytest.mark.parametrize(
    ("path", "fields"),
    [
        ("/deals", {"player": "1", "outcome": "schwarz"}),
        ("/undo", {}),
        ("/settings", {"target": "7"}),
        ("/matches/{id}/resume", {}),
        ("/matches/{id}/delete", {"confirmed": "1"}),
        ("/matches/{id}/share", {}),
    ],
)
def test_another_browsers_match_is_404_in_the_forms_and_untouched(
    client: FlaskClient, other_client: FlaskClient, path: str, fields: dict[str, str]
) -> None:
    match = api_play(client, api_start(client)["id"], (1, "normal"))
    tap(other_client, 2, "normal")
    address = path.format(id=match["id"])
    response = submit(other_client, address, match_id=str(match["id"]), **fields)
    assert response.status_code == 404
    assert client.get(f"/api/matches/{match['id']}").json == match


def test_another_browsers_match_page_is_404(client: FlaskClient, other_client: FlaskClient) -> None:
    match = api_start(client)
    assert other_client.get(f"/matches/{match['id']}").status_code == 404


def test_a_tampered_session_cookie_is_a_fresh_browser(client: FlaskClient) -> None:
    api_play(client, api_start(client)["id"], (1, "normal"))
    cookie = client.get_cookie("session")
    assert cookie is not None
    client.set_cookie("session", cookie.value[:-4] + "AAAA")
    assert client.get("/api/matches").json["matches"] == []
    assert client.get("/").status_code == 200


def test_a_cookie_signed_with_another_key_is_a_fresh_browser(
    client: FlaskClient, other_client: FlaskClient
) -> None:
    from itsdangerous import URLSafeTimedSerializer

    api_start(client)
    with client.session_transaction() as session:
        token = session["device"]
    forged = URLSafeTimedSerializer("not-the-servers-key", salt="cookie-session").dumps(
        {"device": token}
    )
    other_client.set_cookie("session", forged)
    assert other_client.get("/api/matches").json["matches"] == []


def test_the_api_and_the_pages_share_one_browser_identity(client: FlaskClient) -> None:
    tap(client, 2, "schwarz")
    match = client.get("/api/matches/current").json
    assert api_deal(client, match["id"], 1, "normal").status_code == 201
    assert [p["score"] for p in client.get("/api/matches/current").json["players"]] == [1, 3]

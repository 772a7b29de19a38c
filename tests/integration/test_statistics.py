"""Statistics per pair of players, derived from this browser's deals."""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from counter.game.scoring import Outcome
from counter.services import statistics

from helpers import api_play, api_start, key_of, win_match


def owner_of(client: FlaskClient) -> str:
    return str(key_of(client))


def test_a_pair_record_counts_matches_deals_and_runs(app: Flask, client: FlaskClient) -> None:
    for winner in (1, 1, 2, 1, 1, 1):
        match = api_start(client, target=7, players=["Ivan", "Maria"])
        win_match(client, match["id"], player=winner, target=7)
    open_match = api_start(client)
    api_play(client, open_match["id"], (2, "wrong_claim"), (1, "failed_close"))
    api_start(client, players=["Ivan", "Petar"])
    with app.app_context():
        pairs = statistics.statistics(owner=owner_of(client))
    assert [(p.players[0].name, p.players[1].name, p.matches) for p in pairs] == [
        ("Ivan", "Maria", 7),
        ("Ivan", "Petar", 1),
    ]
    ivan, maria = pairs[0].players
    assert (ivan.matches_won, maria.matches_won) == (5, 1)
    assert (ivan.longest_run, maria.longest_run) == (3, 1)
    assert ivan.deals_won[Outcome.SCHWARZ] == 15
    assert ivan.deals_won[Outcome.FAILED_CLOSE] == 1
    assert maria.deals_won[Outcome.WRONG_CLAIM] == 1
    assert pairs[0].finished == 6
    assert pairs[0].deals == 20
    assert pairs[0].deals_per_match == 18 / 6  # the open match's two deals left out


def test_the_page_shows_each_pair_and_a_chart(client: FlaskClient) -> None:
    match = api_start(client, target=7, players=["Иван", "Мария"])
    win_match(client, match["id"], player=2, target=7)
    page = client.get("/statistics").get_data(as_text=True)
    assert '<h2 id="pair-1">Иван – Мария</h2>' in page
    assert '<svg class="chart"' in page
    # Schwarz is the third row; Мария's 3 are the longest bar, drawn under its label.
    assert 'class="bar2" x="0" y="106" width="260.0"' in page
    assert '<p class="legend" aria-hidden="true"><span><span class="key seat1"></span> Иван' in page


def test_a_tie_is_counted_once_for_the_pair_and_rows_follow_the_rules(
    app: Flask, client: FlaskClient
) -> None:
    match = api_start(client, players=["Ivan", "Maria"], rules={"ties": "no_points"})
    api_play(client, match["id"], (1, "normal"))
    client.post(f"/api/matches/{match['id']}/deals", json={"outcome": "tie"})
    with app.app_context():
        pair = statistics.statistics(owner=owner_of(client))[0]
    assert pair.ties == 1
    assert Outcome.TIE not in pair.outcomes
    assert Outcome.WRONG_CLAIM_NO_TRICK not in pair.outcomes
    assert (pair.players[0].deal_count, pair.players[1].deal_count) == (1, 0)
    page = client.get("/statistics").get_data(as_text=True)
    assert "1 deal at 65:65" in page


def test_averages_are_written_with_the_languages_decimal_mark(client: FlaskClient) -> None:
    """Finished in 3 and in 4 deals: 3,5 in Bulgarian."""
    first = api_start(client, target=7, players=["Ivan", "Maria"])
    api_play(client, first["id"], *[(1, "schwarz")] * 3)
    second = api_start(client, target=7)
    api_play(client, second["id"], (2, "normal"), (2, "normal"), (2, "schwarz"), (2, "schwarz"))
    page = client.get("/statistics", headers={"Accept-Language": "bg"}).get_data(as_text=True)
    assert "3,5" in page


def test_no_average_is_given_before_a_match_is_finished(client: FlaskClient) -> None:
    match = api_start(client, players=["Ivan", "Maria"])
    api_play(client, match["id"], (1, "normal"))
    page = client.get("/statistics").get_data(as_text=True)
    assert "0 finished" in page
    assert "deals per match" not in page


def test_a_browser_without_matches_is_told_so(client: FlaskClient) -> None:
    assert "No matches yet." in client.get("/statistics").get_data(as_text=True)

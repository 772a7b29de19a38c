"""Club evenings through the app: the host's forms, each table's link, the board, refusals."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from counter.game.refusals import Conflict
from counter.services import evenings, newcomers
from counter.services.newcomers import NEVER_BACK_AFTER
from counter.storage.models import (
    Device,
    Evening,
    EveningPlayer,
    EveningTable,
    Match,
    db,
    utcnow,
)
from counter.web.limits import limiter
from tests.apps import make_app
from tests.helpers import (
    api_deal,
    api_start,
    at_once,
    key_of,
    page_field,
    privacy_form,
    win_match,
)

SIX = ["Ана", "Борис", "Вера", "Галя", "Дени", "Емо"]


def host_form(client: FlaskClient, action: str, **fields: Any) -> Any:
    page = client.get("/evenings").get_data(as_text=True)
    return client.post(action, data={"csrf_token": page_field(page, "csrf_token"), **fields})


def create(client: FlaskClient, names: list[str], fmt: str = "round_robin", **more: Any) -> int:
    fields = {"name": "Петък", "players": "\n".join(names), "format": fmt, "target": "11"}
    response = host_form(client, "/evenings", **{"preset": "santase", **fields, **more})
    assert response.status_code == 302, response.get_data(as_text=True)
    return int(response.headers["Location"].rsplit("/", 1)[1])


def start_round(client: FlaskClient, evening: int, number: int) -> Any:
    return host_form(client, f"/evenings/{evening}/rounds", round=str(number))


def tables(app: Flask, evening: int, number: int) -> list[EveningTable]:
    with app.app_context():
        found = select(EveningTable).where(
            EveningTable.evening_id == evening, EveningTable.round == number
        )
        return list(db.session.scalars(found.order_by(EveningTable.number)))


def at_table(app: Flask, token: str) -> FlaskClient:
    """A phone that opened a table's link."""
    phone = app.test_client()
    assert phone.get(f"/table/{token}").status_code == 200
    return phone


def play_round(app: Flask, evening: int, number: int, winner: int = 1) -> None:
    for table in tables(app, evening, number):
        if table.token is not None:
            win_match(at_table(app, table.token), table.match_id, winner)  # type: ignore[arg-type]


def table_uid(app: Flask, match_id: int | None) -> str:
    with app.app_context():
        return db.session.get_one(Match, match_id).uid


def one_table(app: Flask, client: FlaskClient) -> tuple[int, EveningTable, FlaskClient]:
    """An evening of two with its first round started: it, its one table, a phone there."""
    evening = create(client, SIX[:2])
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    return evening, table, at_table(app, table.token)


def standings(client: FlaskClient, evening: int) -> list[list[str]]:
    csv = client.get(f"/evenings/{evening}/standings.csv").get_data(as_text=True)
    return [line.split(",") for line in csv.strip().splitlines()[1:]]


def test_round_robin_of_six_is_five_rounds_of_three_tables(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX)
    pairs, pairs_played = [], []
    for number in range(1, 6):
        assert start_round(client, evening, number).status_code == 302
        seated = tables(app, evening, number)
        assert len(seated) == 3
        pairs += [frozenset((t.player1, t.player2)) for t in seated]
        pairs_played += [(t.player1, t.player2) for t in seated]
        play_round(app, evening, number)
    assert len(set(pairs)) == 15
    assert start_round(client, evening, 6).status_code == 409
    wins = Counter(first for first, _second in pairs_played)  # the first seat won each
    with app.app_context():
        names = dict(db.session.execute(select(EveningPlayer.id, EveningPlayer.name)).all())
    won = {row[1]: int(row[3]) for row in standings(client, evening)}
    assert won == {name: wins[pid] for pid, name in names.items()}


def test_a_correction_of_an_earlier_match_changes_the_standings(
    app: Flask, client: FlaskClient
) -> None:
    evening = create(client, SIX[:2])
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    win_match(at_table(app, table.token), table.match_id, 1)  # type: ignore[arg-type]
    assert standings(client, evening)[0][1] == SIX[0]
    for number in range(1, 5):  # the host's correction, through the match's own
        host = client.patch(f"/api/matches/{table.match_id}/deals/{number}", json={"player": 2})
        assert host.status_code == 200, host.json
    assert standings(client, evening)[0][1] == SIX[1]


def test_swiss_pairs_ten_players_four_rounds_without_a_repeat(
    app: Flask, client: FlaskClient
) -> None:
    evening = create(client, [f"P{i}" for i in range(10)], "swiss", rounds="4")
    pairs = []
    for number in range(1, 5):
        assert start_round(client, evening, number).status_code == 302
        pairs += [frozenset((t.player1, t.player2)) for t in tables(app, evening, number)]
        play_round(app, evening, number, winner=number % 2 + 1)
    assert len(pairs) == len(set(pairs)) == 20


def test_three_lives_plays_to_one_winner(app: Flask, client: FlaskClient) -> None:
    evening = create(client, [f"P{i}" for i in range(8)], "lives")
    number = 1
    while start_round(client, evening, number).status_code == 302:
        play_round(app, evening, number)
        number += 1
    rows = standings(client, evening)
    assert [row[5] for row in rows].count("0") == 7


def test_a_round_started_twice_at_once_is_one_round(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX)
    page = client.get("/evenings").get_data(as_text=True)
    token = page_field(page, "csrf_token")
    post = lambda: client.post(  # noqa: E731
        f"/evenings/{evening}/rounds", data={"csrf_token": token, "round": "1"}
    )
    assert sorted(at_once([post, post])) == [302, 409]
    with app.app_context():
        assert db.session.scalar(select(func.count(EveningTable.id))) == 3
        assert db.session.scalar(select(func.count(Match.id))) == 3


def test_the_next_round_waits_for_every_table(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX)
    start_round(client, evening, 1)
    response = start_round(client, evening, 2)
    assert response.status_code == 409
    assert "Every table has to finish" in response.get_data(as_text=True)
    assert len(tables(app, evening, 2)) == 0


def test_an_absent_players_match_is_ended_by_the_host(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:4])
    start_round(client, evening, 1)
    first, second = tables(app, evening, 1)
    api_deal(at_table(app, first.token), first.match_id, 1, "schwarz")  # type: ignore[arg-type]
    award = f"/evenings/{evening}/tables/{first.id}/award"
    assert host_form(client, award, player=str(first.player2)).status_code == 302
    win_match(at_table(app, second.token), second.match_id)  # type: ignore[arg-type]
    assert start_round(client, evening, 2).status_code == 302
    with app.app_context():  # the deal recorded before stays
        assert len(db.session.get_one(Match, first.match_id).deals) == 1


def test_a_table_link_reaches_its_match_and_nothing_else(app: Flask, client: FlaskClient) -> None:
    own = api_start(client, players=["Иван", "Мария"])["id"]
    evening, table, phone = one_table(app, client)
    assert api_deal(phone, table.match_id, 1, "normal").status_code == 201  # type: ignore[arg-type]
    assert phone.get(f"/api/matches/{table.match_id}").status_code == 200
    assert phone.get(f"/api/matches/{own}").status_code == 404
    assert api_deal(phone, own, 1, "normal").status_code == 404
    assert phone.get("/api/matches").json["matches"] == []  # type: ignore[index]
    assert phone.delete(f"/api/matches/{table.match_id}").status_code == 409
    assert phone.get("/api/export").json["matches"] == []  # type: ignore[index]
    assert phone.get(f"/evenings/{evening}").status_code == 404
    assert privacy_form(phone, action="/privacy/erase", confirmed="1").status_code == 302
    with app.app_context():  # the phone erased its own, none of the host's
        assert db.session.scalar(select(func.count(Match.id))) == 2
        assert len(db.session.get_one(Match, table.match_id).deals) == 1


def test_a_tables_page_says_where_it_is_and_leaves_the_next_match_to_the_host(
    app: Flask, client: FlaskClient
) -> None:
    _evening, table, phone = one_table(app, client)
    win_match(phone, table.match_id)  # type: ignore[arg-type]
    page = phone.get(f"/table/{table.token}").get_data(as_text=True)
    assert "Петък · Round 1 · Table 1" in page
    assert "The host starts the next round" in page
    assert re.search(r'<form [^>]*action="/new" data-action="new" hidden>', page)
    assert "New match, same players" not in page
    form = {"csrf_token": page_field(page, "csrf_token"), "match_id": str(table.match_id)}
    refused = phone.post("/deals", data={**form, "player": "1", "outcome": "normal"})
    assert refused.status_code == 409  # the page drawn again is still the table's
    assert "Петък · Round 1 · Table 1" in refused.get_data(as_text=True)


def test_the_table_link_stops_recording_when_the_evening_ends(
    app: Flask, client: FlaskClient
) -> None:
    evening, table, phone = one_table(app, client)
    assert host_form(client, f"/evenings/{evening}/end", confirmed="1").status_code == 302
    refused = api_deal(phone, table.match_id, 1, "normal")  # type: ignore[arg-type]
    assert refused.status_code == 410
    assert "has ended" in refused.json["error"]
    assert phone.get(f"/table/{table.token}").status_code == 410
    with app.app_context():
        assert db.session.get_one(Match, table.match_id).deals == []


def test_ending_an_evening_asks_first_and_says_when_rounds_are_left(
    app: Flask, client: FlaskClient
) -> None:
    evening = create(client, SIX[:4])
    start_round(client, evening, 1)
    asked = host_form(client, f"/evenings/{evening}/end")
    assert asked.status_code == 200
    page = asked.get_data(as_text=True)
    assert "End the evening?" in page
    assert "Not every round has been played." in page
    assert 'name="confirmed" value="1"' in page
    with app.app_context():
        assert db.session.scalar(select(Evening.ended_at)) is None


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["Ана"], "at least two players"),
        (["Ана", "ана"], "on the list twice"),
        ([f"P{i}" for i in range(65)], "at most 64 players"),
    ],
)
def test_bad_player_lists_change_nothing(
    app: Flask, client: FlaskClient, names: list[str], message: str
) -> None:
    response = host_form(
        client,
        "/evenings",
        name="x",
        players="\n".join(names),
        format="swiss",
        target="11",
        preset="santase",
        rounds="1",
    )
    assert 400 <= response.status_code < 500
    assert message in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(Evening.id))) == 0


def test_a_player_cannot_withdraw_mid_match(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:4], "swiss", rounds="2")
    start_round(client, evening, 1)
    first = tables(app, evening, 1)[0]
    response = host_form(client, f"/evenings/{evening}/players/{first.player1}/withdraw")
    assert response.status_code == 409
    assert "still playing at table 1" in response.get_data(as_text=True)
    play_round(app, evening, 1)
    assert (
        host_form(client, f"/evenings/{evening}/players/{first.player1}/withdraw").status_code
        == 302
    )
    start_round(client, evening, 2)
    seated = tables(app, evening, 2)
    assert first.player1 not in [p for t in seated for p in (t.player1, t.player2)]


def test_a_late_player_plays_from_the_next_round(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:3], "swiss", rounds="2")
    start_round(client, evening, 1)
    play_round(app, evening, 1)
    assert host_form(client, f"/evenings/{evening}/players", name="Жоро").status_code == 302
    start_round(client, evening, 2)
    assert len([t for t in tables(app, evening, 2) if t.player2 is not None]) == 2


def test_no_late_player_once_everyone_plays_everyone(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:4])
    start_round(client, evening, 1)
    play_round(app, evening, 1)
    response = host_form(client, f"/evenings/{evening}/players", name="Жоро")
    assert response.status_code == 409


def test_the_printed_standings_name_the_game_and_each_winner(
    app: Flask, client: FlaskClient
) -> None:
    evening = create(client, SIX[:2], preset="schnapsen", target="7")
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    win_match(at_table(app, table.token), table.match_id, player=2, target=7)  # type: ignore[arg-type]
    page = client.get(f"/evenings/{evening}/standings").get_data(as_text=True)
    assert " · Schnapsen · to 7</p>" in page
    assert f"<td><strong>{SIX[1]}</strong></td>" in page
    assert f"<td>{SIX[0]}</td>" in page


def test_the_board_and_the_history(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:2])
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    api_deal(at_table(app, table.token), table.match_id, 1, "schwarz")  # type: ignore[arg-type]
    with app.app_context():
        token = db.session.get_one(Evening, evening).board_token
    board = app.test_client().get(f"/board/{token}").get_data(as_text=True)
    assert re.search(r"data-score>3:0<", board)
    listed = client.get("/evenings").get_data(as_text=True)
    assert "Петък" in listed
    assert "/static/evening.css" in listed  # the form's own layout
    assert client.get(f"/evenings/{evening}/standings").status_code == 200
    exported = client.get("/api/export").json["matches"]  # type: ignore[index]
    assert [m["uid"] for m in exported] == [table_uid(app, table.match_id)]


def test_erasing_everything_erases_the_evenings(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:2])
    start_round(client, evening, 1)
    assert privacy_form(client, action="/privacy/erase", confirmed="1").status_code == 302
    with app.app_context():
        assert db.session.scalar(select(func.count(Evening.id))) == 0
        assert db.session.scalar(select(func.count(EveningTable.id))) == 0
        assert db.session.scalar(select(func.count(Match.id))) == 0


def test_a_schnapsen_evening_starts_schnapsen_matches_counted_down(
    app: Flask, client: FlaskClient
) -> None:
    evening = create(client, SIX[:2], preset="schnapsen", target="7")
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    api_deal(at_table(app, table.token), table.match_id, 1, "schwarz")  # type: ignore[arg-type]
    with app.app_context():
        assert db.session.get_one(Match, table.match_id).game.value == "schnapsen"
        token = db.session.get_one(Evening, evening).board_token
    board = app.test_client().get(f"/board/{token}").get_data(as_text=True)
    assert re.search(r"data-score>4:7<", board)  # 3 made of 7: 4 left to make


def test_an_evening_to_a_target_its_game_is_not_played_to_takes_the_games(
    app: Flask, client: FlaskClient
) -> None:
    """The form offers every game's targets, 11 first: Schnapsen is a Bummerl from 7."""
    evening = create(client, SIX[:2], preset="schnapsen", target="11")
    with app.app_context():
        assert db.session.get_one(Evening, evening).target == 7


def test_an_evenings_writes_are_rate_limited(app: Flask) -> None:
    limited = make_app(
        app.config["SQLALCHEMY_DATABASE_URI"],
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI="memory://",
        RATELIMIT_KEY_PREFIX=f"test-{uuid.uuid4().hex}",
        RATELIMIT_WRITES_PER_BROWSER="3 per minute",
        RATELIMIT_HEAVY_READS="2 per hour",
    )
    try:
        with limited.app_context():
            limiter.reset()
        host = limited.test_client()
        evening = create(host, SIX[:2])
        added = [host_form(host, f"/evenings/{evening}/players", name=f"P{i}") for i in range(4)]
        assert [each.status_code for each in added] == [302, 302, 302, 429]
        reads = [host.get(f"/evenings/{evening}/standings.csv").status_code for _ in range(3)]
        assert reads == [200, 200, 429]
    finally:
        with limited.app_context():
            db.engine.dispose()


def never_came_back(app: Flask, client: FlaskClient) -> int:
    """The device of ``client`` as if its cookie had never come back, long ago."""
    owner = key_of(client)
    with app.app_context():
        device = db.session.scalars(select(Device).where(Device.owner == owner)).one()
        device.came_back = False
        device.created_at = utcnow() - NEVER_BACK_AFTER - timedelta(minutes=1)
        db.session.commit()
        return device.id


def test_a_device_never_back_is_forgotten_with_its_evenings(
    app: Flask, client: FlaskClient
) -> None:
    create(client, SIX[:2])
    never_came_back(app, client)
    with app.app_context():
        assert newcomers.forget_never_back() == 1
        db.session.commit()
        assert db.session.scalar(select(func.count(Evening.id))) == 0


def test_a_new_device_holding_an_evening_is_not_forgotten(app: Flask, client: FlaskClient) -> None:
    create(client, SIX[:2])
    device = never_came_back(app, client)
    with app.app_context():
        newcomers.forget_new(device_id=device)
        assert db.session.get(Device, device) is not None


@pytest.mark.parametrize("path", ["/table/%00", "/board/%00", "/api/board/%00/events"])
def test_a_nul_in_a_token_finds_nothing(client: FlaskClient, path: str) -> None:
    assert client.get(path).status_code == 404


def test_a_late_player_without_a_name_is_refused(app: Flask, client: FlaskClient) -> None:
    evening = create(client, SIX[:3], "swiss", rounds="2")
    response = host_form(client, f"/evenings/{evening}/players", name="   ")
    assert response.status_code == 422
    assert "Write a name for the new player." in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(select(func.count(EveningPlayer.id))) == 3


def test_an_awarded_table_records_nothing_more(app: Flask, client: FlaskClient) -> None:
    evening, table, phone = one_table(app, client)
    award = f"/evenings/{evening}/tables/{table.id}/award"
    assert host_form(client, award, player=str(table.player1)).status_code == 302
    refused = api_deal(phone, table.match_id, 1, "normal")  # type: ignore[arg-type]
    assert refused.status_code == 410
    assert "given this table" in refused.json["error"]
    with app.app_context():
        assert db.session.get_one(Match, table.match_id).deals == []


def test_the_standings_csv_is_safe_in_a_spreadsheet(client: FlaskClient) -> None:
    evening = create(client, ["=1+1", "Ана"])
    response = client.get(f"/evenings/{evening}/standings.csv")
    text = response.get_data(as_text=True)
    assert text.startswith("\ufeffplace,")
    assert ",'=1+1," in text
    assert response.headers["Content-Disposition"].startswith(
        f'attachment; filename="evening-{evening}-'
    )


def table_phone_form(app: Flask, client: FlaskClient) -> tuple[FlaskClient, int, dict[str, str]]:
    """A phone at the only table of a new evening, without script: its page's form fields."""
    _evening, table, phone = one_table(app, client)
    page = phone.get(f"/table/{table.token}").get_data(as_text=True)
    fields = {name: page_field(page, name) for name in ("csrf_token", "match_id", "request_id")}
    return phone, table.match_id, fields  # type: ignore[return-value]


def deals_of(app: Flask, match_id: int) -> list[tuple[int | None, str]]:
    with app.app_context():
        return [(d.player, d.outcome) for d in db.session.get_one(Match, match_id).deals]


def test_a_table_phone_without_script_records_and_undoes_a_deal(
    app: Flask, client: FlaskClient
) -> None:
    phone, match_id, form = table_phone_form(app, client)
    recorded = phone.post("/deals", data={**form, "player": "1", "outcome": "normal"})
    assert recorded.status_code == 302
    assert len(deals_of(app, match_id)) == 1
    del form["request_id"]
    assert phone.post("/undo", data={**form, "deal_number": "1"}).status_code == 302
    assert deals_of(app, match_id) == []


def test_a_table_phone_without_script_is_back_at_its_table_after_each_form(
    app: Flask, client: FlaskClient
) -> None:
    phone, match_id, form = table_phone_form(app, client)
    recorded = phone.post("/deals", data={**form, "player": "1", "outcome": "normal"})
    table = recorded.headers["Location"]
    assert table.startswith("/table/")
    assert f'name="match_id" value="{match_id}"' in phone.get(table).get_data(as_text=True)
    del form["request_id"]
    assert phone.post("/undo", data={**form, "deal_number": "1"}).headers["Location"] == table
    renamed = phone.post("/settings", data={**form, "player1": "Ани", "player2": "Боби"})
    assert renamed.headers["Location"] == table


def test_a_table_phone_without_script_changes_its_matchs_names(
    app: Flask, client: FlaskClient
) -> None:
    phone, match_id, form = table_phone_form(app, client)
    del form["request_id"]
    changed = {**form, "player1": "Ани", "player2": "Боби"}
    assert phone.post("/settings", data=changed).status_code == 302
    with app.app_context():
        assert db.session.get_one(Match, match_id).player1 == "Ани"


def test_a_table_phone_without_script_corrects_a_deal(app: Flask, client: FlaskClient) -> None:
    phone, match_id, form = table_phone_form(app, client)
    api_deal(phone, match_id, 1, "normal")
    page = phone.get(f"/matches/{match_id}/deals/1")
    assert page.status_code == 200
    fields = {"csrf_token": form["csrf_token"], "player": "2", "outcome": "normal"}
    assert phone.post(f"/matches/{match_id}/deals/1", data=fields).status_code == 302
    assert [player for player, _outcome in deals_of(app, match_id)] == [2]


@pytest.mark.parametrize("action", ["share", "share/stop", "resume"])
def test_a_table_link_does_not_share_or_resume_its_match(
    app: Flask, client: FlaskClient, action: str
) -> None:
    phone, match_id, form = table_phone_form(app, client)
    refused = phone.post(f"/matches/{match_id}/{action}", data={"csrf_token": form["csrf_token"]})
    assert refused.status_code == 404
    with app.app_context():
        assert db.session.get_one(Match, match_id).share_token is None


def test_a_table_link_does_not_resume_its_match_through_the_api(
    app: Flask, client: FlaskClient
) -> None:
    phone, match_id, _form = table_phone_form(app, client)
    assert phone.post(f"/api/matches/{match_id}/resume", json={}).status_code == 404


def test_a_round_that_changed_while_it_was_started_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    """Drawn, then a late player joins before the tables are seated: the draw is stale."""
    evening = create(client, SIX[:3], "swiss", rounds="2")
    with app.app_context():
        drawn = evenings._draw(db.session.get_one(Evening, evening), 1)
        db.session.rollback()
    assert host_form(client, f"/evenings/{evening}/players", name="Жоро").status_code == 302
    started: list[tuple[int, int | None, int | None]] = [(a, b, None) for a, b in drawn]
    host = key_of(client)
    assert host is not None
    with app.app_context(), pytest.raises(Conflict, match="changed"):
        evenings._seat(owner=host, evening_id=evening, number=1, started=started)
    assert tables(app, evening, 1) == []


def test_after_the_evening_a_table_form_goes_back_to_the_own_counter(
    app: Flask, client: FlaskClient
) -> None:
    """The host's phone that opened its own table's link still records there once the
    evening is over; its table's page is gone then, so it goes back to its own counter."""
    evening = create(client, SIX[:2])
    start_round(client, evening, 1)
    (table,) = tables(app, evening, 1)
    assert client.get(f"/table/{table.token}").status_code == 200
    assert host_form(client, f"/evenings/{evening}/end", confirmed="1").status_code == 302
    page = client.get(f"/matches/{table.match_id}").get_data(as_text=True)
    form = {"csrf_token": page_field(page, "csrf_token"), "match_id": str(table.match_id)}
    recorded = client.post("/deals", data={**form, "player": "1", "outcome": "normal"})
    assert recorded.status_code == 302
    assert recorded.headers["Location"] == "/"

"""The page's script scores taps itself, from the rules sent as data: it must agree with
the server on every random run of changes, under every house rule.

Hypothesis writes the runs; Chromium runs static/standing.js on each. The first test
holds deals and undos to :mod:`counter.game.scoring` itself; the second sends every kind of
change a phone queues (deals, undos, targets, house rules, presets, names, the first
dealer, new matches of a series) to the real server, one after the other, and holds
the script's view of the whole queue, folded over the match it started from, to the
server's answer at the end: what the server refused, the script must leave out too.
"""

from __future__ import annotations

import dataclasses
import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Page, sync_playwright
from werkzeug.serving import make_server

from counter.game import rulebook, scoring
from counter.game.games import GAMES, Game
from counter.game.refusals import Invalid
from counter.game.scoring import HouseRules, MatchFinished, Outcome
from counter.services.read_models import blank_match
from counter.storage.models import db
from counter.web import shapes

from apps import empty_tables, make_app
from phones import CHROMIUM

pytestmark = pytest.mark.slow

EVERY_RULE = [
    HouseRules(**dict(zip([s.name for s in HouseRules.switches()], choices, strict=True)))
    for choices in itertools.product(*(list(s.kind) for s in HouseRules.switches()))
]
UID = "0" * 32


def _plays(game: Game, rules: HouseRules) -> bool:
    try:
        game.check_rules(rules)
    except Invalid:
        return False
    return True


# Every game with every combination of house rules it is played with.
EVERY_GAME_RULE = [
    (game, rules) for game in GAMES.values() for rules in EVERY_RULE if _plays(game, rules)
]


@pytest.fixture(scope="module")
def parity_app(migrated_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """The app on a database of this module's own (SQLite) or emptied afterwards."""
    copy = tmp_path_factory.mktemp("parity") / "parity.sqlite"
    if migrated_database.startswith("sqlite"):
        copy.write_bytes(Path(migrated_database.removeprefix("sqlite:///")).read_bytes())
        url = f"sqlite:///{copy}"
    else:
        url = migrated_database
    app = make_app(url)
    yield app
    with app.app_context():
        if not migrated_database.startswith("sqlite"):
            empty_tables()
        db.engine.dispose()


@pytest.fixture(scope="module")
def script(parity_app: Flask) -> Iterator[Page]:
    """The counter page with standing.js loaded as ``window.standing``."""
    app = parity_app
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        # The counter page's own standing.js: the same module instance its script uses.
        page.goto(f"http://127.0.0.1:{http.server_port}/")
        page.evaluate(
            "import('/static/standing.js').then((module) => { window.standing = module; })"
        )
        yield page
        browser.close()
    http.shutdown()


steps = st.lists(
    st.one_of(
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.sampled_from(list(Outcome))),
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.just(Outcome.SCHWARZ)),
        st.tuples(st.just("undo")),
    ),
    max_size=40,
)


def by_the_rules(
    rules: HouseRules,
    target: int,
    first: scoring.Seat,
    run: list[tuple[Any, ...]],
    game: Game = GAMES[scoring.GameName.SANTASE],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """What the rules module makes of ``run``, and the changes the page would queue for it."""
    deals: list[tuple[str, scoring.DealResult]] = []
    changes: list[dict[str, Any]] = []
    for number, step in enumerate(run):
        if step[0] == "undo":
            if deals:
                request_id, _ = deals.pop()
                changes.append({"kind": "undo", "match": UID, "request_id": request_id})
            continue
        _, player, outcome = step
        if outcome not in rules.outcomes:
            continue  # no button for it under these rules
        seat = None if outcome is Outcome.TIE else player
        result = scoring.score_deal(seat, outcome, rules)
        try:
            scoring.standing([deal for _, deal in deals] + [result], target)
        except MatchFinished:
            continue  # the buttons are gone once the match is won
        request_id = f"tap-{number}"
        deals.append((request_id, result))
        changes.append(
            {
                "kind": "deal",
                "match": UID,
                "player": seat,
                "outcome": outcome.value,
                "request_id": request_id,
            }
        )
    results = [deal for _, deal in deals]
    totals = scoring.running_totals(results, target)
    dealers = scoring.dealers(first, results)
    final = totals[-1] if totals else scoring.Standing((0, 0), target)
    marks, tallied = game.marks(final, rules), game.tallied(final)
    expected = {
        "scores": [list(after.scores) for after in totals],
        "shown": [[game.shown(score, target) for score in after.scores] for after in totals],
        "dealers": dealers[:-1],
        "winner": final.winner,
        "dealer": dealers[-1],
        "games": [marks * (tallied == 1), marks * (tallied == 2)],
    }
    return expected, changes


SHOWN = """([match, changes, rules]) => {
  const view = window.standing.fold(match, changes, rules);
  return {
    scores: view.deals.map((deal) => deal.scores),
    shown: view.deals.map(({ scores }) =>
      scores.map((one) => window.standing.shown(view, one, rules))),
    dealers: view.deals.map((deal) => deal.dealer),
    winner: view.winner,
    dealer: view.dealer,
    games: view.players.map((player) => player.games),
  };
}"""


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    game_rules=st.sampled_from(EVERY_GAME_RULE),
    target=st.sampled_from(scoring.TARGETS),
    first=st.sampled_from([1, 2]),
    run=steps,
)
def test_the_script_stands_where_the_rules_do(
    script: Page,
    game_rules: tuple[Game, HouseRules],
    target: int,
    first: scoring.Seat,
    run: list[Any],
) -> None:
    game, rules = game_rules
    target = target if target in game.targets else game.target
    expected, changes = by_the_rules(rules, target, first, run, game)
    blank = dataclasses.replace(blank_match(("Ivan", "Maria")), rules=rules, game=game)
    match = {
        **shapes.match_json(blank),
        "uid": UID,
        "target": target,
        "first_dealer": first,
        "dealer": first,
    }
    assert script.evaluate(SHOWN, [match, changes, rulebook.for_the_script()]) == expected


def test_the_script_is_checked_against_a_deal_the_rules_score() -> None:
    """The comparison above is not empty: a schwarz is 3 for the receiver under any rules."""
    expected, changes = by_the_rules(scoring.DEFAULT_RULES, 11, 1, [("deal", 2, Outcome.SCHWARZ)])
    assert expected["scores"] == [[0, 3]]
    assert changes[0]["outcome"] == "schwarz"


# --- every kind of change, against the server ---------------------------------------------------

PAIRS = [("Ivan", "Maria"), ("Maria", "Ivan"), ("Ivan", "Petar"), ("Petar", "Maria")]
changes = st.lists(
    st.one_of(
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.sampled_from(list(Outcome))),
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.just(Outcome.SCHWARZ)),
        st.tuples(st.just("undo")),
        st.tuples(st.just("target"), st.sampled_from(scoring.TARGETS)),
        st.tuples(st.just("rules"), st.sampled_from(EVERY_RULE)),
        st.tuples(st.just("preset"), st.sampled_from(list(scoring.PRESETS))),
        st.tuples(st.just("names"), st.sampled_from(PAIRS)),
        st.tuples(st.just("first_dealer"), st.sampled_from([1, 2])),
        st.tuples(st.just("game"), st.sampled_from(list(scoring.GameName))),
        st.tuples(
            st.just("new"),
            st.sampled_from([None, *scoring.PRESETS]),
            st.sampled_from(scoring.TARGETS),
        ),
        st.tuples(
            st.just("new game"),
            st.sampled_from(list(scoring.GameName)),
            st.sampled_from(scoring.TARGETS),
        ),
    ),
    max_size=30,
)


def preset(name: str) -> dict[str, Any]:
    chosen = scoring.PRESETS[name]
    return {"target": chosen.target, "rules": chosen.rules.as_dict(), "game": chosen.game.value}


def send(client: FlaskClient, match: dict[str, Any], step: tuple[Any, ...], number: int) -> Any:
    """One change as the page would queue it for the match on screen, sent to the server."""
    kind = step[0]
    if kind == "deal":
        _, seat, outcome = step
        body = {"player": None if outcome is Outcome.TIE else seat, "outcome": outcome.value}
        change = {"kind": "deal", "match": match["uid"], **body, "request_id": f"tap-{number}"}
        client.post(
            f"/api/matches/{match['id']}/deals", json={**body, "request_id": f"tap-{number}"}
        )
        return change
    if kind == "undo":
        if not match["deals"]:
            return None  # no Undo to press
        last = match["deals"][-1]
        client.delete(f"/api/matches/{match['id']}/deals/last?request_id={last['request_id']}")
        return {"kind": "undo", "match": match["uid"], "request_id": last["request_id"]}
    if kind == "new":
        _, name, target = step
        body = {"uid": f"{number:032x}", "target": target, "first_dealer": match["dealer"]}
        body.update(preset(name) if name else {})
        client.post("/api/matches", json=body)
        return {"kind": "start", **body}
    if kind == "new game":  # as settings.js starts one: the game's target if it has the one asked
        _, game, target = step
        targets = GAMES[game].targets
        target = target if target in targets else GAMES[game].target
        body = {"uid": f"{number:032x}", "game": game.value, "target": target}
        client.post("/api/matches", json={**body, "first_dealer": match["dealer"]})
        return {"kind": "start", **body, "first_dealer": match["dealer"]}
    settings_change: dict[str, Any] = {
        "target": lambda: (
            {"target": step[1], "play_on": True} if match["finished"] else {"target": step[1]}
        ),
        "rules": lambda: {"rules": step[1].as_dict()},
        "preset": lambda: preset(step[1]),
        "names": lambda: {"players": list(step[1])},
        "first_dealer": lambda: {"first_dealer": step[1]},
        "game": lambda: {"game": step[1].value},
    }[kind]()
    client.patch(f"/api/matches/{match['id']}", json=settings_change)
    return {"kind": "settings", "match": match["uid"], **settings_change}


AS_SHOWN = """([match, changes, rules]) => {
  const view = window.standing.fold(match, changes, rules);
  return {
    uid: view.uid, game: view.game, target: view.target, rules: view.rules,
    first_dealer: view.first_dealer,
    dealer: view.dealer, leader: view.leader, winner: view.winner, finished: view.finished,
    session: view.session,
    players: view.players.map(({ name, score, games }) => ({ name, score, games })),
    deals: view.deals.map(({ number, player, outcome, points, scores, dealer }) =>
      ({ number, player, outcome, points, scores, dealer })),
  };
}"""


def as_shown(match: dict[str, Any]) -> dict[str, Any]:
    """The server's match, as far as the script shows it."""
    keys = (
        "uid",
        "game",
        "target",
        "rules",
        "first_dealer",
        "dealer",
        "leader",
        "winner",
        "finished",
        "session",
    )
    deal_keys = ("number", "player", "outcome", "points", "scores", "dealer")
    return {
        **{key: match[key] for key in keys},
        "players": [
            {key: player[key] for key in ("name", "score", "games")} for player in match["players"]
        ],
        "deals": [{key: deal[key] for key in deal_keys} for deal in match["deals"]],
    }


def played(
    app: Flask,
    run: list[tuple[Any, ...]],
    rules: HouseRules = scoring.DEFAULT_RULES,
    game: Game = GAMES[scoring.GameName.SANTASE],
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """``run`` sent to the server by a new browser, one change after the other: the match it
    started from, the changes as the page queued them, and the server's match at the end."""
    client = app.test_client()  # a browser of its own: its own series
    start = client.post(
        "/api/matches",
        json={"players": ["Ivan", "Maria"], "rules": rules.as_dict(), "game": game.name.value},
    ).json
    queued = []
    for number, step in enumerate(run):
        change = send(client, client.get("/api/matches/current").json, step, number)
        if change is not None:
            queued.append(change)
    return start, queued, as_shown(client.get("/api/matches/current").json)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(game_rules=st.sampled_from(EVERY_GAME_RULE), run=changes)
def test_the_script_agrees_with_the_server_on_every_kind_of_change(
    script: Page, parity_app: Flask, game_rules: tuple[Game, HouseRules], run: list[Any]
) -> None:
    game, rules = game_rules
    start, queued, server = played(parity_app, run, rules, game)
    shown = script.evaluate(AS_SHOWN, [start, queued, rulebook.for_the_script()])
    assert shown == unknown_left_to_the_server(shown, server)


S = Outcome.SCHWARZ
SCHNAPSEN = scoring.GameName.SCHNAPSEN
SCHNAPSEN_RULES = {
    name: getattr(scoring.SCHNAPSEN_RULES, name) for name in scoring.HouseRules().as_dict()
}
AGREES_ON = {
    "a won match's game carries into the next match of the series": [
        ("target", 7),
        ("deal", 2, S),
        ("deal", 2, S),
        ("deal", 2, S),
        ("new", None, 11),
    ],
    "the series counts the same names in either seat": [
        ("target", 7),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("new", None, 11),
        ("names", ("Maria", "Ivan")),
        ("new", None, 11),
    ],
    "a target a score has reached is refused": [
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("target", 7),
    ],
    "a preset whose target a score has reached is refused": [
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("preset", "sixty_six"),
    ],
    "a won match plays on to a higher target": [
        ("target", 7),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("target", 11),
    ],
    "the first dealer changes only before the first deal": [
        ("deal", 1, S),
        ("first_dealer", 2),
    ],
    "a tie is refused where the rules do not record it": [("deal", 1, Outcome.TIE)],
    "an outcome with no button under the rules is still scored": [
        ("preset", "clubs"),
        ("deal", 2, Outcome.FAILED_CLOSE_NO_TRICK),
    ],
    "under each player in turn a tie keeps the dealer": [
        ("preset", "sixty_six"),
        ("rules", scoring.DEFAULT_RULES),
        ("deal", 1, S),
    ],
    "an undo gives the deal back to the dealer before it": [
        ("deal", 2, S),
        ("deal", 1, S),
        ("undo",),
    ],
    "under each player in turn a tie passes the deal on": [
        ("preset", "sixty_six"),
        (
            "rules",
            HouseRules(next_dealer=scoring.NextDealer.ALTERNATE, ties=scoring.Ties.NO_POINTS),
        ),
        ("deal", 1, Outcome.TIE),
        ("deal", 2, Outcome.TIE),
    ],
    "a preset below the score is refused whole, its rules too": [
        ("deal", 2, S),
        ("deal", 2, S),
        ("deal", 2, S),
        ("preset", "sixty_six"),
        ("deal", 1, Outcome.TIE),
    ],
    "a preset above the score takes its target and rules": [
        ("deal", 1, S),
        ("preset", "clubs"),
        ("deal", 2, Outcome.NORMAL),
    ],
    "a preset after a won match is refused": [
        ("target", 7),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("preset", "santase"),
    ],
    "a new match from a preset": [("deal", 1, S), ("new", "clubs", 11), ("deal", 2, S)],
    "a new match from a preset of another game": [
        ("deal", 1, S),
        ("new", "sixty_six", 11),
        ("deal", 2, S),
    ],
    "a rename keeps the series of the same names": [
        ("target", 7),
        ("deal", 2, S),
        ("deal", 2, S),
        ("deal", 2, S),
        ("new", None, 7),
        ("names", ("Maria", "Ivan")),
        ("deal", 1, S),
    ],
    "seats swapped and swapped back keep the games": [
        ("target", 7),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("new", None, 7),
        ("names", ("Maria", "Ivan")),
        ("names", ("Ivan", "Maria")),
        ("new", None, 7),
        ("names", ("Maria", "Ivan")),
    ],
    "a rename to a name already playing is refused": [("names", ("Ivan", "Ivan"))],
    "a Bummerl goes to the loser, and a Schneider-Bummerl counts 2": [
        ("game", SCHNAPSEN),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 2, Outcome.NORMAL),
        ("deal", 1, S),
        ("new", None, 7),
        ("deal", 2, S),
        ("deal", 2, S),
        ("deal", 2, S),
    ],
    "a Schneider-Bummerl counts 1 where the house rule is off": [
        ("game", SCHNAPSEN),
        ("rules", HouseRules(**{**SCHNAPSEN_RULES, "shutout": scoring.Shutout.ONCE})),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
    ],
    "the game changes only before the first deal": [("deal", 1, S), ("game", SCHNAPSEN)],
    "a game refuses house rules it is not played with": [
        ("game", SCHNAPSEN),
        ("rules", scoring.DEFAULT_RULES),
        ("deal", 1, S),
    ],
    "a game refuses a target it is not played to": [("game", SCHNAPSEN), ("target", 11)],
    "a match of another game starts a series of its own": [
        ("target", 7),
        ("deal", 1, S),
        ("deal", 1, S),
        ("deal", 1, S),
        ("new game", SCHNAPSEN, 11),
        ("deal", 2, S),
    ],
    "a 7:0 in Sixty-six counts two games where the rule says so": [
        ("preset", "sixty_six"),
        ("rules", HouseRules(ties=scoring.Ties.NO_POINTS, shutout=scoring.Shutout.TWICE)),
        ("deal", 2, S),
        ("deal", 2, S),
        ("deal", 2, S),
    ],
}


# What a phone queued before it heard of another phone's change: the script folds its
# queue over the match as the server now has it, as the server scores the queue on arrival.
HEARD_LATE = {
    "a deal queued under rules another phone changed since": (
        [("rules", HouseRules(failed_close=scoring.FailedClose.ALWAYS_2))],
        [("deal", 1, Outcome.FAILED_CLOSE_NO_TRICK)],
    ),
    "a tie queued before another phone stopped recording ties": (
        [("rules", HouseRules())],
        [("deal", 1, Outcome.TIE)],
    ),
    "a wrong 66 with no trick queued before the rule changed": (
        [("rules", HouseRules(wrong_claim=scoring.WrongClaim.ALWAYS_2))],
        [("deal", 2, Outcome.WRONG_CLAIM_NO_TRICK)],
    ),
    "a deal queued before another phone chose a preset below the score": (
        [("deal", 1, S), ("deal", 1, S), ("deal", 1, S), ("preset", "sixty_six")],
        [("deal", 2, S)],
    ),
}


@pytest.mark.parametrize("runs", list(HEARD_LATE.values()), ids=list(HEARD_LATE))
def test_a_queue_folded_over_another_phones_change_agrees_with_the_server(
    script: Page, parity_app: Flask, runs: tuple[list[Any], list[Any]]
) -> None:
    elsewhere, queued_here = runs
    every_rule = HouseRules(
        failed_close=scoring.FailedClose.BY_TRICKS,
        wrong_claim=scoring.WrongClaim.BY_TRICKS,
        ties=scoring.Ties.NO_POINTS,
    )
    client = parity_app.test_client()
    client.post("/api/matches", json={"players": ["Ivan", "Maria"], "rules": every_rule.as_dict()})
    for number, step in enumerate(elsewhere):
        send(client, client.get("/api/matches/current").json, step, number)
    heard = client.get("/api/matches/current").json  # the phone heard of it, its queue unsent
    queued = [send(client, heard, step, 100 + number) for number, step in enumerate(queued_here)]
    server = as_shown(client.get("/api/matches/current").json)
    assert script.evaluate(AS_SHOWN, [heard, queued, rulebook.for_the_script()]) == server


@pytest.mark.parametrize("run", list(AGREES_ON.values()), ids=list(AGREES_ON))
def test_the_script_agrees_with_the_server_when(
    script: Page, parity_app: Flask, run: list[tuple[Any, ...]]
) -> None:
    start, queued, server = played(parity_app, run)
    shown = script.evaluate(AS_SHOWN, [start, queued, rulebook.for_the_script()])
    assert shown == unknown_left_to_the_server(shown, server)


def unknown_left_to_the_server(shown: dict[str, Any], server: dict[str, Any]) -> dict[str, Any]:
    """The server's match, but for the games of another series, which the script leaves to
    the server (null) until it answers."""
    for seat, player in enumerate(shown["players"]):
        if player["games"] is None:
            server["players"][seat]["games"] = None
    if shown["session"] is None:  # a best of three of another pair, or chosen since
        server["session"] = None
    return server


def bummerl(winner: int) -> list[tuple[Any, ...]]:
    """A Schnapsen match won by ``winner`` 7:0: Schwarz, Schwarz and a win."""
    return [("deal", winner, S), ("deal", winner, S), ("deal", winner, Outcome.NORMAL)]


def test_the_script_counts_a_best_of_three_as_the_server_does(
    script: Page, parity_app: Flask
) -> None:
    """Each Bummerl played on the phone, each next one started there: the script carries
    the best of three from one to the next, and starts another once it is won."""
    rules = dataclasses.replace(scoring.SCHNAPSEN_RULES, session=scoring.Session.BEST_OF_THREE)
    run = [*bummerl(1), ("new", None, 7), *bummerl(2), ("new", None, 7), *bummerl(1)]
    for last in ([], [("new", None, 7), ("deal", 2, S)]):
        start, queued, server = played(parity_app, run + last, rules, GAMES[SCHNAPSEN])
        shown = script.evaluate(AS_SHOWN, [start, queued, rulebook.for_the_script()])
        assert shown == server
        assert shown["session"] == ([0, 0] if last else [2, 1])

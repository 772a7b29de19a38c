"""The page's script scores taps itself, from the rules sent as data: it must agree with
:mod:`counter.scoring` on every random run of deals and undos, under every house rule.

Hypothesis writes the runs; Chromium runs static/standing.js on each, and the standing
it shows (scores after each deal, who dealt each, the winner, who deals next, the games)
is compared with the one the rules module works out.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Page, sync_playwright
from werkzeug.serving import make_server

from counter import scoring, shapes
from counter.models import db
from counter.scoring import HouseRules, MatchFinished, Outcome
from counter.services.views import blank_match

from conftest import make_app

CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "Chromium not found at /usr/bin/chromium; install it (apt-get install chromium) "
        "to run the script's parity test.",
        allow_module_level=True,
    )

pytestmark = pytest.mark.slow

EVERY_RULE = [
    HouseRules(**dict(zip([s.name for s in HouseRules.switches()], choices, strict=True)))
    for choices in itertools.product(*(list(s.kind) for s in HouseRules.switches()))
]
UID = "0" * 32


@pytest.fixture(scope="module")
def script(migrated_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """A page of the counter's site with standing.js loaded as ``window.standing``."""
    copy = tmp_path_factory.mktemp("parity") / "parity.sqlite"
    if migrated_database.startswith("sqlite"):
        copy.write_bytes(Path(migrated_database.removeprefix("sqlite:///")).read_bytes())
        url = f"sqlite:///{copy}"
    else:
        url = migrated_database
    app = make_app(url)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=http.serve_forever, daemon=True).start()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.goto(f"http://127.0.0.1:{http.server_port}/rules")
        page.evaluate(
            "import('/static/standing.js').then((module) => { window.standing = module; })"
        )
        yield page
        browser.close()
    http.shutdown()
    with app.app_context():
        db.engine.dispose()


steps = st.lists(
    st.one_of(
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.sampled_from(list(Outcome))),
        st.tuples(st.just("deal"), st.sampled_from([1, 2]), st.just(Outcome.SCHWARZ)),
        st.tuples(st.just("undo")),
    ),
    max_size=40,
)


def by_the_rules(
    rules: HouseRules, target: int, first: scoring.Seat, run: list[tuple[Any, ...]]
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
    expected = {
        "scores": [list(after.scores) for after in totals],
        "dealers": dealers[:-1],
        "winner": final.winner,
        "dealer": dealers[-1],
        "games": [int(final.winner == 1), int(final.winner == 2)],
    }
    return expected, changes


SHOWN = """([match, changes, state]) => {
  const view = window.standing.fold(match, changes, state);
  return {
    scores: view.deals.map((deal) => deal.scores),
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
    rules=st.sampled_from(EVERY_RULE),
    target=st.sampled_from(scoring.TARGETS),
    first=st.sampled_from([1, 2]),
    run=steps,
)
def test_the_script_stands_where_the_rules_do(
    script: Page, rules: HouseRules, target: int, first: scoring.Seat, run: list[Any]
) -> None:
    expected, changes = by_the_rules(rules, target, first, run)
    blank = blank_match(("Ivan", "Maria"), rules)
    match = {
        **shapes.match_json(blank),
        "uid": UID,
        "target": target,
        "first_dealer": first,
        "dealer": first,
    }
    state = {
        "tables": scoring.every_table(),
        "rule_names": [switch.name for switch in HouseRules.switches()],
    }
    assert script.evaluate(SHOWN, [match, changes, state]) == expected


def test_the_script_is_checked_against_a_deal_the_rules_score() -> None:
    """The comparison above is not empty: a schwarz is 3 for the receiver under any rules."""
    expected, changes = by_the_rules(scoring.DEFAULT_RULES, 11, 1, [("deal", 2, Outcome.SCHWARZ)])
    assert expected["scores"] == [[0, 3]]
    assert changes[0]["outcome"] == "schwarz"

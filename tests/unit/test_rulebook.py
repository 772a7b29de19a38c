"""The rules as the page's script receives them (counter/game/rulebook.py) say what scoring
says, and are built once for every page.

The script folds these data the way these tests do; tests/browser/test_parity.py then runs
the script itself in Chromium against the server.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from counter.game import rulebook, scoring
from counter.game.games import GAMES, Game
from counter.game.rulebook import COMPARISONS, ROLES, for_the_script, outcome_under
from counter.game.scoring import DealResult, HouseRules, Outcome

EVERY_RULE = [
    HouseRules(**dict(zip([s.name for s in HouseRules.switches()], choices, strict=True)))
    for choices in itertools.product(*(list(s.kind) for s in HouseRules.switches()))
]


def outcomes_as_the_script_folds_them(rules: HouseRules) -> dict[str, Any]:
    data = for_the_script()
    chosen = rules.as_dict()
    merged = dict(data["outcomes"])
    for name in data["rule_names"]:
        merged.update(data["choices"][name][chosen[name]])
    return merged


@pytest.mark.parametrize("rules", EVERY_RULE, ids=lambda rules: " ".join(rules.as_dict().values()))
def test_every_combination_of_house_rules_folds_to_what_scoring_says(rules: HouseRules) -> None:
    assert outcomes_as_the_script_folds_them(rules) == {
        outcome.value: outcome_under(rules, outcome) for outcome in Outcome
    }


def test_an_outcome_refused_by_the_rules_has_no_points() -> None:
    assert outcome_under(scoring.DEFAULT_RULES, Outcome.TIE) == {"points": None, "button": False}


def test_an_outcome_without_a_button_still_has_its_points() -> None:
    """Queued before another phone changed the rules, the server still scores it."""
    always_3 = dataclasses.replace(scoring.DEFAULT_RULES, failed_close=scoring.FailedClose.ALWAYS_3)
    assert outcome_under(always_3, Outcome.FAILED_CLOSE_NO_TRICK) == {"points": 3, "button": False}


@pytest.mark.parametrize("choice", list(scoring.NextDealer))
@pytest.mark.parametrize(("dealer", "receiver"), list(itertools.product((1, 2), (1, 2, None))))
def test_the_next_dealer_roles_pick_the_seat_scoring_picks(
    choice: scoring.NextDealer, dealer: scoring.Seat, receiver: scoring.Seat | None
) -> None:
    rules = dataclasses.replace(scoring.DEFAULT_RULES, next_dealer=choice)
    outcome = Outcome.TIE if receiver is None else Outcome.NORMAL
    deal = DealResult(receiver, outcome, 0 if receiver is None else 1, rules)
    role = for_the_script()["dealer"][choice.value]["won" if receiver else "tie"]
    assert ROLES[role](dealer, receiver) == scoring.next_dealer(dealer, deal)


@pytest.mark.parametrize("dealer", [1, 2])
def test_the_leader_role_picks_the_seat_scoring_picks(dealer: scoring.Seat) -> None:
    assert ROLES[for_the_script()["leader"]](dealer, None) == scoring.leader(dealer)


@pytest.mark.parametrize("target", scoring.TARGETS)
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_the_comparison_wins_where_scoring_does(target: int, offset: int) -> None:
    compare = COMPARISONS[for_the_script()["reach"]]
    standing = scoring.Standing((target + offset, 0), target)
    assert compare(target + offset, target) is (standing.winner == 1)


def test_a_rule_no_role_describes_is_refused_not_guessed() -> None:
    with pytest.raises(ValueError, match="teach the script one"):
        rulebook._role([(1, 1, 2), (1, 2, 1)])  # always seat 1: no role says that


def test_the_rules_as_data_are_built_once() -> None:
    assert rulebook.for_the_script() is rulebook.for_the_script()


@pytest.mark.parametrize("game", list(GAMES.values()), ids=lambda game: game.name.value)
def test_each_game_is_sent_as_it_is_defined(game: Game) -> None:
    sent = for_the_script()["games"][game.name.value]
    assert (sent["target"], sent["targets"], sent["rules"]) == (
        game.target,
        list(game.targets),
        game.rules.as_dict(),
    )
    for switch in HouseRules.switches():
        assert sent["variants"][switch.name] == [each.value for each in game.choices(switch.name)]


@pytest.mark.parametrize("game", list(GAMES.values()), ids=lambda game: game.name.value)
@pytest.mark.parametrize("score", range(10))
def test_the_script_shows_a_score_as_the_game_does(game: Game, score: int) -> None:
    shown = rulebook.SHOWN[for_the_script()["games"][game.name.value]["shown"]]
    assert shown(score, 7) == game.shown(score, 7)


@pytest.mark.parametrize("game", list(GAMES.values()), ids=lambda game: game.name.value)
@pytest.mark.parametrize("shutout", list(scoring.Shutout))
@pytest.mark.parametrize("scores", [(7, 0), (7, 3), (2, 8), (0, 7)])
def test_the_script_counts_a_won_match_as_the_game_does(
    game: Game, shutout: scoring.Shutout, scores: tuple[int, int]
) -> None:
    """As static/standing.js folds it: marks[shutout][loser never scored] to the tally's seat."""
    sent = for_the_script()["games"][game.name.value]
    standing = scoring.Standing(scores, 7)
    winner = standing.winner
    assert winner is not None
    loser = scoring.other(winner)
    rules = dataclasses.replace(game.rules, shutout=shutout)
    seat = rulebook.TALLIES[sent["tally"]](winner)
    marks = sent["marks"][shutout.value][1 if standing.score(loser) == 0 else 0]
    assert (seat, marks) == (game.tallied(standing), game.marks(standing, rules))

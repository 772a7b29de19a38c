"""The scoring rules, without Flask or a database: the table in RULES.md as cases."""

from __future__ import annotations

import pytest

from counter import scoring
from counter.scoring import (
    DealResult,
    MatchFinished,
    Outcome,
    RuleError,
    Standing,
    TargetWouldEndMatch,
    games_in_series,
    running_totals,
    score_deal,
    standing,
)


@pytest.mark.parametrize(
    ("outcome", "points"),
    [
        ("normal", 1),  # winner at 66, loser on 33 or more
        ("schneider", 2),  # loser took a trick but stayed under 33
        ("schwarz", 3),  # loser took no trick
        ("failed_close", 2),  # the other player closed and missed 66
        ("failed_close_no_trick", 3),  # ... and the receiver had no trick when it closed
        ("wrong_claim", 2),  # the other player claimed 66 without it
    ],
)
def test_each_outcome_is_worth_its_game_points(outcome: str, points: int) -> None:
    assert score_deal(1, scoring.parse_outcome(outcome)).points == points


def test_every_outcome_has_a_point_value() -> None:
    assert set(scoring.POINTS) == set(Outcome)


@pytest.mark.parametrize("seat", [1, 2])
def test_points_go_to_the_player_who_receives_them(seat: scoring.Seat) -> None:
    after = standing([score_deal(seat, Outcome.WRONG_CLAIM)], target=11)
    assert after.score(seat) == 2
    assert after.score(2 if seat == 1 else 1) == 0


def test_deals_add_up_for_each_player() -> None:
    deals = [
        score_deal(1, Outcome.NORMAL),
        score_deal(2, Outcome.SCHWARZ),
        score_deal(1, Outcome.SCHNEIDER),
    ]
    assert standing(deals, target=11).scores == (3, 3)


def test_a_match_without_deals_stands_at_nil_with_no_winner() -> None:
    empty = standing([], target=11)
    assert empty.scores == (0, 0)
    assert empty.winner is None
    assert not empty.finished


@pytest.mark.parametrize(
    ("scores", "target", "winner"),
    [
        ((10, 9), 11, None),
        ((11, 9), 11, 1),  # reaching the target exactly ends the match
        ((9, 13), 11, 2),  # passing it too
        ((6, 6), 7, None),
        ((7, 0), 7, 1),
        ((14, 12), 15, None),
        ((14, 15), 15, 2),
    ],
)
def test_the_first_to_reach_the_target_wins(
    scores: tuple[int, int], target: int, winner: int | None
) -> None:
    assert Standing(scores, target).winner == winner


def test_points_past_the_target_are_kept_as_scored() -> None:
    deals = [score_deal(1, Outcome.SCHWARZ)] * 3 + [score_deal(1, Outcome.SCHWARZ)]
    final = standing(deals, target=11)
    assert final.scores == (12, 0)
    assert final.winner == 1


def test_a_finished_match_refuses_another_deal() -> None:
    won = Standing((11, 4), 11, ("Ivan", "Maria"))
    with pytest.raises(MatchFinished, match="Ivan won 11:4"):
        won.after(score_deal(2, Outcome.NORMAL))


def test_running_totals_follow_each_deal() -> None:
    deals = [score_deal(1, Outcome.NORMAL), score_deal(2, Outcome.SCHNEIDER)]
    assert [after.scores for after in running_totals(deals, 11)] == [(1, 0), (1, 2)]


@pytest.mark.parametrize(
    ("scores", "old", "new", "finished"),
    [
        ((5, 6), 11, 7, False),  # lowering below nobody's score is fine
        ((5, 6), 11, 15, False),
        ((11, 3), 11, 15, False),  # raising a finished match reopens it
        ((7, 2), 7, 11, False),
    ],
)
def test_a_target_switch_that_ends_nothing_is_allowed(
    scores: tuple[int, int], old: int, new: int, finished: bool
) -> None:
    switched = Standing(scores, old).with_target(new)
    assert switched.target == new
    assert switched.finished is finished


@pytest.mark.parametrize(
    ("scores", "old", "new"),
    [
        ((7, 2), 11, 7),  # someone already has the new target
        ((3, 9), 11, 7),
        ((12, 4), 15, 11),
        ((11, 3), 11, 7),  # a finished match cannot be moved to a lower target
    ],
)
def test_a_target_switch_that_would_end_the_match_is_refused(
    scores: tuple[int, int], old: int, new: int
) -> None:
    with pytest.raises(TargetWouldEndMatch, match=f"target of {new} would end the match"):
        Standing(scores, old, ("Ivan", "Maria")).with_target(new)


def test_switching_to_the_same_target_changes_nothing() -> None:
    won = Standing((11, 3), 11)
    assert won.with_target(11) == won


@pytest.mark.parametrize("target", [7, 11, 15])
def test_offered_targets_are_accepted(target: int) -> None:
    assert scoring.parse_target(target) == target


@pytest.mark.parametrize("target", [0, 10, 21, -11, "11", 11.0, True, None])
def test_other_targets_are_refused(target: object) -> None:
    with pytest.raises(RuleError, match="7, 11, 15"):
        scoring.parse_target(target)


@pytest.mark.parametrize("seat", [0, 3, "1", 1.0, True, None])
def test_only_seats_1_and_2_exist(seat: object) -> None:
    with pytest.raises(RuleError, match="Player must be 1 or 2"):
        scoring.parse_seat(seat)


@pytest.mark.parametrize("outcome", ["win", "NORMAL", "", 1, None])
def test_unknown_outcomes_are_refused_with_the_known_ones_named(outcome: object) -> None:
    with pytest.raises(RuleError, match="normal, schneider, schwarz"):
        scoring.parse_outcome(outcome)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("Иван", "Иван"),
        ("  Мария  ", "Мария"),
        ("Anna  Maria", "Anna Maria"),
        ("😀 Joy", "😀 Joy"),
        ("👩‍👩‍👧 family", "👩‍👩‍👧 family"),  # joined by zero-width joiners
        ("x" * 40, "x" * 40),
    ],
)
def test_names_are_trimmed_and_any_script_is_welcome(given: str, kept: str) -> None:
    assert scoring.parse_name(given, 1) == kept


@pytest.mark.parametrize("given", ["", "   ", None])
def test_an_empty_name_falls_back_to_the_default(given: str | None) -> None:
    assert scoring.parse_name(given, 2) == "Player 2"


@pytest.mark.parametrize("given", ["x" * 41, "bad\x00name", "bell\x07", "\ud800", 42])
def test_long_unprintable_or_non_text_names_are_refused(given: object) -> None:
    with pytest.raises(RuleError, match="name of player 1"):
        scoring.parse_name(given, 1)


def test_two_players_may_not_share_a_name() -> None:
    with pytest.raises(RuleError, match="different names"):
        scoring.parse_names("Ivan", "ivan")


def test_games_count_the_matches_each_player_has_won_so_far() -> None:
    pair = ("Ivan", "Maria")
    assert games_in_series([(pair, 1), (pair, 2), (pair, 1), (pair, None)]) == [
        (1, 0),
        (1, 1),
        (2, 1),
        (2, 1),
    ]


def test_games_follow_the_player_whichever_seat_they_take() -> None:
    assert games_in_series([(("Ivan", "Maria"), 1), (("Maria", "Ivan"), 1)]) == [(1, 0), (1, 1)]


def test_games_are_counted_per_pair_of_players() -> None:
    history = [(("Ivan", "Maria"), 1), (("Ivan", "Petar"), None), (("Ivan", "Maria"), None)]
    assert games_in_series(history) == [(1, 0), (0, 0), (1, 0)]


def test_a_deal_result_keeps_the_points_it_was_given() -> None:
    # Recorded deals are totalled as stored, whatever the table says today.
    assert standing([DealResult(1, Outcome.NORMAL, 5)], 11).scores == (5, 0)


def test_a_corrected_list_of_deals_is_totalled_afresh() -> None:
    deals = [score_deal(1, Outcome.NORMAL), score_deal(2, Outcome.SCHWARZ)]
    assert scoring.replay(deals, 11).scores == (1, 3)


def test_a_correction_may_finish_the_match_at_its_last_deal() -> None:
    deals = [score_deal(1, Outcome.SCHWARZ)] * 2 + [score_deal(1, Outcome.NORMAL)]
    assert scoring.replay(deals, 7).winner == 1


def test_a_correction_that_wins_the_match_before_its_last_deal_is_refused() -> None:
    deals = [score_deal(1, Outcome.SCHWARZ)] * 3 + [score_deal(2, Outcome.NORMAL)]
    with pytest.raises(scoring.CorrectionWouldEndMatch, match="already be won at deal 3"):
        scoring.replay(deals, 7)


ALWAYS_3 = scoring.HouseRules(failed_close=scoring.FailedClose.ALWAYS_3)
ALWAYS_2 = scoring.HouseRules(failed_close=scoring.FailedClose.ALWAYS_2)
CLAIM_BY_TRICKS = scoring.HouseRules(wrong_claim=scoring.WrongClaim.BY_TRICKS)


@pytest.mark.parametrize(
    ("rules", "outcome", "points"),
    [
        (scoring.DEFAULT_RULES, "failed_close", 2),
        (scoring.DEFAULT_RULES, "failed_close_no_trick", 3),
        (scoring.DEFAULT_RULES, "wrong_claim", 2),
        (scoring.DEFAULT_RULES, "wrong_claim_no_trick", 2),
        (ALWAYS_3, "failed_close", 3),
        (ALWAYS_3, "failed_close_no_trick", 3),
        (ALWAYS_2, "failed_close", 2),
        (ALWAYS_2, "failed_close_no_trick", 2),
        (CLAIM_BY_TRICKS, "wrong_claim", 2),
        (CLAIM_BY_TRICKS, "wrong_claim_no_trick", 3),
        (ALWAYS_3, "normal", 1),
        (CLAIM_BY_TRICKS, "schwarz", 3),
    ],
)
def test_each_house_rule_sets_its_points(
    rules: scoring.HouseRules, outcome: str, points: int
) -> None:
    assert score_deal(1, Outcome(outcome), rules).points == points


@pytest.mark.parametrize(
    ("rules", "absent"),
    [
        (scoring.DEFAULT_RULES, {Outcome.WRONG_CLAIM_NO_TRICK, Outcome.TIE}),
        (ALWAYS_3, {Outcome.FAILED_CLOSE_NO_TRICK, Outcome.WRONG_CLAIM_NO_TRICK, Outcome.TIE}),
        (CLAIM_BY_TRICKS, {Outcome.TIE}),
    ],
)
def test_a_no_trick_button_shows_only_where_it_pays(
    rules: scoring.HouseRules, absent: set[Outcome]
) -> None:
    assert set(Outcome) - set(rules.outcomes) == absent


def test_the_pagat_preset_plays_to_7() -> None:
    assert scoring.PRESETS["pagat66"][1] == 7
    assert scoring.PRESETS["santase"] == (scoring.DEFAULT_RULES, 11)


@pytest.mark.parametrize(
    ("rule", "winners", "dealers"),
    [
        (scoring.NextDealer.WINNER, [2, 2, 1], [1, 2, 2, 1]),
        (scoring.NextDealer.ALTERNATE, [2, 2, 1], [1, 2, 1, 2]),
        (scoring.NextDealer.WINNER, [], [1]),
    ],
)
def test_the_dealer_follows_the_rule(
    rule: scoring.NextDealer, winners: list[scoring.Seat], dealers: list[int]
) -> None:
    deals = [score_deal(winner, Outcome.NORMAL) for winner in winners]
    assert scoring.dealers(1, deals, rule) == dealers


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"failed_close": "always_4"}, "failed_close cannot be"),
        ({"dealer": "winner"}, "no house rule called"),
        ("always_3", "object of switches"),
    ],
)
def test_unknown_house_rules_are_refused(value: object, message: str) -> None:
    with pytest.raises(RuleError, match=message):
        scoring.parse_rules(value, scoring.DEFAULT_RULES)


def test_house_rules_change_only_what_is_named() -> None:
    changed = scoring.parse_rules({"next_dealer": "alternate"}, ALWAYS_3)
    assert changed == scoring.HouseRules(
        scoring.FailedClose.ALWAYS_3,
        scoring.WrongClaim.ALWAYS_2,
        scoring.NextDealer.ALTERNATE,
        scoring.Ties.NOT_RECORDED,
    )


TIES = scoring.HouseRules(ties=scoring.Ties.NO_POINTS)


def test_a_tied_deal_gives_nobody_points_where_the_rules_record_it() -> None:
    tie = score_deal(None, Outcome.TIE, TIES)
    assert (tie.player, tie.points) == (None, 0)
    assert standing([score_deal(1, Outcome.NORMAL), tie], 11).scores == (1, 0)


def test_a_tied_deal_is_refused_where_the_rules_do_not_record_it() -> None:
    with pytest.raises(RuleError, match="not recorded"):
        score_deal(None, Outcome.TIE)


def test_a_tied_deal_names_no_player() -> None:
    with pytest.raises(RuleError, match="leave the player out"):
        score_deal(1, Outcome.TIE, TIES)


@pytest.mark.parametrize("rule", list(scoring.NextDealer))
def test_after_a_tie_the_same_player_deals_again(rule: scoring.NextDealer) -> None:
    deals = [score_deal(None, Outcome.TIE, TIES), score_deal(None, Outcome.TIE, TIES)]
    assert scoring.dealers(2, deals, rule) == [2, 2, 2]


def test_the_tie_button_shows_only_where_ties_are_recorded() -> None:
    assert Outcome.TIE not in scoring.DEFAULT_RULES.outcomes
    assert Outcome.TIE in TIES.outcomes

"""The scoring rules, without Flask or a database: the rules page's tables as cases."""

from __future__ import annotations

import pytest

from counter.game import parsing, scoring
from counter.game.refusals import Conflict, Refusal
from counter.game.scoring import (
    DealResult,
    HouseRules,
    MatchFinished,
    Outcome,
    Standing,
    TargetWouldReopenMatch,
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
    assert score_deal(1, parsing.outcome(outcome)).points == points


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


def test_totalling_deals_refuses_one_after_the_match_was_won() -> None:
    deals = [score_deal(1, Outcome.SCHWARZ)] * 4 + [score_deal(2, Outcome.NORMAL)]
    with pytest.raises(MatchFinished, match="won 12:0"):
        standing(deals, target=11)


def test_running_totals_can_start_from_the_deals_before() -> None:
    deals = [score_deal(2, Outcome.NORMAL)]
    assert [after.scores for after in running_totals(deals, 11, start=(5, 3))] == [(5, 4)]


def test_running_totals_follow_each_deal() -> None:
    deals = [score_deal(1, Outcome.NORMAL), score_deal(2, Outcome.SCHNEIDER)]
    assert [after.scores for after in running_totals(deals, 11)] == [(1, 0), (1, 2)]


@pytest.mark.parametrize(
    ("scores", "old", "new"),
    [
        ((5, 6), 11, 7),  # lowering below nobody's score is fine
        ((5, 6), 11, 15),
        ((10, 3), 11, 15),
    ],
)
def test_a_target_switch_that_ends_nothing_is_allowed(
    scores: tuple[int, int], old: int, new: int
) -> None:
    switched = Standing(scores, old).with_target(new)
    assert switched.target == new
    assert not switched.finished


@pytest.mark.parametrize(("scores", "old", "new"), [((11, 3), 11, 15), ((7, 2), 7, 11)])
def test_raising_the_target_of_a_finished_match_must_say_to_play_on(
    scores: tuple[int, int], old: int, new: int
) -> None:
    won = Standing(scores, old, ("Ivan", "Maria"))
    with pytest.raises(TargetWouldReopenMatch, match=f"Ivan has already won .* to {new}"):
        won.with_target(new)


def test_playing_on_to_a_higher_target_takes_the_win_back() -> None:
    reopened = Standing((11, 3), 11).with_target(15, play_on=True)
    assert (reopened.target, reopened.winner) == (15, None)


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
    with pytest.raises(Conflict, match=f"target of {new} would end the match"):
        Standing(scores, old, ("Ivan", "Maria")).with_target(new)


def test_switching_to_the_same_target_changes_nothing() -> None:
    won = Standing((11, 3), 11)
    assert won.with_target(11) == won


@pytest.mark.parametrize("target", [7, 11, 15, 11.0])
def test_offered_targets_are_accepted(target: int) -> None:
    assert parsing.target(target) == target  # 11.0 is how some JSON writes 11


@pytest.mark.parametrize(
    "target", [0, 10, 21, -11, "11", 11.5, True, None, pytest.param(10**5000, id="huge")]
)
def test_other_targets_are_refused(target: object) -> None:
    with pytest.raises(Refusal, match="7, 11 or 15"):
        parsing.target(target)


@pytest.mark.parametrize("seat", [0, 3, "1", 1.5, True, None])
def test_only_seats_1_and_2_exist(seat: object) -> None:
    with pytest.raises(Refusal, match="player must be 1 or 2"):
        parsing.seat(seat)


@pytest.mark.parametrize("outcome", ["win", "NORMAL", "", 1, None])
def test_unknown_outcomes_are_refused_with_the_known_ones_named(outcome: object) -> None:
    with pytest.raises(Refusal, match="normal, schneider, schwarz"):
        parsing.outcome(outcome)


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
    with pytest.raises(Conflict, match="already be won at deal 3"):
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


@pytest.mark.parametrize(
    ("name", "rules", "target"),
    [
        ("santase", scoring.DEFAULT_RULES, 11),
        (
            "clubs",
            HouseRules(
                failed_close=scoring.FailedClose.ALWAYS_3,
                next_dealer=scoring.NextDealer.ALTERNATE,
            ),
            11,
        ),
        # pagat.com: a wrong 66 costs 2 always, a 65:65 is a draw.
        ("sixty_six", HouseRules(ties=scoring.Ties.NO_POINTS), 7),
        (
            "schnapsen",
            HouseRules(
                wrong_claim=scoring.WrongClaim.BY_TRICKS,
                next_dealer=scoring.NextDealer.ALTERNATE,
                shutout=scoring.Shutout.TWICE,
            ),
            7,
        ),
    ],
)
def test_each_preset_is_a_set_of_rules_and_a_target(
    name: str, rules: HouseRules, target: int
) -> None:
    preset = parsing.preset(name)
    assert (preset.rules, preset.target) == (rules, target)


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
    rules = HouseRules(next_dealer=rule)
    deals = [score_deal(winner, Outcome.NORMAL, rules) for winner in winners]
    assert scoring.dealers(1, deals) == dealers


def test_each_deal_passes_the_deal_on_by_the_rules_it_was_recorded_under() -> None:
    alternate = HouseRules(next_dealer=scoring.NextDealer.ALTERNATE)
    deals = [score_deal(2, Outcome.NORMAL), score_deal(2, Outcome.NORMAL, alternate)]
    assert scoring.dealers(1, deals) == [1, 2, 1]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"failed_close": "always_4"}, "failed_close cannot be"),
        ({"failed_close": None}, "failed_close cannot be"),
        ({"failed_close": ["always_3"]}, "failed_close cannot be"),
        ({"dealer": "winner"}, "no house rule called"),
        ("always_3", "object of switches"),
    ],
)
def test_unknown_house_rules_are_refused(value: object, message: str) -> None:
    with pytest.raises(Refusal, match=message):
        parsing.house_rules(value)


def test_house_rules_change_only_what_is_named() -> None:
    changed = parsing.house_rules({"next_dealer": "alternate"}, ALWAYS_3)
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
    with pytest.raises(Refusal, match="not recorded"):
        score_deal(None, Outcome.TIE)


def test_a_tied_deal_names_no_player() -> None:
    with pytest.raises(Refusal, match="leave the player out"):
        score_deal(1, Outcome.TIE, TIES)


@pytest.mark.parametrize(
    ("rule", "dealers"),
    [
        (scoring.NextDealer.WINNER, [2, 2, 2]),  # nobody won: the same player deals again
        (scoring.NextDealer.ALTERNATE, [2, 1, 2]),  # in turn: a tie passes the deal on too
    ],
)
def test_after_a_tie_the_deal_follows_the_rule(
    rule: scoring.NextDealer, dealers: list[int]
) -> None:
    rules = HouseRules(ties=scoring.Ties.NO_POINTS, next_dealer=rule)
    deals = [score_deal(None, Outcome.TIE, rules), score_deal(None, Outcome.TIE, rules)]
    assert scoring.dealers(2, deals) == dealers


def test_the_tie_button_shows_only_where_ties_are_recorded() -> None:
    assert Outcome.TIE not in scoring.DEFAULT_RULES.outcomes
    assert Outcome.TIE in TIES.outcomes


def test_house_rules_round_trip_through_their_dict() -> None:
    rules = HouseRules(failed_close=scoring.FailedClose.ALWAYS_2, ties=scoring.Ties.NO_POINTS)
    assert parsing.house_rules(rules.as_dict()) == rules
    assert set(rules.as_dict()) == {switch.name for switch in HouseRules.switches()}


@pytest.mark.parametrize("rules", [scoring.DEFAULT_RULES, ALWAYS_3, CLAIM_BY_TRICKS, TIES])
def test_the_table_for_the_script_holds_the_points_of_each_button(rules: HouseRules) -> None:
    table = rules.as_table()
    assert table["points"] == {outcome.value: rules.points(outcome) for outcome in rules.outcomes}
    assert table["next_dealer"] == rules.next_dealer.value


@pytest.mark.parametrize(
    ("deal", "refused"),
    [
        (DealResult(1, Outcome.NORMAL, 1), False),
        (DealResult(1, Outcome.NORMAL, 3), True),
        (DealResult(2, Outcome.SCHWARZ, 0), True),
        (DealResult(2, Outcome.FAILED_CLOSE, 3, ALWAYS_3), False),
        (DealResult(2, Outcome.FAILED_CLOSE, 3), True),
        (DealResult(1, Outcome.TIE, 3), True),  # a tie is nobody's, under rules without ties
        (DealResult(None, Outcome.TIE, 0, TIES), False),
    ],
)
def test_a_deal_must_be_worth_what_its_rules_say(deal: DealResult, refused: bool) -> None:
    if refused:
        with pytest.raises(Refusal):
            scoring.check_points(deal)
    else:
        scoring.check_points(deal)


def test_a_match_keeps_a_bounded_number_of_deals() -> None:
    with pytest.raises(Conflict, match=f"already has {scoring.MAX_DEALS_PER_MATCH} deals"):
        scoring.check_room(scoring.MAX_DEALS_PER_MATCH)
    scoring.check_room(scoring.MAX_DEALS_PER_MATCH - 1)

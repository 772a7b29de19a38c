"""A match as the game's plain object: each change a method, every figure from the deals."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from counter.game import scoring
from counter.game.games import GAMES
from counter.game.match import (
    DealNotFound,
    DealsChanged,
    Match,
    NothingToUndo,
    RequestReused,
)
from counter.game.refusals import Conflict
from counter.game.scoring import (
    PRESETS,
    GameName,
    HouseRules,
    MatchFinished,
    NextDealer,
    Outcome,
    TargetWouldReopenMatch,
    Ties,
)

AT = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
LATER = datetime(2026, 12, 2, 20, 5, tzinfo=UTC)


def a_match(*deals: tuple[scoring.Seat | None, Outcome], **settings: object) -> Match:
    match = Match(uid="u", names=("Ana", "Boris"), created_at=AT, **settings)  # type: ignore[arg-type]
    for seat, outcome in deals:
        match.record(seat, outcome, at=AT)
    return match


# --- what the deals come to ---------------------------------------------------------------


def test_a_new_match_has_no_score_no_winner_and_its_first_dealer_deals() -> None:
    match = a_match(first_dealer=2)
    assert (match.standing.scores, match.winner, match.dealers) == ((0, 0), None, [2])


@pytest.mark.parametrize(
    ("deals", "scores"),
    [
        ([(1, Outcome.NORMAL)], (1, 0)),
        ([(1, Outcome.SCHWARZ), (2, Outcome.SCHNEIDER)], (3, 2)),
        ([(2, Outcome.FAILED_CLOSE_NO_TRICK), (2, Outcome.WRONG_CLAIM)], (0, 5)),
    ],
)
def test_the_score_is_the_sum_of_each_players_deals(
    deals: list[tuple[scoring.Seat, Outcome]], scores: tuple[int, int]
) -> None:
    assert a_match(*deals).standing.scores == scores


def test_the_deal_that_reaches_the_target_wins_the_match_and_says_when() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 2, target=7)
    assert match.finished_at is None
    match.record(1, Outcome.NORMAL, at=LATER)
    assert (match.winner, match.finished_at) == (1, LATER)


@pytest.mark.parametrize(
    ("rule", "dealers"), [(NextDealer.WINNER, [1, 2, 2, 1]), (NextDealer.ALTERNATE, [1, 2, 1, 2])]
)
def test_who_deals_follows_the_rule_each_deal_was_recorded_under(
    rule: NextDealer, dealers: list[int]
) -> None:
    match = a_match((2, Outcome.NORMAL), (2, Outcome.NORMAL), (1, Outcome.NORMAL))
    for deal in match.deals:
        deal.rules = HouseRules(next_dealer=rule)
    assert match.dealers == dealers


def test_running_totals_follow_each_deal() -> None:
    match = a_match((1, Outcome.SCHNEIDER), (2, Outcome.SCHWARZ))
    assert [each.scores for each in match.running_totals()] == [(2, 0), (2, 3)]


# --- recording -----------------------------------------------------------------------------


def test_a_deal_keeps_the_rules_it_was_recorded_under() -> None:
    match = a_match()
    match.change(rules=HouseRules(failed_close=scoring.FailedClose.ALWAYS_3))
    deal = match.record(2, Outcome.FAILED_CLOSE, at=AT)
    match.change(rules=HouseRules())
    assert deal is not None
    assert (deal.points, deal.rules.failed_close) == (3, scoring.FailedClose.ALWAYS_3)


def test_the_same_request_again_records_nothing() -> None:
    match = a_match()
    assert match.record(1, Outcome.NORMAL, at=AT, request_id="tap") is not None
    assert match.record(1, Outcome.NORMAL, at=AT, request_id="tap") is None
    assert len(match.deals) == 1


def test_the_same_request_for_another_deal_is_refused() -> None:
    match = a_match()
    match.record(1, Outcome.NORMAL, at=AT, request_id="tap")
    with pytest.raises(RequestReused):
        match.record(2, Outcome.NORMAL, at=AT, request_id="tap")


def test_a_deal_that_followed_another_count_of_deals_is_refused() -> None:
    match = a_match((1, Outcome.NORMAL))
    with pytest.raises(DealsChanged):
        match.record(2, Outcome.NORMAL, at=AT, after=0)
    assert match.record(2, Outcome.NORMAL, at=AT, after=1) is not None


def test_a_won_match_takes_no_more_deals() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 4)
    with pytest.raises(MatchFinished):
        match.record(2, Outcome.NORMAL, at=AT)


@pytest.mark.parametrize(
    ("seat", "outcome", "refused"),
    [
        (2, Outcome.NORMAL, DealsChanged),  # another result for the winning deal: asked
        (1, Outcome.SCHWARZ, MatchFinished),  # the same result: that deal is in, the match over
    ],
)
def test_a_deal_that_missed_the_winning_deal_is_asked_about_only_if_it_differs(
    seat: scoring.Seat, outcome: Outcome, refused: type[Exception]
) -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 4)
    with pytest.raises(refused):
        match.record(seat, outcome, at=AT, after=3)


def test_a_deal_that_missed_several_deals_of_a_won_match_is_refused_as_over() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 4)
    with pytest.raises(MatchFinished):
        match.record(2, Outcome.NORMAL, at=AT, after=2)


def test_a_won_schnapsen_refuses_a_deal_with_the_score_left_to_make() -> None:
    match = a_match(game=GAMES[GameName.SCHNAPSEN], target=7)
    for seat, outcome in [(2, Outcome.NORMAL), *[(1, Outcome.SCHWARZ)] * 3]:
        match.record(seat, outcome, at=AT)  # type: ignore[arg-type]
    with pytest.raises(MatchFinished, match=r"Ana won 0:6\."):
        match.record(2, Outcome.NORMAL, at=AT)


def test_a_match_holds_a_bounded_number_of_deals() -> None:
    match = a_match(rules=HouseRules(ties=Ties.NO_POINTS))
    for _ in range(scoring.MAX_DEALS_PER_MATCH):
        match.record(None, Outcome.TIE, at=AT)
    with pytest.raises(Conflict, match=f"already has {scoring.MAX_DEALS_PER_MATCH} deals"):
        match.record(None, Outcome.TIE, at=AT)


# --- undo, corrections, deletions ----------------------------------------------------------


def test_undo_takes_back_the_last_deal_and_reopens_a_won_match() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 4)
    undone = match.undo()
    assert undone is not None
    assert (len(match.deals), match.winner) == (3, None)


def test_undo_of_a_deal_taken_back_already_takes_back_nothing() -> None:
    match = a_match()
    match.record(1, Outcome.NORMAL, at=AT, request_id="tap")
    assert match.undo(request_id="tap") is not None
    assert match.undo(request_id="tap") is None


@pytest.mark.parametrize("asked", [{"number": 1}, {"request_id": "first"}])
def test_undo_of_a_deal_that_is_no_longer_the_last_is_refused(asked: dict[str, object]) -> None:
    match = a_match()
    match.record(1, Outcome.NORMAL, at=AT, request_id="first")
    match.record(2, Outcome.NORMAL, at=AT)
    with pytest.raises(NothingToUndo):
        match.undo(**asked)  # type: ignore[arg-type]


def test_undo_of_a_match_without_deals_is_refused() -> None:
    with pytest.raises(NothingToUndo):
        a_match().undo()


def test_a_correction_scores_the_deal_again_and_notes_when() -> None:
    match = a_match((1, Outcome.NORMAL), (2, Outcome.NORMAL))
    match.correct(1, seat=2, outcome=Outcome.SCHWARZ, at=LATER)
    assert match.standing.scores == (0, 4)
    assert (match.deals[0].corrected_at, match.deals[1].corrected_at) == (LATER, None)


def test_a_correction_that_changes_nothing_is_not_noted() -> None:
    match = a_match((1, Outcome.NORMAL))
    match.correct(1, seat=1, outcome=None, at=LATER)
    assert match.deals[0].corrected_at is None


def test_a_correction_that_would_win_the_match_before_its_last_deal_is_refused() -> None:
    deals = [(1, Outcome.SCHWARZ)] * 2 + [(2, Outcome.NORMAL)] * 2
    match = a_match(*deals, target=7)  # 6:2
    with pytest.raises(Conflict, match="already be won at deal 3"):
        match.correct(3, seat=1, outcome=Outcome.NORMAL, at=LATER)  # 7 at deal 3 of 4
    assert match.standing.scores == (6, 2)


def test_deleting_a_deal_moves_the_later_ones_up() -> None:
    match = a_match((1, Outcome.NORMAL), (2, Outcome.SCHWARZ), (1, Outcome.SCHNEIDER))
    removed = match.delete(2)
    assert removed.outcome is Outcome.SCHWARZ
    assert [deal.outcome for deal in match.deals] == [Outcome.NORMAL, Outcome.SCHNEIDER]


def test_a_deal_recorded_at_another_time_than_the_one_named_is_left_alone() -> None:
    match = a_match((1, Outcome.NORMAL))
    with pytest.raises(DealsChanged, match="deal 1 is now another deal"):
        match.correct(1, seat=2, outcome=None, at=LATER, recorded_at=LATER)
    with pytest.raises(DealsChanged):
        match.delete(1, recorded_at=LATER)
    assert match.delete(1, recorded_at=AT).player == 1


@pytest.mark.parametrize("number", [0, 2])
def test_a_deal_that_is_not_there_is_not_found(number: int) -> None:
    with pytest.raises(DealNotFound):
        a_match((1, Outcome.NORMAL)).delete(number)


# --- settings ------------------------------------------------------------------------------


def test_a_preset_sets_its_rules_and_its_target() -> None:
    match = a_match()
    match.change(preset=PRESETS["sixty_six"])
    assert (match.target, match.rules) == (7, PRESETS["sixty_six"].rules)


def test_a_target_given_beside_a_preset_is_the_one_kept() -> None:
    match = a_match()
    match.change(preset=PRESETS["sixty_six"], target=15)
    assert match.target == 15


def test_a_target_a_score_already_reaches_is_refused() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 3)
    with pytest.raises(Conflict, match="target of 7 would end the match"):
        match.change(target=7)
    assert match.target == 11


def test_a_higher_target_for_a_won_match_asks_to_play_on() -> None:
    match = a_match(*[(1, Outcome.SCHWARZ)] * 3, target=7)
    with pytest.raises(TargetWouldReopenMatch):
        match.change(target=11)
    match.change(target=11, play_on=True)
    assert (match.target, match.winner) == (11, None)


def test_who_deals_first_changes_only_before_the_first_deal() -> None:
    match = a_match()
    match.change(first_dealer=2)
    match.record(1, Outcome.NORMAL, at=AT)
    with pytest.raises(Conflict, match="Who dealt first can only be changed"):
        match.change(first_dealer=1)
    assert match.first_dealer == 2


def test_new_names_name_the_players_from_now_on() -> None:
    match = a_match((1, Outcome.NORMAL))
    match.change(names=("Ivan", "Maria"))
    assert match.standing.names == ("Ivan", "Maria")

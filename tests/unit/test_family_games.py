"""The games of the 66 family, each one definition: what a match of each is played to,
with which house rules, how its score is said and what a won match counts for whom."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from counter.game.games import (
    GAMES,
    SANTASE,
    game_of,
    session_standing,
    session_winner,
    sessions,
)
from counter.game.match import Match
from counter.game.refusals import Conflict, Invalid
from counter.game.scoring import (
    PRESETS,
    FailedClose,
    GameName,
    HouseRules,
    NextDealer,
    Outcome,
    Seat,
    Session,
    Shutout,
    Ties,
    WrongClaim,
)

AT = datetime(2026, 12, 2, 20, 0, tzinfo=UTC)
SCHNAPSEN = GAMES[GameName.SCHNAPSEN]
SIXTY_SIX = GAMES[GameName.SIXTY_SIX]


def a_match(name: GameName, *deals: tuple[Seat, Outcome]) -> Match:
    match = Match(uid="u", names=("Sepp", "Resi"), created_at=AT)
    match.change(game=GAMES[name])
    for seat, outcome in deals:
        match.record(seat, outcome, at=AT)
    return match


@pytest.mark.parametrize(
    ("name", "target", "targets", "rules"),
    [
        (GameName.SANTASE, 11, (7, 11, 15), HouseRules()),
        # pagat.com: to 7, the winner of a deal deals, 65:65 a draw, a wrong 66 costs 2.
        (GameName.SIXTY_SIX, 7, (7, 11, 15), HouseRules(ties=Ties.NO_POINTS)),
        # pagat.com and schnopsn.com: a Bummerl of 7, the deal alternates, a Schneider-Bummerl 2.
        (
            GameName.SCHNAPSEN,
            7,
            (7,),
            HouseRules(
                wrong_claim=WrongClaim.BY_TRICKS,
                next_dealer=NextDealer.ALTERNATE,
                shutout=Shutout.TWICE,
            ),
        ),
    ],
)
def test_each_game_starts_with_its_own_target_and_rules(
    name: GameName, target: int, targets: tuple[int, ...], rules: HouseRules
) -> None:
    match = a_match(name)
    assert (match.target, match.game.targets, match.rules) == (target, targets, rules)


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        (GameName.SANTASE, {"shutout": Shutout.TWICE}),
        (GameName.SIXTY_SIX, {"failed_close": FailedClose.ALWAYS_3}),
        (GameName.SCHNAPSEN, {"next_dealer": NextDealer.WINNER}),
        (GameName.SCHNAPSEN, {"ties": Ties.NO_POINTS}),
        (GameName.SCHNAPSEN, {"wrong_claim": WrongClaim.ALWAYS_2}),
    ],
)
def test_a_game_refuses_house_rules_it_is_not_played_with(
    name: GameName, rules: dict[str, object]
) -> None:
    match = a_match(name)
    with pytest.raises(Invalid):
        match.change(rules=dataclasses.replace(match.rules, **rules))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        (GameName.SIXTY_SIX, {"next_dealer": NextDealer.ALTERNATE}),
        (GameName.SIXTY_SIX, {"wrong_claim": WrongClaim.BY_TRICKS}),
        (GameName.SIXTY_SIX, {"shutout": Shutout.TWICE}),
        (GameName.SCHNAPSEN, {"shutout": Shutout.ONCE}),
    ],
)
def test_a_game_takes_the_variants_its_sources_give(
    name: GameName, rules: dict[str, object]
) -> None:
    match = a_match(name)
    match.change(rules=dataclasses.replace(match.rules, **rules))  # type: ignore[arg-type]
    assert match.rules.as_dict().items() >= {k: str(v) for k, v in rules.items()}.items()


def test_schnapsen_is_played_to_7_only() -> None:
    with pytest.raises(Invalid):
        a_match(GameName.SCHNAPSEN).change(target=11)


def test_the_game_is_chosen_before_the_first_deal() -> None:
    match = a_match(GameName.SANTASE, (1, Outcome.NORMAL))
    with pytest.raises(Conflict, match="The game can only be changed"):
        match.change(game=SCHNAPSEN)
    with pytest.raises(Conflict, match="The game can only be changed"):
        match.change(preset=PRESETS["schnapsen"])
    assert match.game == SANTASE


def test_a_preset_of_another_game_changes_the_game() -> None:
    match = Match(uid="u", names=("Sepp", "Resi"), created_at=AT)
    match.change(preset=PRESETS["schnapsen"])
    assert (match.game, match.target) == (SCHNAPSEN, 7)


@pytest.mark.parametrize(("score", "shown"), [(0, 7), (2, 5), (7, 0), (9, 0)])
def test_schnapsen_shows_what_is_left_to_make(score: int, shown: int) -> None:
    assert SCHNAPSEN.shown(score, 7) == shown


@pytest.mark.parametrize("name", [GameName.SANTASE, GameName.SIXTY_SIX])
def test_the_other_games_show_the_points_made(name: GameName) -> None:
    assert GAMES[name].shown(5, 7) == 5


@pytest.mark.parametrize(
    ("deals", "tallied", "marks"),
    [
        # Sepp gets to 0 first; Resi made 1: she has the Bummerl.
        (
            [(2, Outcome.NORMAL), (1, Outcome.SCHWARZ), (1, Outcome.SCHWARZ), (1, Outcome.NORMAL)],
            2,
            1,
        ),
        # Resi never scored: a Schneider-Bummerl, counted 2.
        ([(1, Outcome.SCHWARZ), (1, Outcome.SCHWARZ), (1, Outcome.NORMAL)], 2, 2),
        # Resi gets to 0 first: Sepp, at 4, gets the Bummerl.
        (
            [(1, Outcome.SCHWARZ), (2, Outcome.SCHWARZ), (2, Outcome.SCHWARZ), (2, Outcome.NORMAL)],
            1,
            1,
        ),
    ],
)
def test_the_loser_of_a_schnapsen_match_gets_the_bummerl(
    deals: list[tuple[Seat, Outcome]], tallied: Seat, marks: int
) -> None:
    match = a_match(GameName.SCHNAPSEN, *deals)
    assert (match.tallied, match.marks) == (tallied, marks)


def test_a_schneider_bummerl_counts_1_without_the_house_rule() -> None:
    match = a_match(GameName.SCHNAPSEN)
    match.change(rules=dataclasses.replace(match.rules, shutout=Shutout.ONCE))
    for _ in range(3):
        match.record(1, Outcome.SCHWARZ, at=AT)
    assert (match.tallied, match.marks) == (2, 1)


def test_an_unfinished_match_counts_nothing() -> None:
    match = a_match(GameName.SCHNAPSEN, (1, Outcome.SCHWARZ))
    assert (match.tallied, match.marks) == (None, 0)


def test_a_santase_match_counts_one_game_for_its_winner_even_to_nil() -> None:
    match = a_match(GameName.SANTASE, *[(1, Outcome.SCHWARZ)] * 4)
    assert (match.tallied, match.marks) == (1, 1)


def test_a_sixty_six_7_0_counts_two_games_where_the_rule_says_so() -> None:
    match = a_match(GameName.SIXTY_SIX)
    match.change(rules=dataclasses.replace(match.rules, shutout=Shutout.TWICE))
    for _ in range(3):
        match.record(2, Outcome.SCHWARZ, at=AT)
    assert (match.tallied, match.marks) == (2, 2)


def test_schnapsen_deals_alternate() -> None:
    match = a_match(GameName.SCHNAPSEN, (1, Outcome.NORMAL), (1, Outcome.NORMAL))
    assert match.dealers == [1, 2, 1]


@pytest.mark.parametrize(
    ("rules", "game"),
    [
        (HouseRules(), GameName.SANTASE),
        (HouseRules(failed_close=FailedClose.ALWAYS_3), GameName.SANTASE),
        # the Sixty-six preset before games were kept
        (HouseRules(wrong_claim=WrongClaim.BY_TRICKS, ties=Ties.NO_POINTS), GameName.SIXTY_SIX),
        (HouseRules(ties=Ties.NO_POINTS), GameName.SANTASE),
    ],
)
def test_a_match_from_before_games_is_the_game_its_rules_were(
    rules: HouseRules, game: GameName
) -> None:
    assert game_of(rules).name is game


# The winners of a pair's best-of-three Bummerl in order: each name's best of three won,
# and its Bummerl in the one still open.
SESSIONS = [
    ([], {}, {}),
    (["Sepp"], {}, {"Sepp": 1}),
    (["Sepp", "Resi"], {}, {"Sepp": 1, "Resi": 1}),
    (["Sepp", "Sepp"], {"Sepp": 1}, {}),
    (["Sepp", "Resi", "Resi"], {"Resi": 1}, {}),
    (["Sepp", "Resi", "Sepp", "Resi"], {"Sepp": 1}, {"Resi": 1}),
    (["Resi", "Resi", "Sepp", "Sepp", "Resi", "Resi"], {"Resi": 2, "Sepp": 1}, {}),
]


@pytest.mark.parametrize(("winners", "won", "still_open"), SESSIONS)
def test_a_best_of_three_is_won_by_the_first_to_win_two(
    winners: list[str], won: dict[str, int], still_open: dict[str, int]
) -> None:
    assert sessions(winners) == (won, still_open)


@pytest.mark.parametrize(
    ("session", "earlier", "winner", "standing", "taken_by"),
    [
        (Session.ONE, (1, 0), 1, None, None),
        (Session.BEST_OF_THREE, (0, 0), None, (0, 0), None),
        (Session.BEST_OF_THREE, (1, 0), 2, (1, 1), None),
        (Session.BEST_OF_THREE, (1, 1), 1, (2, 1), 1),
        (Session.BEST_OF_THREE, (0, 1), 2, (0, 2), 2),
    ],
)
def test_a_match_stands_in_its_best_of_three_with_its_own_win(
    session: Session,
    earlier: tuple[int, int],
    winner: Seat | None,
    standing: tuple[int, int] | None,
    taken_by: Seat | None,
) -> None:
    rules = dataclasses.replace(SCHNAPSEN.rules, session=session)
    assert session_standing(earlier, winner, rules) == standing
    assert session_winner(standing) == taken_by


@pytest.mark.parametrize("name", [GameName.SANTASE, GameName.SIXTY_SIX])
def test_only_schnapsen_is_played_best_of_three(name: GameName) -> None:
    with pytest.raises(Invalid):
        GAMES[name].check_rules(
            dataclasses.replace(GAMES[name].rules, session=Session.BEST_OF_THREE)
        )
    SCHNAPSEN.check_rules(dataclasses.replace(SCHNAPSEN.rules, session=Session.BEST_OF_THREE))

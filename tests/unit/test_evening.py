"""The rules of a club evening: its rounds, byes and standings, as tables."""

from __future__ import annotations

import itertools

import pytest

from counter.game.evening import (
    Format,
    Player,
    RoundNotOver,
    Table,
    check_players,
    circle,
    next_round,
    standings,
)
from counter.game.refusals import Invalid, TooLarge


def players(count: int) -> list[Player]:
    return [Player(pid, f"P{pid:02}") for pid in range(1, count + 1)]


def play_out(fmt: Format, people: list[Player], rounds: int = 0, seed: str = "s") -> list[Table]:
    """Every round to the end, the lower id winning each match 11:5 (a bye wins nothing)."""
    tables: list[Table] = []
    while (found := next_round(fmt, people, tables, rounds, seed)) is not None:
        number, pairs = found
        for a, b in pairs:
            winner = None if b is None else min(a, b)
            scores = (0, 0) if b is None else ((11, 5) if winner == a else (5, 11))
            tables.append(Table(number, (a, b), scores, winner))
    return tables


def pairs_of(tables: list[Table]) -> list[frozenset[int | None]]:
    return [frozenset(table.players) for table in tables if not table.bye]


@pytest.mark.parametrize("count", range(2, 13))
def test_round_robin_everyone_meets_everyone_once(count: int) -> None:
    tables = play_out(Format.ROUND_ROBIN, players(count))
    assert sorted(map(sorted, pairs_of(tables))) == [  # type: ignore[type-var]
        list(pair) for pair in itertools.combinations(range(1, count + 1), 2)
    ]


@pytest.mark.parametrize(
    ("count", "rounds", "tables_per_round", "byes_per_round"),
    [(2, 1, 1, 0), (3, 3, 1, 1), (4, 3, 2, 0), (5, 5, 2, 1), (6, 5, 3, 0), (7, 7, 3, 1)],
)
def test_round_robin_rounds_tables_and_byes(
    count: int, rounds: int, tables_per_round: int, byes_per_round: int
) -> None:
    tables = play_out(Format.ROUND_ROBIN, players(count))
    assert max(table.round for table in tables) == rounds
    for number in range(1, rounds + 1):
        this = [table for table in tables if table.round == number]
        assert sum(not table.bye for table in this) == tables_per_round
        assert sum(table.bye for table in this) == byes_per_round


@pytest.mark.parametrize("count", [3, 5, 7, 9, 11])
def test_round_robin_odd_each_player_sits_out_once(count: int) -> None:
    tables = play_out(Format.ROUND_ROBIN, players(count))
    assert sorted(table.players[0] for table in tables if table.bye) == list(range(1, count + 1))


def test_circle_method_keeps_the_first_and_turns_the_rest() -> None:
    assert circle([1, 2, 3, 4], 1) == [(1, 4), (2, 3)]
    assert circle([1, 2, 3, 4], 2) == [(1, 3), (4, 2)]


@pytest.mark.parametrize(("count", "rounds"), [(4, 3), (6, 4), (8, 5), (10, 4), (12, 6), (9, 5)])
def test_swiss_never_repeats_a_pair_while_avoidable(count: int, rounds: int) -> None:
    tables = play_out(Format.SWISS, players(count), rounds)
    assert max(table.round for table in tables) == rounds
    assert len(pairs_of(tables)) == len(set(pairs_of(tables)))


def test_swiss_pairs_equal_wins() -> None:
    people = players(8)
    tables = play_out(Format.SWISS, people, 1)
    _number, pairs = next_round(Format.SWISS, people, tables, 2, "s") or (0, [])
    winners = {table.winner for table in tables}
    for a, b in pairs:
        assert (a in winners) == (b in winners)


@pytest.mark.parametrize("count", [3, 5, 7, 9])
def test_swiss_bye_goes_to_the_lowest_without_one(count: int) -> None:
    tables = play_out(Format.SWISS, players(count), count - 1)
    byes = [table.players[0] for table in tables if table.bye]
    assert len(byes) == len(set(byes)) == count - 1


@pytest.mark.parametrize("count", range(2, 13))
def test_three_lives_runs_to_one_winner(count: int) -> None:
    people = players(count)
    tables = play_out(Format.LIVES, people)
    table = standings(Format.LIVES, people, tables)
    assert [row.lives > 0 for row in table].count(True) == 1  # type: ignore[operator]
    assert table[0].player.id == 1
    assert all(row.lives == 0 for row in table[1:])


def test_three_lives_ranks_by_order_of_elimination() -> None:
    people = players(3)
    tables = [
        Table(1, (1, 2), (11, 0), 1),
        Table(2, (1, 2), (11, 0), 1),
        Table(3, (1, 2), (11, 0), 1),  # 2 is out in round 3
        Table(4, (1, 3), (11, 0), 1),
        Table(5, (1, 3), (11, 0), 1),
        Table(6, (1, 3), (11, 0), 1),  # 3 is out in round 6: ahead of 2
    ]
    assert [row.player.id for row in standings(Format.LIVES, people, tables)] == [1, 3, 2]


@pytest.mark.parametrize("left", [0, 1])
def test_three_lives_ranks_a_withdrawn_player_as_fallen_when_they_left(left: int) -> None:
    """Player 4 won round 1 by the most, then left (or left before it): ranked last,
    below the living who lost."""
    people = [*players(3), Player(4, "P04", left=left)]
    tables = [Table(1, (1, 2), (11, 5), 1)]
    if left:
        tables.append(Table(1, (4, 3), (11, 0), 4))
    table = standings(Format.LIVES, people, tables)
    assert [row.player.id for row in table][-1] == 4
    assert (table[-1].lives, table[-1].out_in) == (0, left)


def test_a_round_is_drawn_the_same_again() -> None:
    people = players(10)
    assert next_round(Format.LIVES, people, [], 0, "x") == next_round(
        Format.LIVES, people, [], 0, "x"
    )


@pytest.mark.parametrize(
    ("tables", "order"),
    [
        # matches won first
        ([Table(1, (1, 2), (3, 11), 2), Table(1, (3, 4), (11, 0), 3)], [3, 2, 1, 4]),
        # equal wins: the game-point difference
        ([Table(1, (1, 2), (11, 9), 1), Table(1, (3, 4), (11, 2), 3)], [3, 1, 2, 4]),
        # equal wins and difference: the match between the two
        (
            [
                Table(1, (2, 1), (11, 9), 2),
                Table(2, (1, 3), (11, 5), 1),
                Table(2, (2, 4), (11, 5), 2),
                Table(3, (1, 4), (11, 9), 1),
                Table(3, (2, 3), (9, 11), 3),
            ],
            [2, 1, 3, 4],
        ),
        # a match still played counts its points, not yet a win
        ([Table(1, (1, 2), (4, 6), None)], [2, 1]),
    ],
)
def test_order_of_standings(tables: list[Table], order: list[int]) -> None:
    people = players(max(pid for t in tables for pid in t.players if pid is not None))
    assert [row.player.id for row in standings(Format.SWISS, people, tables)] == order


@pytest.mark.parametrize(
    ("tables", "places"),
    [
        # two won by the same margin, two lost by it: each pair shares its place
        ([Table(1, (1, 2), (11, 5), 1), Table(1, (3, 4), (11, 5), 3)], [1, 1, 3, 3]),
        # three level, one of whom beat another: the match between two does not part three
        (
            [
                Table(1, (1, 2), (11, 5), 1),
                Table(2, (2, 3), (11, 5), 2),
                Table(3, (3, 1), (11, 5), 3),
            ],
            [1, 1, 1, 4],
        ),
        # level on wins and difference, but one beat the other: no place shared
        (
            [
                Table(1, (2, 1), (11, 9), 2),
                Table(2, (1, 3), (11, 5), 1),
                Table(2, (2, 4), (11, 5), 2),
                Table(3, (1, 4), (11, 9), 1),
                Table(3, (2, 3), (9, 11), 3),
            ],
            [1, 2, 3, 4],
        ),
        # nothing played yet: everyone first
        ([], [1, 1, 1, 1]),
    ],
)
def test_players_level_on_every_count_share_a_place(tables: list[Table], places: list[int]) -> None:
    people = players(4)
    assert [row.place for row in standings(Format.SWISS, people, tables)] == places


def test_three_lives_shares_a_place_among_the_level_living_and_fallen() -> None:
    """1 and 4 won every match, 2 and 3 lost their third in round 3; 5 withdrew after
    round 1, and so fell before them."""
    people = [*players(4), Player(5, "P05", left=1)]
    tables = [
        Table(round_number, pair, (11, 0), pair[0])
        for round_number in (1, 2, 3)
        for pair in ((1, 2), (4, 3))
    ]
    rows = standings(Format.LIVES, people, tables)
    assert [(row.player.id, row.place) for row in rows] == [(1, 1), (4, 1), (2, 3), (3, 3), (5, 5)]


def test_withdrawn_players_opponents_sit_out() -> None:
    people = [*players(3), Player(4, "P04", left=1)]
    _number, pairs = next_round(Format.ROUND_ROBIN, people, [], 0, "s") or (0, [])
    # round 1 is still played with 4 in it: left after round 1
    assert len([b for _a, b in pairs if b is not None]) == 2


def test_next_round_waits_for_every_table() -> None:
    with pytest.raises(RoundNotOver):
        next_round(Format.SWISS, players(4), [Table(1, (1, 2))], 3, "s")


@pytest.mark.parametrize(
    ("names", "refusal"),
    [(["Иван"], Invalid), (["Иван", "иван"], Invalid), ([f"P{i}" for i in range(65)], TooLarge)],
)
def test_refused_player_lists(names: list[str], refusal: type[Exception]) -> None:
    with pytest.raises(refusal):
        check_players(names)


def test_blank_lines_are_left_out() -> None:
    assert check_players(["Иван", " ", " Мария "]) == ["Иван", "Мария"]


def test_a_draw_with_no_new_pairing_left_gives_up_its_search_and_repeats() -> None:
    """1-3 have met everyone of 4-64: two odd groups, so no round of new pairs exists, and
    a search of every way to pair 61 players would never end."""
    people = players(64)
    cross = itertools.product(range(1, 4), range(4, 65))
    tables = [Table(1, (a, b), (0, 11), b) for a, b in cross]  # 1-3 last, the search deep
    _number, pairs = next_round(Format.SWISS, people, tables, 70, "s") or (0, [])
    assert len(pairs) == 32  # pairs repeat, as they must

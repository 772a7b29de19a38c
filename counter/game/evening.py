"""A club evening's rules: who plays whom each round (drawn again, the same), the standings."""

import dataclasses
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum

from counter.game.names import parse_name
from counter.game.refusals import N_, Conflict, Invalid, TooLarge

MIN_PLAYERS, MAX_PLAYERS = 2, 64
LIVES = 3
PAIRING_STEPS = 20_000  # a draw's search for pairs not met yet: bounded, then repeats
Pairing = tuple[int, int | None]  # two players' ids; None for the second: a bye


class Format(StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    LIVES = "lives"


@dataclass(frozen=True)
class Player:
    id: int
    name: str
    joined: int = 1  # the first round the player may play
    left: int | None = None  # the last round played before withdrawing


@dataclass(frozen=True)
class Table:
    round: int
    players: Pairing
    scores: tuple[int, int] = (0, 0)
    winner: int | None = None  # a player's id once the match is won or awarded

    @property
    def bye(self) -> bool:
        return self.players[1] is None


@dataclass(frozen=True)
class Standing:
    player: Player
    played: int
    won: int
    difference: int
    lives: int | None  # three lives only
    out_in: int | None  # the round that took the last life
    place: int = 0  # shared by players level on every count


def check_players(names: Sequence[str]) -> list[str]:
    """The players' names, tidied, blank lines left out."""
    given = [name for name in names if name.strip()]
    tidied = [parse_name(name, seat, name) for seat, name in enumerate(given, 1)]
    if len(tidied) < MIN_PLAYERS:
        raise Invalid(N_("An evening needs at least two players."))
    if len(tidied) > MAX_PLAYERS:
        raise TooLarge(N_("An evening takes at most %(most)s players."), most=MAX_PLAYERS)
    seen: set[str] = set()
    for name in tidied:
        if name.casefold() in seen:
            raise Invalid(N_("%(name)s is on the list twice; tell them apart."), name=name)
        seen.add(name.casefold())
    return tidied


def in_play(player: Player, round_number: int) -> bool:
    return player.joined <= round_number and (player.left is None or player.left >= round_number)


def rounds_of(fmt: Format, players: Sequence[Player], swiss_rounds: int) -> int | None:
    """None for three lives: until one is left."""
    if fmt is Format.ROUND_ROBIN:
        entrants = sum(1 for each in players if each.joined == 1)
        return entrants - 1 + entrants % 2
    return swiss_rounds if fmt is Format.SWISS else None


def circle(ids: Sequence[int], round_number: int) -> list[Pairing]:
    """Round ``round_number`` of the circle method; the one facing the empty seat has the bye."""
    seats: list[int | None] = list(ids) + ([None] if len(ids) % 2 else [])
    turn = (round_number - 1) % (len(seats) - 1)
    seats = [seats[0], *seats[len(seats) - turn :], *seats[1 : len(seats) - turn]]
    pairs = [(seats[i], seats[-1 - i]) for i in range(len(seats) // 2)]
    return [(a, b) if a is not None else (b, None) for a, b in pairs]  # type: ignore[misc]


def pairings(
    fmt: Format, players: Sequence[Player], tables: Sequence[Table], round_number: int, seed: str
) -> list[Pairing]:
    """Who plays whom, the bye (if any) last."""
    if fmt is Format.ROUND_ROBIN:
        entrants = [each.id for each in players if each.joined == 1]
        playing = {each.id for each in players if in_play(each, round_number)}
        pairs = []
        for a, b in circle(entrants, round_number):
            first, second = (a, b) if a in playing else (b, None)
            if first is not None and first in playing:
                pairs.append((first, second if second in playing else None))
        return sorted(pairs, key=lambda pair: pair[1] is None)
    ranks = {row.player.id: _rank_key(row) for row in standings(fmt, players, tables)}
    living = [each.id for each in players if in_play(each, round_number)]
    random.Random(f"{seed}:{round_number}").shuffle(living)
    if fmt is Format.SWISS:
        living.sort(key=ranks.__getitem__)  # by wins, then difference; ties as drawn
    had_bye = {table.players[0] for table in tables if table.bye}
    bye = None
    if len(living) % 2:
        bye = next((pid for pid in reversed(living) if pid not in had_bye), living[-1])
        living.remove(bye)
    met = {frozenset(table.players) for table in tables if not table.bye}
    pairs = _pair(living, met) or _pair(living, set()) or []
    return pairs + ([(bye, None)] if bye is not None else [])


def _pair(
    order: list[int], met: set[frozenset[int | None]], budget: Iterator[int] | None = None
) -> list[Pairing] | None:
    """Pairs not met yet, the first in order with the next it may meet; None past the budget."""
    budget = iter(range(PAIRING_STEPS)) if budget is None else budget
    if not order:
        return []
    first, rest = order[0], order[1:]
    for index, other in enumerate(rest):
        if next(budget, None) is None:
            return None
        if frozenset((first, other)) in met:
            continue
        found = _pair(rest[:index] + rest[index + 1 :], met, budget)
        if found is not None:
            return [(first, other), *found]
    return None


def standings(fmt: Format, players: Sequence[Player], tables: Sequence[Table]) -> list[Standing]:
    """Matches won, then the game-point difference, then the match between the two tied;
    players still level share a place (listed by name)."""
    rows = [_standing(fmt, player, tables) for player in players]
    rows.sort(key=lambda row: (_rank_key(row), row.player.name.casefold()))
    placed_below: set[int] = set()  # rows below the one level with them by their match
    for i in range(len(rows) - 1):
        a, b = rows[i], rows[i + 1]
        tied = [row for row in rows if _rank_key(row) == _rank_key(a)]
        a_won, b_won = _beat(a, b, tables), _beat(b, a, tables)
        if tied == [a, b] and a_won != b_won:
            rows[i], rows[i + 1] = (b, a) if b_won else (a, b)
            placed_below.add(i + 1)
    places: list[int] = []
    for i, row in enumerate(rows):
        level = i > 0 and _rank_key(rows[i - 1]) == _rank_key(row) and i not in placed_below
        places.append(places[-1] if level else i + 1)
    return [dataclasses.replace(row, place=place) for row, place in zip(rows, places, strict=True)]


def _beat(winner: Standing, loser: Standing, tables: Sequence[Table]) -> bool:
    return any(t.winner == winner.player.id and loser.player.id in t.players for t in tables)


def _rank_key(row: Standing) -> tuple[int, ...]:
    """Three lives: the living first by lives left, then the fallen, the last to fall first."""
    if row.lives is None:
        return (-row.won, -row.difference)
    fell = 10**6 if row.out_in is None else row.out_in  # withdrawn before round 1: 0
    return (-fell, -row.lives, -row.won, -row.difference)


def _standing(fmt: Format, player: Player, tables: Sequence[Table]) -> Standing:
    seated = [table for table in tables if player.id in table.players]
    matches = [(table, table.players.index(player.id)) for table in seated if not table.bye]
    difference = sum(table.scores[seat] - table.scores[1 - seat] for table, seat in matches)
    played = sum(table.winner is not None for table, _seat in matches)
    won = sum(table.winner == player.id for table, _seat in matches)
    won += len(seated) - len(matches) if fmt is Format.SWISS else 0  # a bye wins in Swiss
    lost = [table.round for table, _seat in matches if table.winner not in (None, player.id)]
    if fmt is not Format.LIVES:
        return Standing(player, played, won, difference, None, None)
    if len(lost) >= LIVES:  # out in the round that took the last life
        return Standing(player, played, won, difference, 0, lost[LIVES - 1])
    lives = LIVES - len(lost) if player.left is None else 0  # withdrawn: fallen at the round left
    return Standing(player, played, won, difference, lives, player.left)


def next_round(
    fmt: Format, players: Sequence[Player], tables: Sequence[Table], swiss_rounds: int, seed: str
) -> tuple[int, list[Pairing]] | None:
    """The next round's number and pairings; None when the evening's rounds are over."""
    if any(table.winner is None and not table.bye for table in tables):
        raise RoundNotOver(N_("Every table has to finish its match before the next round."))
    number = max((table.round for table in tables), default=0) + 1
    last = rounds_of(fmt, players, swiss_rounds)
    if last is not None and number > last:
        return None
    out = {row.player.id for row in standings(fmt, players, tables) if row.lives == 0}
    pool = [each for each in players if each.id not in out]  # three lives: the living
    if sum(in_play(each, number) for each in pool) < MIN_PLAYERS:
        return None
    pairs = pairings(fmt, pool, tables, number, seed)
    return (number, pairs) if any(b is not None for _a, b in pairs) else None


class RoundNotOver(Conflict):
    """A next round asked for while a table still plays."""

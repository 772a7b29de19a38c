"""Statistics of a browser's matches per game and pair of players, with each game's own tally."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import func, select

from counter.game import parsing
from counter.game.games import GAMES, Game, Tally, sessions
from counter.game.scoring import GameName, Outcome, Session
from counter.storage.models import Deal, Match, db

SHOWN_IF_WON = {Outcome.FAILED_CLOSE_NO_TRICK, Outcome.WRONG_CLAIM_NO_TRICK}


@dataclass
class PlayerStats:
    name: str
    matches_won: int = 0
    tally: int = 0  # what the game's tally counts: games won, or Bummerl got
    best_of_three: int = 0  # sessions of best of three won (counter.game.games.sessions)
    deals_won: Counter[Outcome] = field(default_factory=Counter)
    longest_run: int = 0  # most matches won in a row against this opponent

    @property
    def deal_count(self) -> int:
        return sum(self.deals_won.values())


@dataclass
class PairStats:
    """Two players' record against each other in one game, in this browser."""

    players: tuple[PlayerStats, PlayerStats]
    game: Game = GAMES[GameName.SANTASE]
    matches: int = 0
    finished: int = 0
    deals: int = 0
    ties: int = 0  # deals at 65:65, won by nobody

    @property
    def deals_per_match(self) -> float:
        return self.deals / self.matches if self.matches else 0.0

    @property
    def outcomes(self) -> list[Outcome]:
        """The outcomes worth a row: the common ones, and any other that won a deal here."""
        won = set(self.players[0].deals_won) | set(self.players[1].deals_won)
        return [o for o in Outcome if o is not Outcome.TIE and (o in won or o not in SHOWN_IF_WON)]

    @property
    def longest_bar(self) -> int:
        """The most deals either player won by any one outcome (at least 1), to scale a chart."""
        return max([1, *self.players[0].deals_won.values(), *self.players[1].deals_won.values()])

    def player(self, name: str) -> PlayerStats:
        return self.players[0] if self.players[0].name == name else self.players[1]


def statistics(*, owner: str | None) -> list[PairStats]:
    """Every pair of players of this browser in each game, the most matches first."""
    columns = Match.id, Match.player1, Match.player2, Match.won_by, Match.game, Match.marks
    found = select(*columns, Match.session).where(Match.owner == owner)
    matches = db.session.execute(found.order_by(Match.id)).all()
    counted = Deal.match_id, Deal.player, Deal.outcome
    deals = select(*counted, func.count()).join(Deal.match).where(Match.owner == owner)
    per_match: dict[int, list[tuple[int | None, str, int]]] = {}
    for match_id, player, outcome, count in db.session.execute(deals.group_by(*counted)):
        per_match.setdefault(match_id, []).append((player, outcome, count))

    pairs: dict[tuple[GameName, frozenset[str]], PairStats] = {}
    runs: dict[tuple[tuple[GameName, frozenset[str]], str], int] = {}
    # The winner of each match played as best of three, in order, per game and pair.
    best_of_three: dict[tuple[GameName, frozenset[str]], list[str]] = {}
    for match_id, first, second, won_by, game, marks, session in matches:
        names = (first, second)
        key = (game, frozenset(names))
        if key not in pairs:
            pairs[key] = PairStats((PlayerStats(first), PlayerStats(second)), GAMES[game])
        pair = pairs[key]
        pair.matches += 1
        for seat, outcome, count in per_match.get(match_id, []):
            pair.deals += count
            if seat is None:
                pair.ties += count
            else:
                pair.player(names[seat - 1]).deals_won[Outcome(outcome)] += count
        if won_by is not None:
            pair.finished += 1
            winner = pair.player(names[parsing.seat(won_by) - 1])
            loser = pair.player(names[2 - won_by])
            winner.matches_won += 1
            runs[key, winner.name] = run = runs.get((key, winner.name), 0) + 1
            winner.longest_run = max(winner.longest_run, run)
            runs[key, loser.name] = 0
            tallied = loser if pair.game.tally is Tally.LOSER else winner
            tallied.tally += marks or 1
            if session == Session.BEST_OF_THREE:
                best_of_three.setdefault(key, []).append(winner.name)
    for key, winners in best_of_three.items():
        won, _ = sessions(winners)
        for stats in pairs[key].players:
            stats.best_of_three = won[stats.name]
    return sorted(pairs.values(), key=lambda pair: -pair.matches)

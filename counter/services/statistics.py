"""Statistics of a browser's matches per game and pair of players, with each game's own tally."""

from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import func, select

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
    run: int = 0  # matches won in a row so far

    @property
    def deal_count(self) -> int:
        return sum(self.deals_won.values())


@dataclass
class PairStats:
    players: tuple[PlayerStats, PlayerStats]
    game: Game = GAMES[GameName.SANTASE]
    matches: int = 0
    finished: int = 0
    deals: int = 0
    finished_deals: int = 0  # those of the finished matches
    ties: int = 0  # deals at 65:65, won by nobody
    # The winner of each match played as best of three, in order.
    best_of_three_winners: list[str] = field(default_factory=list)

    @property
    def deals_per_match(self) -> float:
        """How long a finished match was, on average: one under way has not ended yet."""
        return self.finished_deals / self.finished if self.finished else 0.0

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
    columns = Match.player1, Match.player2, Match.won_by, Match.game, Match.marks, Match.session
    matches = select(*columns).where(Match.owner == owner).order_by(Match.id)
    pairs: dict[tuple[GameName, frozenset[str]], PairStats] = {}
    for first, second, won_by, game, marks, session in db.session.execute(matches):
        names = (first, second)
        new = PairStats((PlayerStats(first), PlayerStats(second)), GAMES[game])
        pair = pairs.setdefault((game, frozenset(names)), new)
        pair.matches += 1
        if won_by is not None:
            pair.finished += 1
            winner, loser = map(pair.player, names if won_by == 1 else names[::-1])
            winner.matches_won += 1
            winner.run, loser.run = winner.run + 1, 0
            winner.longest_run = max(winner.longest_run, winner.run)
            tallied = loser if pair.game.tally is Tally.LOSER else winner
            tallied.tally += marks or 1
            if session == Session.BEST_OF_THREE:
                pair.best_of_three_winners.append(winner.name)
    finished = Match.won_by.is_not(None)
    counted = Match.game, Match.player1, Match.player2, Deal.player, Deal.outcome, finished
    deals = select(*counted, func.count()).join(Deal.match).where(Match.owner == owner)
    rows = db.session.execute(deals.group_by(*counted))
    for game, first, second, seat, outcome, done, count in rows:
        counted_pair = pairs.get((game, frozenset((first, second))))
        if counted_pair is None:  # a match renamed or started since the first read (PostgreSQL)
            continue
        counted_pair.deals += count
        counted_pair.finished_deals += count if done else 0
        if seat is None:
            counted_pair.ties += count
        else:
            counted_pair.player((first, second)[seat - 1]).deals_won[Outcome(outcome)] += count
    for pair in pairs.values():
        won, _ = sessions(pair.best_of_three_winners)
        for stats in pair.players:
            stats.best_of_three = won[stats.name]
    return sorted(pairs.values(), key=lambda pair: -pair.matches)

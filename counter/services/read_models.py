"""Read models: matches as the pages and the API show them, worked out from the game's match."""

from dataclasses import dataclass
from datetime import datetime

from counter.game import scoring
from counter.game.games import SANTASE, Game, session_standing
from counter.game.names import DEFAULT_NAMES
from counter.game.scoring import DEFAULT_RULES, DEFAULT_TARGET, HouseRules, Outcome, Seat, Session
from counter.storage import series
from counter.storage.repository import Stored


@dataclass(frozen=True)
class PlayerView:
    seat: Seat
    name: str
    score: int
    games: int


@dataclass(frozen=True)
class DealView:
    number: int
    player: Seat | None  # None for a tied deal
    outcome: Outcome
    points: int
    scores: tuple[int, int]
    created_at: datetime
    corrected: bool = False
    dealer: Seat = 1
    request_id: str | None = None
    rules: HouseRules = DEFAULT_RULES  # those it was recorded under, and is corrected under


SHARED_WITH_DEAL = ("player", "outcome", "points", "created_at", "request_id", "rules")
SHARED_WITH_MATCH = ("uid", "target", "created_at", "finished_at", "rules", "first_dealer", "game")


@dataclass(frozen=True)
class MatchView:
    """A match as pages and the API show it; ``id`` is None before anything is stored."""

    players: tuple[PlayerView, PlayerView]
    id: int | None = None
    uid: str | None = None
    target: int = DEFAULT_TARGET
    winner: Seat | None = None
    deal_count: int = 0
    created_at: datetime | None = None
    finished_at: datetime | None = None
    played_at: datetime | None = None
    deals: tuple[DealView, ...] | None = None  # None in a summary
    rules: HouseRules = DEFAULT_RULES
    first_dealer: Seat = 1
    dealer: Seat = 1  # who deals the next deal; the other player leads
    game: Game = SANTASE
    marks: int = 0  # what the match counts in the tally once won (a Schneider-Bummerl 2)
    # Each seat's matches won in its best of three, this one included (None: played as one).
    session: tuple[int, int] | None = None

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def names(self) -> tuple[str, str]:
        return (self.players[0].name, self.players[1].name)

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.players[self.winner - 1].name

    def shown(self, score: int) -> int:
        """A score as the match's game says it (Schnapsen: what is left to make)."""
        return self.game.shown(score, self.target)

    @property
    def score(self) -> str:
        """Like "8:5", as the game says it."""
        return f"{self.shown(self.players[0].score)}:{self.shown(self.players[1].score)}"

    def reaches(self, target: int) -> bool:
        """Whether a score of this match reaches ``target``, which is then past."""
        return any(scoring.reaches(player.score, target) for player in self.players)


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchView]
    page: int
    pages: int


def view(stored: Stored, *, with_deals: bool = True) -> MatchView:
    """The match with its deals (unless a summary) and its series' games, its own win too."""
    match, row = stored.match, stored.row
    standing = match.standing
    dealers = match.dealers
    deals = tuple(
        DealView(
            number=number,
            scores=after.scores,
            corrected=deal.corrected_at is not None,
            dealer=dealer,
            **{name: getattr(deal, name) for name in SHARED_WITH_DEAL},
        )
        for number, (deal, after, dealer) in enumerate(
            zip(match.deals, match.running_totals(), dealers, strict=False), 1
        )
    )
    before, tallied, marks = stored.earlier, match.tallied, match.marks  # its series before it
    session = None
    if with_deals and match.rules.session is Session.BEST_OF_THREE:
        earlier = series.session_before(row.owner, match.game.name, match.names, row.id)
        session = session_standing(earlier, standing.winner, match.rules)
    return MatchView(
        id=row.id,
        players=(
            PlayerView(1, match.names[0], standing.scores[0], before[0] + marks * (tallied == 1)),
            PlayerView(2, match.names[1], standing.scores[1], before[1] + marks * (tallied == 2)),
        ),
        winner=standing.winner,
        deal_count=len(match.deals),
        played_at=row.played_at,
        deals=deals if with_deals else None,
        dealer=dealers[-1],
        marks=marks,
        session=session,
        **{name: getattr(match, name) for name in SHARED_WITH_MATCH},
    )


def blank_match(names: tuple[str, str] = DEFAULT_NAMES) -> MatchView:
    """What the counter shows before this browser has a match: nothing stored yet."""
    return MatchView((PlayerView(1, names[0], 0, 0), PlayerView(2, names[1], 0, 0)), deals=())

"""Read models: matches as the pages and the API show them, built from stored rows."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from counter.game import parsing, scoring
from counter.game.scoring import DEFAULT_RULES, DEFAULT_TARGET, HouseRules, Outcome, Seat
from counter.services import series
from counter.services.defaults import default_names
from counter.storage.models import Deal, Match


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


@dataclass(frozen=True)
class MatchRow:
    """A match's own row, without its deals: what a view is made of, whether the ORM
    loaded the match or a write read its row (:func:`queries.row_to_write`)."""

    id: int
    uid: str
    player1: str
    player2: str
    target: int
    created_at: datetime
    won_by: int | None
    rules: HouseRules
    first_dealer: int
    played_at: datetime
    tally: scoring.Tally
    tallied_at: datetime | None

    @classmethod
    def of(cls, match: Match) -> MatchRow:
        """The row of a match the ORM loaded."""
        return cls(**{field.name: getattr(match, field.name) for field in dataclasses.fields(cls)})

    @property
    def names(self) -> tuple[str, str]:
        return (self.player1, self.player2)

    @property
    def tally_holds(self) -> bool:
        return tally_holds(tallied_at=self.tallied_at, played_at=self.played_at)


def tally_holds(*, tallied_at: datetime | None, played_at: datetime) -> bool:
    """Whether a match's kept tally is that of its last change (see Match.tallied_at)."""
    return tallied_at == played_at


class ShownDeal(Protocol):
    """What a view shows of a stored deal besides its result: a :class:`Deal`, or the
    deal a write has just stored."""

    @property
    def number(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def corrected_at(self) -> datetime | None: ...
    @property
    def request_id(self) -> str | None: ...


@dataclass(frozen=True)
class MatchView:
    """A match as pages and the API show it; ``id`` is None before anything is stored."""

    id: int | None
    uid: str | None
    target: int
    players: tuple[PlayerView, PlayerView]
    winner: Seat | None
    deal_count: int
    created_at: datetime | None
    finished_at: datetime | None
    played_at: datetime | None = None
    # All its deals; only the last few in a write's short answer (deal_count counts them
    # all); none in a summary.
    deals: tuple[DealView, ...] | None = None
    rules: HouseRules = DEFAULT_RULES
    first_dealer: Seat = 1
    dealer: Seat = 1  # who deals the next deal; the other player leads

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def names(self) -> tuple[str, str]:
        return (self.players[0].name, self.players[1].name)

    @property
    def winner_name(self) -> str | None:
        return None if self.winner is None else self.players[self.winner - 1].name

    @property
    def score(self) -> str:
        """Like "8:5"."""
        return f"{self.players[0].score}:{self.players[1].score}"

    def reaches(self, target: int) -> bool:
        """Whether a score of this match reaches ``target``, which is then past."""
        return any(scoring.reaches(player.score, target) for player in self.players)


@dataclass(frozen=True)
class MatchPage:
    matches: list[MatchView]
    page: int
    pages: int
    total: int


def deal_result(deal: Deal) -> scoring.DealResult:
    """A stored deal as the rules see it."""
    return result_of(deal.player, deal.outcome, deal.points, deal.rules)


@functools.lru_cache(maxsize=1024)
def result_of(
    player: int | None, outcome: str, points: int, rules: HouseRules
) -> scoring.DealResult:
    """A deal as the rules see it, from its stored values."""
    # Results are immutable and few (a player, an outcome, its points, a set of rules):
    # one of each serves every deal, instead of one built per deal per read.
    return scoring.DealResult(
        player=None if player is None else parsing.seat(player),
        outcome=Outcome(outcome),
        points=points,
        rules=rules,
    )


def standing(match: Match) -> scoring.Standing:
    """The match's standing from its stored deals."""
    return scoring.standing((deal_result(deal) for deal in match.deals), match.target, match.names)


def full_view(match: Match, earlier: tuple[int, int]) -> MatchView:
    """The match with all its deals, running totals, dealers, and the games of its series.

    ``earlier`` are the games each seat won in the series before this match; the
    match's own win, if it has one, is added here.
    """
    results = [deal_result(deal) for deal in match.deals]
    return view_of(MatchRow.of(match), earlier, results, match.deals)


def view_of(
    match: MatchRow,
    earlier: tuple[int, int],
    results: Sequence[scoring.DealResult],
    shown: Sequence[ShownDeal],
) -> MatchView:
    """The match after ``results`` (all its deals, in order), with ``shown``, its last
    deals as stored, in its ``deals``: all of them for :func:`full_view`, the few a
    client lacks for a write's short answer (at least the last, which says when a won
    match finished). ``earlier`` as for :func:`full_view`."""
    skipped = len(results) - len(shown)
    before = scoring.standing(results[:skipped], match.target, match.names)
    running = scoring.running_totals(
        results[skipped:], match.target, match.names, start=before.scores
    )
    dealers = scoring.dealers(parsing.seat(match.first_dealer), results)
    deals = tuple(
        _deal_view(deal, result, after.scores, dealer)
        for deal, result, after, dealer in zip(
            shown, results[skipped:], running, dealers[skipped:], strict=False
        )
    )
    last = running[-1] if running else before
    return _match_view(match, earlier, last, deals, count=len(results), dealer=dealers[-1])


def tallied_view(
    match: MatchRow,
    earlier: tuple[int, int],
    stored: ShownDeal,
    result: scoring.DealResult,
    dealt_by: Seat,
) -> MatchView:
    """The match once a write has added ``stored`` (worth ``result``, dealt by
    ``dealt_by``) to it, from the tally it keeps (``match.tally``, that deal counted),
    holding that deal alone: a deal's short answer, with no other deal read."""
    after = scoring.Standing(match.tally.scores, match.target, match.names)
    deal = _deal_view(stored, result, after.scores, dealt_by)
    return _match_view(
        match, earlier, after, (deal,), count=match.tally.deals, dealer=match.tally.dealer
    )


def _deal_view(
    deal: ShownDeal, result: scoring.DealResult, scores: tuple[int, int], dealer: Seat
) -> DealView:
    return DealView(
        number=deal.number,
        player=result.player,
        outcome=result.outcome,
        points=result.points,
        scores=scores,
        created_at=deal.created_at,
        corrected=deal.corrected_at is not None,
        dealer=dealer,
        request_id=deal.request_id,
        rules=result.rules,
    )


def _match_view(
    match: MatchRow,
    earlier: tuple[int, int],
    last: scoring.Standing,
    deals: tuple[DealView, ...],
    *,
    count: int,
    dealer: Seat,
) -> MatchView:
    """The match as it stands after all ``count`` of its deals (``last``), holding
    ``deals``, its last ones."""
    games = series.with_own_win(earlier, match.won_by)
    return MatchView(
        id=match.id,
        uid=match.uid,
        target=match.target,
        players=(
            PlayerView(1, match.player1, last.scores[0], games[0]),
            PlayerView(2, match.player2, last.scores[1], games[1]),
        ),
        winner=last.winner,
        deal_count=count,
        created_at=match.created_at,
        finished_at=deals[-1].created_at if last.finished else None,
        played_at=match.played_at,
        deals=deals,
        rules=match.rules,
        first_dealer=parsing.seat(match.first_dealer),
        dealer=dealer,
    )


def blank_match(
    names: tuple[str, str] | None = None, rules: HouseRules = DEFAULT_RULES
) -> MatchView:
    """What the counter shows before this browser has a match: nothing stored yet.

    The names are the defaults of the request's language unless given.
    """
    names = default_names() if names is None else names
    return MatchView(
        id=None,
        uid=None,
        target=DEFAULT_TARGET,
        players=(PlayerView(1, names[0], 0, 0), PlayerView(2, names[1], 0, 0)),
        winner=None,
        deal_count=0,
        created_at=None,
        finished_at=None,
        deals=(),
        rules=rules,
    )

"""Deals: record one, undo the last, correct or delete a past one."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import NamedTuple

from sqlalchemy import and_, bindparam, delete, insert, update
from sqlalchemy.exc import IntegrityError

from counter.game import parsing, scoring
from counter.game.refusals import N_, Conflict, NotFound
from counter.game.scoring import Outcome, Seat
from counter.services import queries, spent
from counter.services.devices import Holder
from counter.services.matches import load_or_start, pin, played
from counter.services.read_models import (
    DealView,
    MatchRow,
    MatchView,
    deal_result,
    full_view,
    tallied_view,
    view_of,
)
from counter.storage import push
from counter.storage.models import Deal, Match, db, utcnow
from counter.storage.transactions import begin_write, writes

RENUMBERING = 1_000_000  # far above any deal number: a free range to move deals through


class DealNotFound(NotFound):
    """The match has no deal with that number."""

    @classmethod
    def with_number(cls, match_id: int | None, number: int) -> DealNotFound:
        return cls(N_("Match %(id)s has no deal %(number)s."), id=match_id, number=number)


class NothingToUndo(Conflict):
    """Undo was asked of a match without deals, or of a deal that is no longer the last."""


class RequestReused(Conflict):
    """A request id came back with a different deal than the one it recorded."""


class DealsChanged(Conflict):
    """A deal that follows another number of deals than the match has: another phone
    recorded or undid a deal since. ``match`` is the match as it is now."""

    def __init__(self, message: str, *, match: MatchView, **params: object) -> None:
        super().__init__(message, **params)
        self.match = match


@writes
def record_deal(
    *,
    owner: str,
    match_id: int | None,
    seat: Seat | None,
    outcome: Outcome,
    request_id: str | None = None,
    after: int | None = None,
    device: Holder | None = None,
    known: int = 0,
) -> tuple[MatchView, bool]:
    """Record one deal's game points for ``seat`` (none for a tie); returns the match and
    whether the deal is new.

    The deal is scored under the match's house rules of now, and keeps them. With
    no ``match_id`` the browser's first match is started with this deal. A
    ``request_id`` seen before in this match records nothing and returns the
    match as it is, so a double tap or a retried request counts once. With
    ``after`` (how many deals the phone knew the match to have) a match that has
    another number of deals now records nothing: :class:`DealsChanged`, so that two
    phones tapping the same deal never count it twice unasked.

    The match returned holds the deals after the first ``known`` (at least the last):
    a client that keeps the match asks for what it lacks, and the write then costs
    the same however long the match is.
    """
    for attempt in range(3):
        if attempt:
            begin_write()
        match, earlier = _match_to_record_into(owner, match_id, device)
        if attempt or not match.tally_holds:  # the number was taken, or another wrote
            match = replace(match, tally=queries.worked_out_tally(match.id, match.first_dealer))
        result = scoring.score_deal(seat, outcome, match.rules)
        if _replayed(match, request_id, result):
            view = _view(match, earlier, queries.results(match.id), known)
            db.session.rollback()  # nothing to write: end the transaction and its lock
            return view, False
        tally = match.tally  # what the deals before this one come to: none of them is read
        then = scoring.Standing(tally.scores, match.target, match.names).after(result)
        scoring.check_room(tally.deals)  # the two refusals of the rules
        if after is not None and after != tally.deals:
            raise DealsChanged(
                N_(
                    "Another phone changed this match: it has %(count)s deals now, and this "
                    "deal followed %(after)s. Nothing was recorded."
                ),
                match=_view(match, earlier, queries.results(match.id), 0),
                count=tally.deals,
                after=after,
            )
        try:
            deal = _store(match, tally.deals + 1, result, request_id)
        except IntegrityError:
            # Another request took this deal number or request id first (PostgreSQL
            # without the match lock, e.g. the very first deal): look again.
            db.session.rollback()
            continue
        match = replace(
            match, won_by=then.winner, played_at=deal.created_at, tally=tally.after(result)
        )
        _keep(match)
        if known >= tally.deals:  # the client holds every deal but this one
            view = tallied_view(match, earlier, deal, result, dealt_by=tally.dealer)
        else:
            view = _view(match, earlier, queries.results(match.id), known)
        db.session.commit()
        push.changed(match.id)
        return view, True
    raise Conflict(N_("The match changed while this deal was being recorded; try again."))


def _match_to_record_into(
    owner: str, match_id: int | None, device: Holder | None
) -> tuple[MatchRow, tuple[int, int]]:
    """The match a deal goes into, locked, as a row; with no id, this browser's first
    match, started now. Either way the match on ``device``'s screen from now on."""
    if match_id is None:
        started, earlier = load_or_start(owner, None, device, deals=False)
        return MatchRow.of(started), earlier
    found = queries.row_to_write(owner, match_id)
    pin(device, match_id)
    return found


class StoredDeal(NamedTuple):
    """What a view shows of the deal a write has just stored."""

    number: int
    created_at: datetime
    corrected_at: datetime | None
    request_id: str | None


def _store(
    match: MatchRow, number: int, result: scoring.DealResult, request_id: str | None
) -> StoredDeal:
    """Store deal ``number`` of the match: one INSERT on the connection, no ORM object
    (the write every tap makes). IntegrityError if the number or request id is taken."""
    stored = StoredDeal(number, utcnow(), None, request_id)
    values = {
        "match_id": match.id,
        "number": number,
        "player": result.player,
        "outcome": result.outcome.value,
        "points": result.points,
        "request_id": request_id,
        "created_at": stored.created_at,
        **result.rules.as_dict(),
    }
    db.session.connection().execute(insert(Deal), values)
    return stored


def _keep(match: MatchRow) -> None:
    """Store the match's winner, its tally and when it was played, as ``match`` has them."""
    tally = queries.tally_columns(match.tally)
    values = {"match": match.id, "winner": match.won_by, "played": match.played_at, **tally}
    db.session.connection().execute(_KEPT, values)


_KEPT = (
    update(Match)
    .where(Match.id == bindparam("match"))
    .values(
        won_by=bindparam("winner"),
        played_at=bindparam("played"),
        tallied_at=bindparam("played"),
        **{name: bindparam(name) for name in queries.TALLY},
    )
)


def _view(
    match: MatchRow, earlier: tuple[int, int], results: list[scoring.DealResult], known: int
) -> MatchView:
    """The match after ``results``, holding its deals after the first ``known`` (at least
    the last)."""
    first = min(known, len(results) - 1) + 1 if results else 1
    return view_of(match, earlier, results, queries.deals_from(match.id, first) if results else [])


def _replayed(match: MatchRow, request_id: str | None, result: scoring.DealResult) -> bool:
    """Whether ``request_id`` recorded a deal in this match already: the same deal (a
    retry: record nothing), or one gone since (undone or deleted). Another deal under
    the same id is refused."""
    if request_id is None:
        return False
    found = queries.recorded_by(match.id, request_id)
    if found is None:
        return spent.request_spent(match_id=match.id, request_id=request_id)
    number, player, kind = found
    if (player, kind) != (result.player, result.outcome):
        raise RequestReused(
            N_(
                "That request was already recorded as deal %(number)s, for another "
                "player or outcome; nothing new was recorded."
            ),
            number=number,
        )
    return True


@writes
def undo_last_deal(
    *,
    owner: str,
    match_id: int,
    number: int | None = None,
    request_id: str | None = None,
    device: Holder | None = None,
    known: int = 0,
) -> tuple[MatchView, DealView | None]:
    """Take back the latest deal; a match it had finished is open again.

    With ``number`` or ``request_id`` (the one the deal was recorded with), only
    that deal is taken back. A deal whose request id is no longer in the match
    was undone already: nothing more is removed and the answer is the match as
    it is, so a repeated or retried undo takes back one deal, never two.
    Returns the match as it is now, holding its deals after the first ``known`` as
    :func:`record_deal` does, and the deal that was taken back, if one was.
    """
    match, earlier = queries.row_to_write(owner, match_id)
    pin(device, match_id)
    entries = queries.ledger(match.id)
    results = [entry.result for entry in entries]
    if request_id is not None and all(entry.request_id != request_id for entry in entries):
        view = _view(match, earlier, results, known)
        db.session.rollback()
        return view, None
    if not entries:
        raise NothingToUndo(N_("There is no deal to undo in this match."))
    last = entries[-1]
    if (number is not None and len(entries) != number) or (
        request_id is not None and last.request_id != request_id
    ):
        raise NothingToUndo(
            N_("Deal %(number)s is no longer the last one; nothing was undone."),
            number=number if number is not None else _number_of(entries, request_id),
        )
    stored = queries.deals_from(match.id, len(entries))
    removed = view_of(match, earlier, results, stored).deals[-1]  # type: ignore[index]
    spent.spend_request(owner=owner, match_id=match.id, request_id=last.request_id)
    db.session.connection().execute(delete(Deal).where(Deal.id == stored[-1].id))
    # Only the last deal can have won the match: it is open again.
    tally = scoring.tally(parsing.seat(match.first_dealer), results[:-1])
    match = replace(match, won_by=None, played_at=utcnow(), tally=tally)
    _keep(match)
    view = _view(match, earlier, results[:-1], known)
    db.session.commit()
    push.changed(match.id)
    return view, removed


def _number_of(entries: list[queries.Entry], request_id: str | None) -> int | None:
    numbered = enumerate(entries, start=1)
    return next((number for number, entry in numbered if entry.request_id == request_id), None)


def _numbered(match: Match, number: int) -> Deal:
    for deal in match.deals:
        if deal.number == number:
            return deal
    raise DealNotFound.with_number(match.id, number)


@writes
def correct_deal(
    *,
    owner: str,
    match_id: int,
    number: int,
    seat: Seat | None = None,
    outcome: Outcome | None = None,
) -> tuple[MatchView, DealView]:
    """Change who received a past deal's points and why (either may stay as it was:
    none for ``seat`` keeps the deal's player, unless the deal becomes a tie).

    The deal is scored again under the house rules it was recorded with; totals
    and winner follow. Refused when the match would then be won before its last
    deal. Returns the match and the corrected deal.
    """
    match, earlier = queries.load(owner, match_id, for_update=True)
    deal = _numbered(match, number)
    kind = Outcome(deal.outcome) if outcome is None else outcome
    if seat is None and kind is not Outcome.TIE:
        seat = deal_result(deal).player
    result = scoring.score_deal(seat, kind, deal.rules)
    results = [result if each is deal else deal_result(each) for each in match.deals]
    after = scoring.replay(results, match.target, match.names)
    if (deal.player, deal.outcome, deal.points) != (result.player, result.outcome, result.points):
        deal.player, deal.outcome, deal.points = result.player, result.outcome.value, result.points
        deal.corrected_at = utcnow()
    match.won_by = after.winner
    played(match)
    db.session.commit()
    view = full_view(match, earlier)
    push.changed(view.id)
    return view, view.deals[number - 1]  # type: ignore[index]


@writes
def delete_deal(*, owner: str, match_id: int, number: int) -> tuple[MatchView, DealView]:
    """Remove a past deal; the later ones move up a number, totals and winner follow.

    Refused when the match would then be won before its last deal. Returns the
    match and the deal that was removed.
    """
    match, earlier = queries.load(owner, match_id, for_update=True)
    deal = _numbered(match, number)
    removed = full_view(match, earlier).deals[number - 1]  # type: ignore[index]
    rest = [deal_result(each) for each in match.deals if each is not deal]
    after = scoring.replay(rest, match.target, match.names)
    spent.spend_request(owner=owner, match_id=match.id, request_id=deal.request_id)
    match.deals.remove(deal)
    db.session.flush()  # the number is free before the later deals move into it
    # Two statements however many deals follow: out of the way past any number in use,
    # then back one place lower. Numbers stay unique (and positive) at every step.
    later = and_(Deal.match_id == match.id, Deal.number > number)
    db.session.execute(update(Deal).where(later).values(number=Deal.number + RENUMBERING))
    db.session.execute(
        update(Deal)
        .where(Deal.match_id == match.id, Deal.number > RENUMBERING)
        .values(number=Deal.number - RENUMBERING - 1)
    )
    db.session.expire(match, ["deals"])
    match.won_by = after.winner
    played(match)  # its deals read again, renumbered
    db.session.commit()
    view = full_view(match, earlier)
    push.changed(view.id)
    return view, removed

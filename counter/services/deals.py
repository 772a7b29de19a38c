"""Deals: record one, undo the last, correct or delete a past one.

Each is load, ask the match, save, publish: the rules are the game's own
(:class:`counter.game.match.Match`).
"""

from __future__ import annotations

from datetime import datetime

from counter.game.names import DEFAULT_NAMES
from counter.game.scoring import Outcome, Seat
from counter.services import spent
from counter.services.devices import Device
from counter.services.matches import for_writing, pin
from counter.services.read_models import DealView, MatchView, view
from counter.storage import push, repository
from counter.storage.models import db, utcnow
from counter.storage.transactions import writes


@writes
def record_deal(
    *,
    owner: str,
    match_id: int | None,
    seat: Seat | None,
    outcome: Outcome,
    request_id: str | None = None,
    after: int | None = None,
    device: Device | None = None,
    default_names: tuple[str, str] = DEFAULT_NAMES,
) -> tuple[MatchView, bool]:
    """Record one deal's game points for ``seat`` (none for a tie); returns the match and
    whether the deal is new.

    With no ``match_id`` the browser's first match (``default_names``) is started with it. A
    ``request_id`` seen before in this match records nothing, so a double tap or a
    retried request counts once; so does one whose deal was undone since. The same
    ``request_id`` with another deal is refused, its deal there or undone
    (:class:`~counter.game.match.RequestReused`). With ``after`` (how many deals the phone
    knew of) a match that has another number of deals now records nothing
    (:class:`~counter.game.match.DealsChanged`).
    """
    stored = for_writing(owner=owner, match_id=match_id, device=device, default_names=default_names)
    if (
        request_id is not None
        and stored.match.recorded_by(request_id) is None
        and spent.request_spent(
            match_id=stored.id, request_id=request_id, seat=seat, outcome=outcome
        )
    ):
        return _unchanged(stored), False
    at = utcnow()
    deal = stored.match.record(seat, outcome, at=at, request_id=request_id, after=after)
    if deal is None:
        return _unchanged(stored), False
    return _saved(stored, at), True


@writes
def undo_last_deal(
    *,
    owner: str,
    match_id: int,
    number: int | None = None,
    request_id: str | None = None,
    device: Device | None = None,
) -> tuple[MatchView, DealView | None]:
    """Take back the latest deal (with ``number`` or ``request_id``, only that deal); a
    match it had won is open again. A deal taken back already is not taken back again, so
    a repeated undo takes back one deal, never two. Returns the match and the deal."""
    stored = repository.load(owner, match_id, for_update=True)
    pin(device, match_id)
    before = view(stored)
    removed = stored.match.undo(number=number, request_id=request_id)
    if removed is None:
        return _unchanged(stored), None
    spent.spend_request(owner=owner, match_id=stored.id, deal=removed)
    return _saved(stored, utcnow()), before.deals[-1]  # type: ignore[index]


@writes
def correct_deal(
    *,
    owner: str,
    match_id: int,
    number: int,
    seat: Seat | None = None,
    outcome: Outcome | None = None,
) -> tuple[MatchView, DealView]:
    """Change who received a past deal's points and why (either may stay as it was);
    totals and winner follow. Returns the match and the corrected deal."""
    stored = repository.load(owner, match_id, for_update=True)
    at = utcnow()
    stored.match.correct(number, seat=seat, outcome=outcome, at=at)
    shown = _saved(stored, at)
    return shown, shown.deals[number - 1]  # type: ignore[index]


@writes
def delete_deal(*, owner: str, match_id: int, number: int) -> tuple[MatchView, DealView]:
    """Remove a past deal; the later ones move up a number, totals and winner follow.
    Returns the match and the deal that was removed."""
    stored = repository.load(owner, match_id, for_update=True)
    stored.match.deal(number)  # refused here if there is none
    removed = view(stored).deals[number - 1]  # type: ignore[index]
    deal = stored.match.delete(number)
    spent.spend_request(owner=owner, match_id=stored.id, deal=deal)
    return _saved(stored, utcnow()), removed


def _saved(stored: repository.Stored, at: datetime) -> MatchView:
    repository.save(stored, at=at)
    db.session.commit()
    push.changed(stored.id)
    return view(stored)


def _unchanged(stored: repository.Stored) -> MatchView:
    shown = view(stored)
    db.session.rollback()  # nothing to write: end the transaction and its lock
    return shown

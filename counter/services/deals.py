"""Deals: record one, undo the last, correct or delete a past one."""

from datetime import datetime

from counter.game.match import Deal
from counter.game.names import DEFAULT_NAMES
from counter.game.scoring import Outcome, Seat
from counter.services import spent
from counter.services.devices import Device
from counter.services.matches import for_writing, saved
from counter.services.read_models import DealView, MatchView, view
from counter.storage import repository
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
    """Record a deal (``seat`` None: a tie); returns the match and whether the deal is new."""
    stored = for_writing(owner=owner, match_id=match_id, device=device, default_names=default_names)
    if spent.request_spent(
        match_id=stored.row.id, request_id=request_id, seat=seat, outcome=outcome
    ):
        return _unchanged(stored), False
    at = utcnow()
    if stored.match.record(seat, outcome, at=at, request_id=request_id, after=after) is None:
        return _unchanged(stored), False
    return saved(stored, at), True


@writes
def undo_last_deal(
    *,
    owner: str,
    match_id: int,
    number: int | None = None,
    request_id: str | None = None,
    device: Device | None = None,
) -> tuple[MatchView, Deal | None]:
    """Take back the last deal (if it is ``number``'s or ``request_id``'s) once; and that deal."""
    stored = for_writing(owner=owner, match_id=match_id, device=device)
    removed = stored.match.undo(number=number, request_id=request_id)
    if removed is None:
        return _unchanged(stored), None
    spent.spend_request(owner=owner, match_id=stored.row.id, deal=removed)
    return saved(stored), removed


@writes
def correct_deal(
    *,
    owner: str,
    match_id: int,
    number: int,
    seat: Seat | None = None,
    outcome: Outcome | None = None,
    recorded_at: datetime | None = None,
) -> tuple[MatchView, Deal]:
    """Change who received a past deal's points, or why; returns the match and the deal."""
    stored = repository.load(owner, match_id, for_update=True)
    at = utcnow()
    deal = stored.match.correct(number, seat=seat, outcome=outcome, at=at, recorded_at=recorded_at)
    return saved(stored, at), deal


@writes
def delete_deal(
    *, owner: str, match_id: int, number: int, recorded_at: datetime | None = None
) -> tuple[MatchView, Deal]:
    """Remove a past deal (the one recorded at ``recorded_at``); and the deal removed."""
    stored = repository.load(owner, match_id, for_update=True)
    removed = stored.match.delete(number, recorded_at=recorded_at)
    spent.spend_request(owner=owner, match_id=stored.row.id, deal=removed)
    return saved(stored), removed


def find_deal(
    *, owner: str, match_id: int, number: int, recorded_at: datetime | None = None
) -> tuple[MatchView, DealView]:
    """Deal ``number`` of the match as it is now; refused if not the one of ``recorded_at``."""
    stored = repository.load(owner, match_id)
    stored.match.deal(number, recorded_at=recorded_at)
    shown = view(stored)
    return shown, shown.deals[number - 1]  # type: ignore[index]


def _unchanged(stored: repository.Stored) -> MatchView:
    shown = view(stored)
    db.session.rollback()  # end the transaction and its lock
    return shown

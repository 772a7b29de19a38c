"""Spent uids and request ids (hashed) outlive an undo or delete: a late copy records nothing."""

import hashlib
import json
from collections.abc import Collection, Mapping
from typing import Any

from sqlalchemy import bindparam, delete, select

from counter.game.match import Deal, RequestReused
from counter.game.refusals import N_, Conflict
from counter.game.scoring import Outcome, Seat
from counter.storage.models import Spent, db


class UidReused(Conflict): ...


def _digest(*parts: object) -> str:
    return hashlib.sha256("\0".join(str(part) for part in parts).encode()).hexdigest()


def settings_digest(settings: Mapping[str, Any]) -> str:
    """A hash of the settings a start asked for, as sent (one not sent: None)."""
    asked = {name: settings.get(name) for name in ("target", "names", "first_dealer")}
    rules, preset, game = settings.get("rules"), settings.get("preset"), settings.get("game")
    asked["rules"] = None if rules is None else {name: str(rule) for name, rule in rules.items()}
    asked["preset"] = None if preset is None else preset.label
    if game is not None:
        asked["game"] = game
    return _digest(json.dumps(asked, sort_keys=True, ensure_ascii=False))


def check_start(*, owner: str, uid: str, settings: str, exists: bool) -> None:
    """Refuse a ``uid`` whose match was deleted (not ``exists``) or had other ``settings``."""
    found = db.session.scalar(select(Spent).where(Spent.digest == _digest("uid", owner, uid)))
    if found is None:
        return  # new, or imported
    if not exists:
        raise UidReused(N_("The match with that uid was deleted; nothing was started."))
    if found.settings_digest not in (None, settings):
        message = N_(
            "That uid already started a match with other settings; nothing was started. "
            "A new match needs a new uid."
        )
        raise UidReused(message)


def spend_uid(*, owner: str, uid: str, settings: str | None = None) -> None:
    """Keep a started (or deleted) match's uid, unless it is kept already."""
    digest = _digest("uid", owner, uid)
    if db.session.scalar(select(Spent.id).where(Spent.digest == digest)) is None:
        db.session.add(Spent(digest=digest, owner_digest=_digest(owner), settings_digest=settings))


def _deal_digest(seat: Seat | None, outcome: Outcome) -> str:
    return _digest("deal", seat, str(outcome))


def spend_request(*, owner: str, match_id: int, deal: Deal) -> None:
    """Keep the request id of a deal being undone or deleted, with a hash of the deal."""
    if deal.request_id is not None:
        spent = Spent(digest=_digest("request", match_id, deal.request_id), match_id=match_id)
        spent.owner_digest = _digest(owner)
        spent.settings_digest = _deal_digest(deal.player, deal.outcome)
        db.session.add(spent)


# Built once: it runs before every deal.
_REQUEST = select(Spent.id, Spent.settings_digest).where(Spent.digest == bindparam("digest"))


def request_spent(
    *, match_id: int | None, request_id: str | None, seat: Seat | None, outcome: Outcome
) -> bool:
    """Whether ``request_id`` recorded this deal in this match, gone since; refused if another."""
    if match_id is None or request_id is None:
        return False
    digest = _digest("request", match_id, request_id)
    # Run after the match is locked, so that PostgreSQL shows the undo that held the lock.
    found = db.session.connection().execute(_REQUEST, {"digest": digest}).first()
    if found is None:
        return False
    # None: spent without a hash of its deal.
    if found.settings_digest not in (None, _deal_digest(seat, outcome)):
        message = N_(
            "That request was already recorded, for another player or outcome, and that "
            "deal was taken back since; nothing new was recorded."
        )
        raise RequestReused(message)
    return True


def forget_owners(*, owners: Collection[str]) -> None:
    digests = [_digest(owner) for owner in owners]
    db.session.execute(delete(Spent).where(Spent.owner_digest.in_(digests)))

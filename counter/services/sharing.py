"""Read-only links to one match, for the other player's phone, until they are revoked."""

import secrets

from sqlalchemy import select

from counter.game.refusals import N_, NotFound
from counter.services.read_models import MatchView, view
from counter.storage import push, repository
from counter.storage.models import Match, db
from counter.storage.transactions import writes

TOKEN_MAX_LENGTH = 32


def queryable(token: str) -> bool:
    """Whether a link's token may be looked up: PostgreSQL refuses a NUL in text."""
    return token.isascii() and token.isprintable() and len(token) <= TOKEN_MAX_LENGTH


@writes
def share_match(*, owner: str, match_id: int) -> str:
    match = repository.load(owner, match_id, for_update=True).row
    if match.share_token is None:
        match.share_token = secrets.token_urlsafe(16)
        db.session.commit()
    return match.share_token


@writes
def stop_sharing(*, owner: str, match_id: int) -> None:
    match = repository.load(owner, match_id, for_update=True).row
    match.share_token = None
    db.session.commit()
    push.recheck([match_id])


def share_token(*, owner: str | None, match_id: int) -> str | None:
    found = select(Match.share_token).where(Match.id == match_id, Match.owner == owner)
    return db.session.scalar(found)


def still_shared(*, match_id: int, token: str) -> bool:
    found = select(Match.id).where(Match.id == match_id, Match.share_token == token)
    return queryable(token) and db.session.scalar(found) is not None


def shared_match(*, token: str) -> MatchView:
    """The match a share link shows, without the games of its series (other matches)."""
    found = select(Match.owner, Match.id).where(Match.share_token == token)
    row = db.session.execute(found).one_or_none() if queryable(token) else None
    if row is None:
        raise NotFound(N_("This match is not shared any more."))
    stored = repository.load(row.owner, row.id)
    stored.earlier = (0, 0)
    return view(stored)

"""Taking a browser's matches to another phone.

A device link hands this browser's key to the device that opens it: once, and
within 15 minutes.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import select

from counter.matches import writes
from counter.models import DeviceLink, db, utcnow
from counter.scoring import N_, RuleConflict

LINK_LIFETIME = timedelta(minutes=15)


class LinkUnusable(RuleConflict):
    """A device link that was used already, has expired, or never existed."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@writes
def create_device_link(owner: str) -> str:
    """A new one-time token for this browser's key; only its hash is stored."""
    token = secrets.token_urlsafe(24)
    db.session.add(DeviceLink(token_hash=_hash(token), owner=owner))
    db.session.commit()
    return token


def _usable(token: str) -> DeviceLink:
    link = db.session.scalars(
        select(DeviceLink).where(DeviceLink.token_hash == _hash(token))
    ).one_or_none()
    if link is None:
        raise LinkUnusable(N_("This link does not exist. Make a new one on the other device."))
    if link.used_at is not None:
        raise LinkUnusable(N_("This link was used already. Make a new one on the other device."))
    if utcnow() - link.created_at > LINK_LIFETIME:
        raise LinkUnusable(
            N_("This link has expired (they last 15 minutes). Make a new one on the other device.")
        )
    return link


def check_device_link(token: str) -> None:
    """Refuse a link that cannot be used, without using it (for the page that asks first)."""
    _usable(token)


@writes
def use_device_link(token: str) -> str:
    """Spend the link and return the key it carries; a second use is refused."""
    link = _usable(token)
    link.used_at = utcnow()
    db.session.commit()
    return link.owner

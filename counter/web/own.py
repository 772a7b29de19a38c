"""The browser's own key for a match, never a club table link's host key.

A table link lets a phone record in its match and read it (:func:`counter.web.browser.owner_of`);
what reaches beyond that (sharing the match, making it a screen's match) asks for this.
"""

from __future__ import annotations

from counter.storage.repository import MatchNotFound
from counter.web.browser import current_owner


def own_key(match_id: int) -> str:
    """This browser's key; without one it has no matches, so the match is not found."""
    owner = current_owner()
    if owner is None:
        raise MatchNotFound.with_id(match_id)
    return owner

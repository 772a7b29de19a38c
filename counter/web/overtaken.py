"""The ``ask`` of the 409 to a deal sent with ``after``: another phone was first (docs/sync.md)."""

from __future__ import annotations

from flask_babel import gettext, ngettext

from counter.game import scoring
from counter.game.scoring import Outcome, Seat
from counter.services.read_models import MatchView
from counter.web import words


def question(
    *, match: MatchView, after: int, seat: Seat | None, outcome: Outcome
) -> dict[str, str | int]:
    """``question`` and its answers ``same`` (drop this deal) and ``add`` (record it too); for
    one deal recorded there with another result, ``mine`` (replace it) and its ``deal``."""
    deals = match.deals or ()
    missed = deals[after:]
    points = scoring.score_deal(seat, outcome, match.rules).points
    yours = words.deal_note(match.names, seat, points, outcome, match.game.name)
    if len(missed) == 1 and (missed[0].player, missed[0].outcome) != (seat, outcome):
        theirs = missed[0]
        return {
            "question": gettext(
                "Another phone recorded deal %(number)s: %(theirs)s. This phone: %(yours)s. "
                "Which is right?",
                number=theirs.number,
                theirs=words.note_of(match, theirs),
                yours=yours,
            ),
            "same": gettext("The other phone's"),
            "mine": gettext("Mine"),
            "add": gettext("Both: two deals"),
            "deal": theirs.number,
        }
    if missed:
        listed = "; ".join(f"{deal.number}: {words.note_of(match, deal)}" for deal in missed)
        return {
            "question": ngettext(
                "Another phone recorded deal %(deals)s. Yours: %(yours)s. Same deal?",
                "Another phone recorded deals %(deals)s. Yours: %(yours)s. Was it one of them?",
                len(missed),
                deals=listed,
                yours=yours,
            ),
            "same": gettext("Same deal, keep one"),
            "add": gettext("Add mine too"),
        }
    return {
        "question": gettext(
            "Another phone took back a deal meanwhile. Still record yours (%(deal)s) as deal "
            "%(number)s?",
            deal=yours,
            number=len(deals) + 1,
        ),
        "same": gettext("Drop mine"),
        "add": gettext("Record mine"),
    }

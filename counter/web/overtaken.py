"""What a phone asks its player when another phone recorded or undid a deal first: the
``ask`` of the 409 answer to a deal sent with ``after`` (docs/sync.md), worded here so the
page needs no words of its own for a rare case.
"""

from __future__ import annotations

from collections.abc import Sequence

from flask_babel import gettext, ngettext

from counter.game import scoring
from counter.game.scoring import Outcome, Seat
from counter.services.read_models import DealView, MatchView
from counter.web import words


def question(
    *, match: MatchView, after: int, seat: Seat | None, outcome: Outcome
) -> dict[str, str | int]:
    """``question``, and the words of its answers: ``same`` (the deal is one of those
    the other phone recorded, or is dropped) and ``add`` (it is recorded too). When the
    other phone recorded one deal with another result, also ``mine`` (this phone's result
    replaces it) and ``deal``, the number of the deal that the answer corrects."""
    deals: Sequence[DealView] = match.deals or ()
    missed = deals[after:]
    points = scoring.score_deal(seat, outcome, match.rules).points
    yours = words.deal_note(match.names, seat, points, outcome, match.game.name)

    def note(deal: DealView) -> str:
        return words.deal_note(match.names, deal.player, deal.points, deal.outcome, match.game.name)

    if len(missed) == 1 and (missed[0].player, missed[0].outcome) != (seat, outcome):
        theirs = missed[0]
        return {
            "question": gettext(
                "Another phone recorded deal %(number)s: %(theirs)s. This phone: %(yours)s. "
                "Which is right?",
                number=theirs.number,
                theirs=note(theirs),
                yours=yours,
            ),
            "same": gettext("The other phone's"),
            "mine": gettext("Mine"),
            "add": gettext("Both: two deals"),
            "deal": theirs.number,
        }
    if missed:
        listed = "; ".join(f"{deal.number}: {note(deal)}" for deal in missed)
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

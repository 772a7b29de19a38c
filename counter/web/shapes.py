"""How matches look in JSON: the API's answers, and the state the page's script starts from."""

from dataclasses import asdict, replace
from typing import Any

from flask_babel import gettext, ngettext

from counter.game import scoring
from counter.game.match import overtaken
from counter.services.read_models import DealView, MatchPage, MatchView
from counter.storage.timestamps import iso_utc
from counter.web import words

AS_THEY_ARE = ("id", "uid", "target", "winner", "finished", "marks", "session", "first_dealer")
STAMPS = ("created_at", "finished_at", "played_at")


def match_json(match: MatchView) -> dict[str, Any]:
    """A summary (no ``deals``) carries ``deal_count`` instead."""
    body: dict[str, Any] = {
        **{key: getattr(match, key) for key in AS_THEY_ARE},
        **{key: iso_utc(getattr(match, key)) for key in STAMPS},
        "game": match.game.name.value,
        "players": [asdict(player) for player in match.players],
        "rules": match.rules.as_dict(),
        "table": match.rules.as_table(),
    }
    if match.deals is None:
        return {**body, "deal_count": match.deal_count}
    deals = [deal_json(deal) for deal in match.deals]
    return {**body, "dealer": match.dealer, "leader": scoring.leader(match.dealer), "deals": deals}


def deal_json(deal: DealView) -> dict[str, Any]:
    """The deal's fields but the house rules it was recorded under."""
    shown = {name: value for name, value in vars(deal).items() if name != "rules"}
    return {**shown, "outcome": deal.outcome.value, "created_at": iso_utc(deal.created_at)}


def update_json(match: MatchView, *, since: int | None) -> dict[str, Any]:
    """The match with ``deal_count`` and only the deals numbered above ``since`` (none: none)."""
    later = [deal for deal in match.deals or () if since is not None and deal.number > since]
    return {**match_json(replace(match, deals=tuple(later))), "deal_count": match.deal_count}


PRIVATE = ("id", "uid", "played_at", "table", "first_dealer", "session")


def shared_json(match: MatchView) -> dict[str, Any]:
    """What a share link shows of a match: nothing that names anything else."""
    body = match_json(match)
    players = [{k: v for k, v in player.items() if k != "games"} for player in body["players"]]
    return {
        **{key: value for key, value in body.items() if key not in PRIVATE},
        "players": players,
        "deals": [{k: v for k, v in deal.items() if k != "request_id"} for deal in body["deals"]],
    }


def page_json(page: MatchPage) -> dict[str, Any]:
    matches = [match_json(match) for match in page.matches]
    return {"matches": matches, "page": page.page, "pages": page.pages}


def ask_json(
    *, match: MatchView, after: int, seat: scoring.Seat | None, outcome: scoring.Outcome
) -> dict[str, str | int]:
    """The ``ask`` of a deal's 409, another phone being first (docs/sync.md, "Two phones")."""
    deals = match.deals or ()
    missed = deals[after:]
    points = scoring.score_deal(seat, outcome, match.rules).points
    yours = words.deal_note(match.names, seat, points, outcome, match.game.name)
    if overtaken([(deal.player, deal.outcome) for deal in missed], seat, outcome):
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
            # A match won by the other phone's deal takes no deal after it.
            **({} if match.finished else {"add": gettext("Both: two deals")}),
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

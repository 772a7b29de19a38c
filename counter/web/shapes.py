"""How matches look in JSON: the API's answers, and the state the page's script starts from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from counter.game import scoring
from counter.services.read_models import DealView, MatchPage, MatchView
from counter.storage.timestamps import iso_utc


def match_json(match: MatchView) -> dict[str, Any]:
    """A summary (no ``deals``) carries ``deal_count`` instead."""
    body: dict[str, Any] = {
        "id": match.id,
        "uid": match.uid,
        "game": match.game.name.value,
        "target": match.target,
        "players": [
            {"seat": player.seat, "name": player.name, "score": player.score, "games": player.games}
            for player in match.players
        ],
        "winner": match.winner,
        "finished": match.finished,
        "marks": match.marks,
        "rules": match.rules.as_dict(),
        "table": match.rules.as_table(),
        "session": None if match.session is None else list(match.session),
        "first_dealer": match.first_dealer,
        "created_at": iso_utc(match.created_at),
        "finished_at": iso_utc(match.finished_at),
        "played_at": iso_utc(match.played_at),
    }
    if match.deals is None:
        return {**body, "deal_count": match.deal_count}
    deals = [deal_json(deal) for deal in match.deals]
    return {**body, "dealer": match.dealer, "leader": scoring.leader(match.dealer), "deals": deals}


def deal_json(deal: DealView) -> dict[str, Any]:
    return {
        "number": deal.number,
        "player": deal.player,
        "outcome": deal.outcome.value,
        "points": deal.points,
        "scores": list(deal.scores),
        "created_at": iso_utc(deal.created_at),
        "corrected": deal.corrected,
        "dealer": deal.dealer,
        "request_id": deal.request_id,
    }


def update_json(match: MatchView, *, since: int | None) -> dict[str, Any]:
    """The match with ``deal_count`` and only the deals numbered above ``since`` (none: none)."""
    later = [deal for deal in match.deals or () if since is not None and deal.number > since]
    return {**match_json(replace(match, deals=tuple(later))), "deal_count": match.deal_count}


PRIVATE = ("id", "uid", "played_at", "table", "first_dealer", "session")


def shared_json(match: MatchView) -> dict[str, Any]:
    return shared_from(match_json(match))


def shared_from(body: dict[str, Any]) -> dict[str, Any]:
    """What a share link shows of a match: nothing that names anything else."""
    return {
        **{key: value for key, value in body.items() if key not in PRIVATE},
        "players": [
            {k: v for k, v in player.items() if k != "games"} for player in body["players"]
        ],
        "deals": [{k: v for k, v in deal.items() if k != "request_id"} for deal in body["deals"]],
    }


def page_json(page: MatchPage) -> dict[str, Any]:
    return {
        "matches": [match_json(match) for match in page.matches],
        "page": page.page,
        "pages": page.pages,
    }

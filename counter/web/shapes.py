"""How matches look in JSON: the API's answers, and the state the page's script starts from."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from counter.game import scoring
from counter.services.read_models import DealView, MatchPage, MatchView
from counter.storage.timestamps import iso_utc


def match_json(match: MatchView) -> dict[str, Any]:
    """A match as the API shows it; a summary (no ``deals``) carries ``deal_count`` instead.
    ``table`` lets a client score a tap before the server answers (``HouseRules.as_table``)."""
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
        "rules": _rules_json(match.rules)[0],
        "table": _rules_json(match.rules)[1],
        "session": None if match.session is None else list(match.session),
        "first_dealer": match.first_dealer,
        "created_at": iso_utc(match.created_at),
        "finished_at": iso_utc(match.finished_at),
        "played_at": iso_utc(match.played_at),
    }
    if match.deals is None:
        body["deal_count"] = match.deal_count
    else:
        body["dealer"] = match.dealer
        body["leader"] = scoring.leader(match.dealer)
        body["deals"] = [deal_json(deal) for deal in match.deals]
    return body


@functools.lru_cache(maxsize=64)
def _rules_json(rules: scoring.HouseRules) -> tuple[dict[str, str], dict[str, Any]]:
    """A set of house rules and its table, cached (few sets are in use): never change them."""
    return rules.as_dict(), rules.as_table()


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
    """A match without its deals but for those numbered above ``since`` (none: no deals),
    with ``deal_count``, ``dealer`` and ``leader``."""
    deals = match.deals or ()
    summary = replace(match, deals=None)
    body = match_json(summary)
    body["dealer"] = match.dealer
    body["leader"] = scoring.leader(match.dealer)
    later = () if since is None else (deal for deal in deals if deal.number > since)
    body["deals"] = [deal_json(deal) for deal in later]
    return body


def shared_json(match: MatchView) -> dict[str, Any]:
    """A match as a share link shows it: the match alone, nothing that names anything else."""
    return shared_from(match_json(match))


def shared_from(body: dict[str, Any]) -> dict[str, Any]:
    """What a share link shows of a match as the API shows it to its browser."""
    body = dict(body, players=[dict(player) for player in body["players"]])
    body["deals"] = [dict(deal) for deal in body["deals"]]
    for private in ("id", "uid", "played_at", "table", "first_dealer", "session"):
        del body[private]
    for player in body["players"]:
        del player["games"]
    for deal in body["deals"]:
        del deal["request_id"]
    return body


def page_json(page: MatchPage) -> dict[str, Any]:
    return {
        "matches": [match_json(match) for match in page.matches],
        "page": page.page,
        "pages": page.pages,
    }

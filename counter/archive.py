"""Export a browser's matches (CSV for spreadsheets, JSON for another browser) and import them.

An import is checked whole before anything is stored: every match must be one the
rules allow, deal by deal. Matches keep their uid, so a file imported twice adds
its matches once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from counter import scoring
from counter.matches import writes
from counter.models import Deal, Match, db, utcnow
from counter.scoring import N_, RuleError

FORMAT = "santase-counter"
VERSION = 1
UID = re.compile(r"^[0-9a-f]{32}$")
MATCH_FIELDS = {"uid", "target", "players", "rules", "first_dealer", "created_at", "deals"}
DEAL_FIELDS = {"number", "player", "outcome", "points", "created_at", "corrected_at"}
CSV_HEADER = [
    "match",
    "started",
    "target",
    "player1",
    "player2",
    "failed_close",
    "wrong_claim",
    "next_dealer",
    "ties",
    "first_dealer",
    "deal",
    "seat",
    "points_to",
    "outcome",
    "points",
    "score1",
    "score2",
    "recorded",
    "corrected",
]


@dataclass(frozen=True)
class ImportReport:
    """What an import adds: matches new to this browser, and those it already has."""

    new: list[dict[str, Any]]
    present: list[dict[str, Any]]


def _moment(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds") + "Z"


def _owned(owner: str | None) -> list[Match]:
    if owner is None:
        return []
    return list(
        db.session.scalars(
            select(Match)
            .where(Match.owner == owner)
            .order_by(Match.id)
            .options(selectinload(Match.deals))
        )
    )


def export_document(owner: str | None) -> dict[str, Any]:
    """Every match of this browser, with its deals, as the JSON that import reads."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": _moment(utcnow()),
        "matches": [
            {
                "uid": match.uid,
                "target": match.target,
                "players": list(match.names),
                "rules": {
                    "failed_close": match.failed_close,
                    "wrong_claim": match.wrong_claim,
                    "next_dealer": match.next_dealer,
                    "ties": match.ties,
                },
                "first_dealer": match.first_dealer,
                "created_at": _moment(match.created_at),
                "deals": [
                    {
                        "number": deal.number,
                        "player": deal.player,
                        "outcome": deal.outcome,
                        "points": deal.points,
                        "created_at": _moment(deal.created_at),
                        "corrected_at": _moment(deal.corrected_at),
                    }
                    for deal in match.deals
                ],
            }
            for match in _owned(owner)
        ],
    }


def export_rows(owner: str | None) -> Iterator[Sequence[object]]:
    """The CSV: a header, then one row per deal with both running totals."""
    yield CSV_HEADER
    for match in _owned(owner):
        results = [
            scoring.DealResult(
                None if deal.player is None else scoring.parse_seat(deal.player),
                scoring.Outcome(deal.outcome),
                deal.points,
            )
            for deal in match.deals
        ]
        totals = scoring.running_totals(results, match.target, match.names)
        for deal, after in zip(match.deals, totals, strict=True):
            yield [
                match.uid,
                _moment(match.created_at),
                match.target,
                match.player1,
                match.player2,
                match.failed_close,
                match.wrong_claim,
                match.next_dealer,
                match.ties,
                match.first_dealer,
                deal.number,
                deal.player or "",
                "" if deal.player is None else match.names[deal.player - 1],
                deal.outcome,
                deal.points,
                after.scores[0],
                after.scores[1],
                _moment(deal.created_at),
                _moment(deal.corrected_at) or "",
            ]


def read_document(raw: bytes | str) -> list[dict[str, Any]]:
    """The matches of an exported file, each checked against the rules; or a clear refusal."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError):
        raise RuleError(N_("This file is not an export of the counter (it is not JSON).")) from None
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or not isinstance(document.get("matches"), list)
    ):
        raise RuleError(N_("This file is not an export of the counter."))
    if document.get("version") != VERSION:
        raise RuleError(N_("This export comes from another version of the counter."))
    return [
        _checked_match(position, match) for position, match in enumerate(document["matches"], 1)
    ]


def _checked_match(position: int, match: object) -> dict[str, Any]:
    try:
        if not isinstance(match, dict) or set(match) != MATCH_FIELDS:
            raise RuleError(N_("The fields of the match are not those of an export."))
        if not isinstance(match["uid"], str) or not UID.match(match["uid"]):
            raise RuleError(N_("The match has no valid uid."))
        names = match["players"]
        if not isinstance(names, list) or len(names) != 2:
            raise RuleError(N_("Give exactly two player names."))
        players = scoring.parse_names(names[0], names[1])
        target = scoring.parse_target(match["target"])
        rules = scoring.parse_rules(match["rules"], scoring.DEFAULT_RULES)
        first_dealer = scoring.parse_seat(match["first_dealer"])
        deals = match["deals"]
        if not isinstance(deals, list):
            raise RuleError(N_("The deals of the match are not a list."))
        results = [_checked_deal(number, deal) for number, deal in enumerate(deals, 1)]
        final = scoring.replay([result for result, _ in results], target, players)
    except RuleError as error:
        raise RuleError(
            N_("Match %(position)s of the file: %(problem)s"), position=position, problem=error
        ) from None
    return {
        "uid": match["uid"],
        "players": players,
        "target": target,
        "rules": rules,
        "first_dealer": first_dealer,
        "created_at": _parse_moment(match["created_at"]),
        "deals": results,
        "won_by": final.winner,
    }


def _checked_deal(number: int, deal: object) -> tuple[scoring.DealResult, dict[str, Any]]:
    if not isinstance(deal, dict) or set(deal) != DEAL_FIELDS or deal["number"] != number:
        raise RuleError(N_("Deal %(number)s is not as an export writes it."), number=number)
    points = deal["points"]
    if not isinstance(points, int) or isinstance(points, bool) or not 0 <= points <= 3:
        raise RuleError(N_("Deal %(number)s has impossible points."), number=number)
    outcome = scoring.parse_outcome(deal["outcome"])
    tie = outcome is scoring.Outcome.TIE and deal["player"] is None
    result = scoring.DealResult(
        None if tie else scoring.parse_seat(deal["player"]), outcome, points
    )
    times = {
        "created_at": _parse_moment(deal["created_at"]),
        "corrected_at": None
        if deal["corrected_at"] is None
        else _parse_moment(deal["corrected_at"]),
    }
    return result, times


def _parse_moment(value: object) -> datetime:
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            if moment.tzinfo is not None:
                moment = moment.astimezone(UTC).replace(tzinfo=None)
            return moment
    raise RuleError(N_("%(value)s is not a date and time."), value=scoring.shown(value))


def preview(owner: str | None, matches: list[dict[str, Any]]) -> ImportReport:
    """Which matches of a checked file this browser lacks, and which it has already."""
    have = set()
    if owner is not None:
        have = set(db.session.scalars(select(Match.uid).where(Match.owner == owner)))
    return ImportReport(
        new=[match for match in matches if match["uid"] not in have],
        present=[match for match in matches if match["uid"] in have],
    )


@writes
def import_matches(owner: str, matches: list[dict[str, Any]]) -> ImportReport:
    """Store the matches this browser lacks, in one transaction: all of them or none."""
    report = preview(owner, matches)
    for imported in report.new:
        match = Match(
            uid=imported["uid"],
            owner=owner,
            player1=imported["players"][0],
            player2=imported["players"][1],
            target=imported["target"],
            first_dealer=imported["first_dealer"],
            created_at=imported["created_at"],
            won_by=imported["won_by"],
        )
        match.rules = imported["rules"]
        match.deals = [
            Deal(
                number=number,
                player=result.player,
                outcome=result.outcome.value,
                points=result.points,
                created_at=times["created_at"],
                corrected_at=times["corrected_at"],
            )
            for number, (result, times) in enumerate(imported["deals"], 1)
        ]
        db.session.add(match)
    db.session.commit()
    return report

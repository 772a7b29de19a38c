"""Export a browser's matches (rows for a spreadsheet, JSON for another browser); import them."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from counter.game import match as game
from counter.game import parsing, scoring
from counter.game.games import GAMES, game_of
from counter.game.names import NAME_MAX_LENGTH
from counter.game.refusals import N_, Conflict, Invalid, Refusal, TooLarge, as_sent
from counter.game.scoring import DealResult, HouseRules
from counter.services import devices
from counter.services.matches import MAX_MATCHES_PER_BROWSER, TooManyMatches
from counter.storage import repository
from counter.storage.models import Match, db, utcnow
from counter.storage.owner_lock import lock_owners
from counter.storage.timestamps import iso_utc
from counter.storage.transactions import writes

FORMAT = "santase-counter"
VERSION = 3
READS = (1, 2, 3)  # 1 has no rules per deal (the match's); 1 and 2 no game (games.game_of)
DOCUMENT_FIELDS = {"format", "version", "exported_at", "matches"}
MATCH_FIELDS = {"uid", "target", "players", "rules", "first_dealer", "created_at", "deals"}
DEAL_FIELDS = {"number", "player", "outcome", "points", "created_at", "corrected_at"}
# What one import takes and one browser keeps: a browser's whole history fits one import.
MAX_MATCHES = MAX_MATCHES_PER_BROWSER
MAX_DEALS_PER_BROWSER = 60_000
BATCH_MATCHES = 200  # matches inserted by one statement, whose rows are built in memory at once


def export_document(*, owner: str | None) -> Iterator[str]:
    """The JSON text that import reads, in pieces: a match at a time, read a batch at a time."""
    head = {"format": FORMAT, "version": VERSION, "exported_at": iso_utc(utcnow())}
    yield json.dumps(head, ensure_ascii=False)[:-1] + ', "matches": ['
    for number, stored in enumerate(repository.each_of(owner)):
        match = json.dumps(_exported(stored.match), ensure_ascii=False)
        yield ("," if number else "") + "\n" + match
    yield "\n]}\n"


def _exported(match: game.Match) -> dict[str, Any]:
    return {
        "uid": match.uid,
        "game": match.game.name.value,
        "target": match.target,
        "players": list(match.names),
        "rules": match.rules.as_dict(),
        "first_dealer": match.first_dealer,
        "created_at": iso_utc(match.created_at),
        "deals": [
            {
                "number": number,
                "player": deal.player,
                "outcome": deal.outcome.value,
                "points": deal.points,
                "created_at": iso_utc(deal.created_at),
                "corrected_at": iso_utc(deal.corrected_at),
                # A deal recorded before the match's rules were changed keeps its own.
                **({"rules": deal.rules.as_dict()} if deal.rules != match.rules else {}),
            }
            for number, deal in enumerate(match.deals, 1)
        ],
    }


ExportRow = tuple[game.Match, int, game.Deal, tuple[int, int]]


def export_rows(*, owner: str | None) -> Iterator[ExportRow]:
    """Each deal of this browser's matches, oldest first, its number and the scores after it."""
    for stored in repository.each_of(owner):
        match = stored.match
        totals = match.running_totals()
        for number, (deal, after) in enumerate(zip(match.deals, totals, strict=True), 1):
            yield match, number, deal, after.scores


# An export of the largest import has no more objects and lists (brackets in names too),
# and names some twenty keys: a file with more is refused before reading it costs memory.
MOST_KEYS = 64
MAX_BRACKETS = 2 * MAX_DEALS_PER_BROWSER + 3 * MAX_MATCHES + 2 * NAME_MAX_LENGTH * MAX_MATCHES + 10
TOO_MANY_MATCHES = N_("The file holds %(count)s matches; one import takes at most %(most)s.")
TOO_MANY_DEALS = N_("The file holds %(count)s deals; one import takes at most %(most)s.")


def read_document(raw: bytes | str) -> list[game.Match]:
    """The matches of an export (UTF-8, -16 or -32), each checked whole; or a clear refusal."""
    text = raw if isinstance(raw, str) else raw.decode("latin-1")  # brackets are ASCII
    if text.count("[") + text.count("{") > MAX_BRACKETS or not parsing.keys_within(raw, MOST_KEYS):
        raise TooLarge(N_("This file holds far more than an export of the counter can."))
    try:
        document = parsing.json_value(raw)
    except ValueError:
        raise Invalid(N_("This file is not an export of the counter (it is not JSON).")) from None
    if (
        not isinstance(document, dict)
        or not set(document) <= DOCUMENT_FIELDS
        or document.get("format") != FORMAT
        or not isinstance(document.get("matches"), list)
    ):
        raise Invalid(N_("This file is not an export of the counter."))
    version = document.get("version")
    if isinstance(version, bool) or version not in READS:
        raise Invalid(N_("This export comes from another version of the counter."))
    if document.get("exported_at") is not None:  # informative only: read, never kept
        try:
            parsing.timestamp(document["exported_at"])
        except Refusal as error:
            raise Invalid(N_("When the file was exported: %(problem)s"), problem=error) from None
    found = document["matches"]
    lists = [m["deals"] for m in found if isinstance(m, dict) and isinstance(m.get("deals"), list)]
    if len(found) > MAX_MATCHES:
        raise TooLarge(TOO_MANY_MATCHES, count=len(found), most=MAX_MATCHES)
    if (deals := sum(map(len, lists))) > MAX_DEALS_PER_BROWSER:
        raise TooLarge(TOO_MANY_DEALS, count=deals, most=MAX_DEALS_PER_BROWSER)
    matches = []
    for index, match in enumerate(found):
        matches.append(_checked_match(index + 1, match))
        found[index] = None  # read: one copy of a big file in memory at a time, not two
    seen: dict[str, int] = {}
    for position, match in enumerate(matches, 1):
        if (first := seen.setdefault(match.uid, position)) != position:
            message = N_("Matches %(first)s and %(second)s of the file have the same uid.")
            raise Invalid(message, first=first, second=position)
    return matches


def _checked_match(position: int, match: object) -> game.Match:
    try:
        if not isinstance(match, dict) or set(match) - {"game"} != MATCH_FIELDS:
            raise Invalid(N_("The fields of the match are not those of an export."))
        uid = parsing.uid(match["uid"])
        players = parsing.players(match["players"])
        target = parsing.target(match["target"])
        rules = parsing.house_rules(match["rules"])
        played = GAMES[parsing.game(match["game"])] if "game" in match else game_of(rules)
        played.check_target(target)
        played.check_rules(rules)
        first_dealer = parsing.seat(match["first_dealer"])
        found = match["deals"]
        if not isinstance(found, list):
            raise Invalid(N_("The deals of the match are not a list."))
        deals = [_checked_deal(number, deal, rules) for number, deal in enumerate(found, 1)]
        recorded: set[datetime] = set()
        for deal in deals:  # each known by when it was recorded, to its page: see deal.html
            while deal.created_at in recorded:  # an export keeps whole seconds
                deal.created_at += timedelta(microseconds=1)
            recorded.add(deal.created_at)
        scoring.replay([deal.result for deal in deals], target, players)
        created_at = parsing.timestamp(match["created_at"])
    except Refusal as error:
        kind = TooLarge if isinstance(error, TooLarge) else Invalid
        message = N_("Match %(position)s of the file: %(problem)s")
        raise kind(message, position=position, problem=error) from None
    return game.Match(uid, players, created_at, target, first_dealer, rules, deals, played)


def _checked_deal(number: int, deal: object, match_rules: HouseRules) -> game.Deal:
    if (
        not isinstance(deal, dict)
        or not DEAL_FIELDS <= set(deal) <= DEAL_FIELDS | {"rules"}
        or not parsing.whole(deal["number"])
        or deal["number"] != number
    ):
        raise Invalid(N_("Deal %(number)s is not as an export writes it."), number=number)
    try:
        rules = parsing.house_rules(deal["rules"], match_rules) if "rules" in deal else match_rules
        outcome = parsing.outcome(deal["outcome"])
        player = parsing.receiver(outcome, deal["player"])
        points = deal["points"]
        if not parsing.whole(points):
            message = N_("The points must be a whole number, not %(value)s.")
            raise Invalid(message, value=as_sent(points))
        result = DealResult(player, outcome, int(points), rules)
        scoring.check_points(result)
        created_at = parsing.timestamp(deal["created_at"])
        corrected = deal["corrected_at"]
        corrected_at = None if corrected is None else parsing.timestamp(corrected)
    except Refusal as error:
        raise Invalid(N_("Deal %(number)s: %(problem)s"), number=number, problem=error) from None
    return game.Deal(result.player, result.outcome, result.points, rules, created_at, corrected_at)


@dataclass(frozen=True)
class ImportReport:
    new: list[game.Match]
    present: list[game.Match]


def preview(*, owner: str | None, matches: list[game.Match]) -> ImportReport:
    """Which matches of a checked file this browser lacks, and which it has already."""
    have = set(db.session.scalars(select(Match.uid).where(Match.owner == owner)))
    return ImportReport(
        new=[match for match in matches if match.uid not in have],
        present=[match for match in matches if match.uid in have],
    )


@writes
def import_matches(
    *, owner: str, matches: list[game.Match], device_id: int | None = None
) -> ImportReport:
    """Store the matches this browser lacks, all or none, while ``device_id`` holds the key."""
    lock_owners(owner)
    if not devices.holds(owner=owner, device_id=device_id):
        message = N_(
            "This browser's matches were erased, or moved to a new key, while the file "
            "was read; nothing was imported."
        )
        raise Conflict(message)
    report = preview(owner=owner, matches=matches)
    new_deals = sum(len(match.deals) for match in report.new)
    kept_deals = N_(
        "This browser would then keep more than %(most)s deals. Delete some "
        "matches first, or import into another browser."
    )
    kept_matches = N_(
        "This browser would then keep more than %(most)s matches. Delete some "
        "first, or import into another browser."
    )
    if repository.count_deals(owner) + new_deals > MAX_DEALS_PER_BROWSER:
        raise TooManyMatches(kept_deals, most=MAX_DEALS_PER_BROWSER)
    if repository.count(owner) + len(report.new) > MAX_MATCHES:
        raise TooManyMatches(kept_matches, most=MAX_MATCHES)
    try:
        for start in range(0, len(report.new), BATCH_MATCHES):
            repository.add_many(owner, report.new[start : start + BATCH_MATCHES])
        db.session.commit()
    except IntegrityError:
        # A match started with one of these uids at this very moment, without the lock.
        raise Conflict(
            N_("The same matches were being added at the same time; nothing was imported.")
        ) from None
    return report

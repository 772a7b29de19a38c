"""Exports as big as one import takes, made up without playing them (tests and measurements)."""

from __future__ import annotations

import json
from typing import Any

from counter.game import scoring
from counter.services import archive

TIES = {**scoring.DEFAULT_RULES.as_dict(), "ties": "no_points"}
DEALS_PER_MATCH = 30  # 14 deals to each player and 2 ties: the match goes on (target 15)


def bulk_match(number: int, *, names: tuple[str, str] = ("Ivan", "Maria")) -> dict[str, Any]:
    """An unfinished match of 30 deals, its uid made from ``number``."""
    deals = []
    for count in range(1, DEALS_PER_MATCH + 1):
        tie = count > DEALS_PER_MATCH - 2
        deals.append(
            {
                "number": count,
                "player": None if tie else 1 + count % 2,
                "outcome": "tie" if tie else "normal",
                "points": 0 if tie else 1,
                "created_at": f"2026-11-01T20:{count:02d}:00Z",
                "corrected_at": None,
            }
        )
    return {
        "uid": f"{number:032x}",
        "target": 15,
        "players": list(names),
        "rules": TIES,
        "first_dealer": 1,
        "created_at": "2026-11-01T20:00:00Z",
        "deals": deals,
    }


def bulk_export(matches: int = archive.MAX_MATCHES, *, first: int = 0, **names: Any) -> bytes:
    """The file of ``matches`` such matches (the largest import by default), as JSON."""
    document = {
        "format": archive.FORMAT,
        "version": archive.VERSION,
        "exported_at": "2026-11-30T18:00:00Z",
        "matches": [bulk_match(first + n, **names) for n in range(matches)],
    }
    return json.dumps(document, ensure_ascii=False, indent=1).encode()

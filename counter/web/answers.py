"""How much of a match a deal, an undo or a settings change answers with.

``Prefer: return=minimal`` (RFC 7240) or ``?since=N`` (the deals the client holds) ask for
the match without its deals, but for those numbered above N; otherwise it is whole.
"""

from __future__ import annotations

from typing import Any

from flask import Response, g, request

from counter.game import parsing
from counter.services.read_models import MatchView
from counter.web.shapes import match_json, update_json

SHORTENED = frozenset({"api.record_deal", "api.undo_last_deal", "api.change_match"})
MINIMAL = "return=minimal"


def read_preference() -> None:
    """Read ``since`` before the write, so that a malformed one changes nothing."""
    if request.endpoint in SHORTENED and (raw := request.args.get("since")) is not None:
        g.answer_since = _count(raw)


def match_answer(match: MatchView) -> dict[str, Any]:
    if not shortened():
        return match_json(match)
    return update_json(match, since=g.get("answer_since"))


def shortened() -> bool:
    return request.endpoint in SHORTENED and ("since" in request.args or wants_minimal())


def _count(raw: str) -> int:
    if raw and raw.isascii() and set(raw) == {"0"}:
        return 0
    number = parsing.query_number(raw, "since")
    assert number is not None  # raw is a string
    return number


def wants_minimal() -> bool:
    return any(
        preference.strip().lower() == MINIMAL
        for header in request.headers.getlist("Prefer")
        for preference in header.replace(";", ",").split(",")
    )


def mark_preference(response: Response) -> Response:
    if response.status_code < 300 and response.is_json and shortened() and wants_minimal():
        response.headers["Preference-Applied"] = MINIMAL
    return response

"""How much of a match a write answers with: the whole match, or only what the client lacks.

A client that keeps the match itself (the page's script) asks a deal, an undo or a
settings change for an acknowledgement and the deals it has not seen:

- ``Prefer: return=minimal`` (RFC 7240): the match without its deals, with
  ``deal_count``; the answer says ``Preference-Applied: return=minimal``;
- ``?since=N``, N the deals the client holds: also the deals numbered above N.

Either one is enough for the short answer. Without them the answer is the whole
match, as every other client gets. Only the writes in :data:`SHORTENED` take them.
"""

from __future__ import annotations

from typing import Any

from flask import Response, g, request

from counter.game import parsing
from counter.services.read_models import MatchView
from counter.web.shapes import match_json, update_json

# The writes whose answer a client may shorten: a deal, an undo, a settings change.
SHORTENED = frozenset({"api.record_deal", "api.undo_last_deal", "api.change_match"})
MINIMAL = "return=minimal"


def read_preference() -> None:
    """Read what a write asks of its answer before it writes: a malformed ``since`` is
    refused (400) with nothing changed."""
    if request.endpoint in SHORTENED and (raw := request.args.get("since")) is not None:
        g.answer_since = _count(raw)


def match_answer(match: MatchView) -> dict[str, Any]:
    """The match as this request asked for it: whole, or (see above) shortened."""
    if not shortened():
        return match_json(match)
    return update_json(match, since=g.get("answer_since"))


def shortened() -> bool:
    """Whether this request is a write that asked for the short answer."""
    if "answer_shortened" not in g:  # asked by the service, the answer and its headers
        asked = "since" in request.args or wants_minimal()
        g.answer_shortened = request.endpoint in SHORTENED and asked
    return bool(g.answer_shortened)


def _count(raw: str) -> int:
    """The deals a client holds: digits, 0 included."""
    if raw and raw.isascii() and set(raw) == {"0"}:
        return 0  # a client that holds no deal yet
    number = parsing.query_number(raw, "since")
    assert number is not None  # raw is a string
    return number


def wants_minimal() -> bool:
    """Whether the request's ``Prefer`` header holds ``return=minimal``."""
    return any(
        preference.strip().lower() == MINIMAL
        for header in request.headers.getlist("Prefer")
        for preference in header.replace(";", ",").split(",")
    )


def mark_preference(response: Response) -> Response:
    """Say ``Preference-Applied: return=minimal`` on an answer that honoured it."""
    if response.status_code < 300 and response.is_json and shortened() and wants_minimal():
        response.headers["Preference-Applied"] = MINIMAL
    return response

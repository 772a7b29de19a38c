"""Reading the pages' forms, and showing a refused form again with its message."""

from __future__ import annotations

from flask import render_template, request

from counter import i18n
from counter.models import MAX_ID
from counter.names import parse_names
from counter.refusals import N_, Malformed, not_a_number
from counter.scoring import HouseRules, Outcome
from counter.services.queries import MatchNotFound


def number(field: str) -> int | None:
    """A positive whole number from the form, or None when the field is absent or empty."""
    raw = request.form.get(field, "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10 or not 1 <= int(raw) <= MAX_ID:
        raise not_a_number(field)
    return int(raw)


def match_id() -> int | None:
    """The match a form is about; one that cannot be this browser's is not found."""
    try:
        return number("match_id")
    except Malformed:
        raise MatchNotFound(N_("There is no such match in this browser.")) from None


def seat(field: str = "player") -> int | str:
    """A seat as the rules read it: 1 or 2, or the text sent (which they refuse)."""
    raw = request.form.get(field, "")
    return int(raw) if raw in ("1", "2") else raw


def receiver() -> int | str | None:
    """The seat that receives the points of a deal in the form; a tie has none."""
    return None if request.form.get("outcome") == Outcome.TIE.value else seat()


def target() -> int | str | None:
    raw = request.form.get("target")
    if raw is None:
        return None
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 4 else raw


def preset() -> str | None:
    return request.form.get("preset") or None


def rules() -> dict[str, str] | None:
    switches = [switch.name for switch in HouseRules.switches()]
    chosen = {name: request.form[name] for name in switches if name in request.form}
    return chosen or None


def names() -> tuple[str, str] | None:
    if "player1" not in request.form and "player2" not in request.form:
        return None
    return parse_names(
        request.form.get("player1"), request.form.get("player2"), i18n.default_names()
    )


def first_dealer() -> int | str | None:
    return seat("first_dealer") if "first_dealer" in request.form else None


def confirmed() -> bool:
    """Whether the player confirmed a step that cannot be taken back in one tap."""
    return request.form.get("confirmed") == "1"


def outcome() -> str | None:
    return request.form.get("outcome")


def request_id() -> str | None:
    return request.form.get("request_id") or None


def uid() -> str | None:
    return request.form.get("uid") or None


def posted_fields() -> dict[str, str]:
    """The fields of this form, to post again once the player confirms."""
    return {
        name: value
        for name, value in request.form.items()
        if name not in {"csrf_token", "confirmed"}
    }


def confirm_page(
    *,
    title: str,
    message: str,
    action: str,
    fields: dict[str, str],
    button: str,
    back: str | None = None,
) -> str:
    """A page that asks before a step that is not taken back in one tap (works without script).

    Its button posts ``fields`` again to ``action``, confirmed; Cancel goes ``back``.
    """
    return render_template(
        "confirm.html",
        title=title,
        message=message,
        action=action,
        fields=fields,
        button=button,
        back=back,
    )

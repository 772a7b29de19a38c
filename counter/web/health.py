"""A health check for load balancers: "ok", "degraded" (200: rate limits in memory, Redis
down) or "unavailable" (503: the database does not answer)."""

from __future__ import annotations

from flask import Blueprint
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from counter.storage.models import db
from counter.web import limits
from counter.web.errors import roll_back

bp = limits.limiter.exempt(Blueprint("health", __name__))


@bp.get("/health")
def health() -> tuple[dict[str, str], int]:
    database_answers = _database_answers()
    rate_limits, as_configured = _rate_limits()
    state = {
        "database": "ok" if database_answers else "not answering",
        "rate_limits": rate_limits,
    }
    if not database_answers:
        return {"status": "unavailable", **state}, 503
    return {"status": "ok" if as_configured else "degraded", **state}, 200


def _database_answers() -> bool:
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        roll_back()
        return False
    return True


def _rate_limits() -> tuple[str, bool]:
    kind = limits.storage_kind()
    if kind in {"memory", "off"}:
        return kind, True
    if limits.storage_answers():
        return f"{kind} ok", True
    return f"{kind} down, limits kept in memory", False

"""A health check for load balancers: ok, degraded (Redis down) or unavailable (no database)."""

from flask import Blueprint
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from counter.storage.models import db
from counter.web import errors, limits

bp = limits.limiter.exempt(Blueprint("health", __name__))


@bp.get("/health")
def health() -> tuple[dict[str, str], int]:
    try:
        db.session.execute(text("SELECT 1"))
        database = "ok"
    except SQLAlchemyError:
        errors.roll_back()
        database = "not answering"
    rate_limits, as_configured = limits.storage_state()
    state = {"database": database, "rate_limits": rate_limits}
    if database != "ok":
        return {"status": "unavailable", **state}, 503
    return {"status": "ok" if as_configured else "degraded", **state}, 200

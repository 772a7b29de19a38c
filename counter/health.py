"""A health check for load balancers and uptime monitors: is the database answering?"""

from __future__ import annotations

from flask import Blueprint
from sqlalchemy import text
from sqlalchemy.exc import SQLAlchemyError

from counter.models import db

bp = Blueprint("health", __name__)


@bp.get("/health")
def health() -> tuple[dict[str, str], int]:
    """200 when a query goes through, 503 when the database cannot be reached."""
    try:
        db.session.execute(text("SELECT 1"))
    except SQLAlchemyError:
        db.session.rollback()
        return {"status": "unavailable", "database": "not answering"}, 503
    return {"status": "ok", "database": "ok"}, 200

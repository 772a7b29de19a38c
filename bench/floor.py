"""The floor the counter is measured against: the least a Flask app on SQLite can do.

``GET /ping`` answers a constant; ``POST /deal`` inserts one row through
Flask-SQLAlchemy into SQLite (WAL, ``synchronous=FULL`` like the counter) or PostgreSQL
and answers both players' sums in that match. Served by gunicorn exactly like the
counter: ``gunicorn 'bench.floor:create_app()'``.
"""

from __future__ import annotations

import os

from flask import Flask, request
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import event, func, select
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


db = SQLAlchemy(model_class=Base)


class FloorDeal(db.Model):  # type: ignore[name-defined,misc]
    __tablename__ = "floor_deal"
    id: Mapped[int] = mapped_column(primary_key=True)
    match: Mapped[int] = mapped_column(index=True)
    player: Mapped[int]
    points: Mapped[int]


def _durable_wal(connection: object, _record: object) -> None:
    cursor = connection.cursor()  # type: ignore[attr-defined]
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # as durable as the counter
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


def create_app() -> Flask:
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = os.environ["FLOOR_DATABASE_URL"].replace(
        "postgresql://", "postgresql+psycopg://", 1
    )
    db.init_app(app)
    with app.app_context():
        if db.engine.dialect.name == "sqlite":
            event.listen(db.engine, "connect", _durable_wal)
        db.create_all()
        db.engine.dispose()

    @app.get("/ping")
    def ping() -> str:
        return "pong"

    @app.get("/health")  # what the recipe's Caddy asks every app server
    def health() -> str:
        return "ok"

    @app.post("/deal")
    def deal() -> dict[str, list[int]]:
        body = request.get_json()
        db.session.add(FloorDeal(match=body["match"], player=body["player"], points=body["points"]))
        db.session.commit()
        rows = db.session.execute(
            select(FloorDeal.player, func.sum(FloorDeal.points))
            .where(FloorDeal.match == body["match"])
            .group_by(FloorDeal.player)
        ).all()
        sums = {player: total for player, total in rows}
        return {"scores": [sums.get(1, 0), sums.get(2, 0)]}

    return app

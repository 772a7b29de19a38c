"""Upgrading a database that already holds matches keeps every one of them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from flask import Flask, current_app
from flask_migrate import downgrade, upgrade
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from counter.game.scoring import Outcome
from counter.services import deals, matches
from counter.storage import migrating
from counter.storage.models import db

from apps import TEST_DATABASE_URL, empty_tables, make_app

FIRST_REVISION = "0001"
OWNER = "owner-key-from-before-the-upgrade"


def fill_first_schema(app: Flask) -> None:
    """Two matches written the way revision 0001 stored them, one finished."""
    created = datetime(2026, 1, 2, 20, 15)
    with app.app_context():
        db.session.execute(
            text(
                "INSERT INTO match (id, owner, player1, player2, target, created_at) VALUES "
                "(1, :owner, 'Иван', 'Мария', 7, :at), (2, :owner, 'Иван', 'Мария', 11, :at)"
            ),
            {"owner": OWNER, "at": created},
        )
        deals = [
            (1, 1, 1, "schwarz", 3),
            (1, 2, 2, "normal", 1),
            (1, 3, 1, "schwarz", 3),
            (1, 4, 1, "normal", 1),
            (2, 1, 2, "wrong_claim", 2),
        ]
        for match_id, number, player, outcome, points in deals:
            db.session.execute(
                text(
                    "INSERT INTO deal (match_id, number, player, outcome, points, request_id, "
                    "created_at) VALUES (:m, :n, :p, :o, :pts, :r, :at)"
                ),
                {
                    "m": match_id,
                    "n": number,
                    "p": player,
                    "o": outcome,
                    "pts": points,
                    "r": f"r{match_id}-{number}",
                    "at": created,
                },
            )
        db.session.commit()


@pytest.fixture
def first_schema_app(tmp_path: Path) -> Iterator[Flask]:
    """An app on a database migrated only to the first revision, holding real matches."""
    url = TEST_DATABASE_URL or f"sqlite:///{tmp_path / 'old.sqlite'}"
    app = make_app(url)
    with app.app_context():
        downgrade(revision="base")
        upgrade(revision=FIRST_REVISION)
        db.engine.dispose()
    fill_first_schema(app)
    yield app
    with app.app_context():
        upgrade()  # leave a shared PostgreSQL database as the other tests expect it
        empty_tables()
        db.engine.dispose()


def upgrade_to_latest(app: Flask) -> None:
    with app.app_context():
        upgrade()
        db.engine.dispose()


def test_the_latest_revision_is_alembics_head(first_schema_app: Flask) -> None:
    """A starting worker finds a database up to date by one query (counter/storage/migrating.py)
    against the newest file's number: the head Alembic would migrate to."""
    from alembic.script import ScriptDirectory

    with first_schema_app.app_context():
        heads = ScriptDirectory.from_config(current_app.extensions["migrate"].migrate.get_config())
        assert heads.get_heads() == [migrating.latest_revision()]
        assert not migrating.up_to_date(db.engine)
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():
        assert migrating.up_to_date(db.engine)
        db.engine.dispose()


FIRST_COLUMNS = (
    "SELECT m.id, m.owner, m.player1, m.player2, m.target, m.created_at, d.number, d.player, "
    "d.outcome, d.points, d.request_id, d.created_at FROM match m JOIN deal d ON d.match_id = m.id "
    "ORDER BY m.id, d.number"
)


def test_upgrading_keeps_every_match_and_deal(first_schema_app: Flask) -> None:
    with first_schema_app.app_context():
        before = db.session.execute(text(FIRST_COLUMNS)).all()
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():  # a new session: everything read afresh
        assert db.session.execute(text(FIRST_COLUMNS)).all() == before
        after = [matches.get_match(owner=OWNER, match_id=match_id) for match_id in (1, 2)]
        listed = matches.list_matches(owner=OWNER)
    assert after[0].winner == 1
    assert [p.games for p in after[1].players] == [1, 0]
    assert [deal.scores for deal in after[0].deals or ()] == [(3, 0), (3, 1), (6, 1), (7, 1)]
    assert len(listed.matches) == 2
    assert [[p.games for p in summary.players] for summary in listed.matches] == [[1, 0], [1, 0]]


def test_upgrading_records_the_winner_of_each_finished_match(first_schema_app: Flask) -> None:
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():
        winners = db.session.execute(text("SELECT id, won_by FROM match ORDER BY id")).all()
    assert winners == [(1, 1), (2, None)]


def test_after_the_upgrade_play_goes_on(first_schema_app: Flask) -> None:
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():
        match, recorded = deals.record_deal(
            owner=OWNER, match_id=2, seat=1, outcome=Outcome.SCHNEIDER, request_id="r2-2"
        )
    assert recorded
    assert [deal.number for deal in match.deals or ()] == [1, 2]


def test_the_upgraded_database_refuses_an_impossible_seat(first_schema_app: Flask) -> None:
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():
        with pytest.raises(IntegrityError):
            db.session.execute(
                text(
                    "INSERT INTO deal (match_id, number, player, outcome, points, created_at) "
                    "VALUES (2, 9, 3, 'normal', 1, CURRENT_TIMESTAMP)"
                )
            )
        db.session.rollback()


def test_upgrading_makes_old_matches_santase_or_the_sixty_six_their_rules_were(
    first_schema_app: Flask,
) -> None:
    with first_schema_app.app_context():
        upgrade(revision="0017")
        db.session.execute(
            text("UPDATE match SET wrong_claim = 'by_tricks', ties = 'no_points' WHERE id = 2")
        )
        db.session.commit()
        db.engine.dispose()
    upgrade_to_latest(first_schema_app)
    with first_schema_app.app_context():
        rows = db.session.execute(text("SELECT id, game, marks FROM match ORDER BY id")).all()
        shown = [matches.get_match(owner=OWNER, match_id=match_id) for match_id in (1, 2)]
    assert rows == [(1, "santase", 1), (2, "sixty_six", None)]
    assert [match.game.name.value for match in shown] == ["santase", "sixty_six"]

"""Each match keeps its tally (both totals, how many deals, who deals next), so that a
deal is recorded and a history listed without reading every deal of the match, and
when it was kept (``tallied_at``: the ``played_at`` of the change that wrote it).

Every match's tally is worked out here from its deals, by the rules
(:func:`counter.game.scoring.tally`), a match at a time; so this revision reads the database
and cannot be written out as SQL alone (``flask db upgrade --sql``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Iterator
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from alembic import op

from counter.game import scoring

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

COLUMNS = {"score1": "0", "score2": "0", "deal_count": "0", "dealer": "1"}

# What the tally reads of a deal: its result, and who deals after it by its rules.
DEALS = sa.text(
    "SELECT deal.match_id, deal.player, deal.outcome, deal.points, deal.next_dealer FROM deal "
    "ORDER BY deal.match_id, deal.number"
)
UPDATE = sa.text(
    "UPDATE match SET score1 = :first, score2 = :second, deal_count = :deals, "
    "dealer = :dealer WHERE id = :match"
)


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "match",
        recreate="always" if sqlite else "auto",  # how SQLite takes a new check constraint
        table_kwargs={"sqlite_autoincrement": True},  # which a new table would lose
    ) as batch:
        for name, default in COLUMNS.items():
            column = sa.Column(name, sa.SmallInteger(), nullable=False, server_default=default)
            batch.add_column(column)
        batch.add_column(sa.Column("tallied_at", sa.DateTime(), nullable=True))
        batch.create_check_constraint("ck_match_dealer", "dealer IN (1, 2)")
    connection = op.get_bind()
    first_dealers = dict(connection.execute(sa.text("SELECT id, first_dealer FROM match")).all())
    rows = [
        {"match": match_id, **_values(scoring.tally(first_dealers[match_id], results))}
        for match_id, results in _results_by_match(connection)
    ]
    if rows:
        connection.execute(UPDATE, rows)
    # A match without deals: nobody has scored, and whoever deals first deals next.
    connection.execute(sa.text("UPDATE match SET dealer = first_dealer WHERE deal_count = 0"))
    # Each tally as of the match's last change (a worker of the release before that
    # changes a match later leaves its played_at another: see Match.tallied_at).
    connection.execute(sa.text("UPDATE match SET tallied_at = played_at"))


def _results_by_match(
    connection: sa.Connection,
) -> Iterator[tuple[int, Iterator[scoring.DealResult]]]:
    rows = connection.execute(DEALS)
    for match_id, deals in groupby(rows, key=lambda row: row[0]):
        yield match_id, (_result(*row[1:]) for row in deals)


def _result(player: Any, outcome: str, points: int, next_dealer: str) -> scoring.DealResult:
    rules = scoring.HouseRules(next_dealer=scoring.NextDealer(next_dealer))
    return scoring.DealResult(player, scoring.Outcome(outcome), points, rules)


def _values(tally: scoring.Tally) -> dict[str, int]:
    return {
        "first": tally.first,
        "second": tally.second,
        "deals": tally.deals,
        "dealer": tally.dealer,
    }


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table(
        "match",
        recreate="always" if sqlite else "auto",
        table_kwargs={"sqlite_autoincrement": True},
    ) as batch:
        batch.drop_constraint("ck_match_dealer", type_="check")
        batch.drop_column("tallied_at")
        for name in COLUMNS:
            batch.drop_column(name)

"""A match no longer keeps a tally beside its deals: totals, deal count and dealer are
worked out from the deals wherever they are shown. ``won_by`` stays, for the series index.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

COLUMNS = {"score1": "0", "score2": "0", "deal_count": "0", "dealer": "1"}


def _match_table() -> object:
    sqlite = op.get_bind().dialect.name == "sqlite"
    return op.batch_alter_table(
        "match",
        recreate="always" if sqlite else "auto",  # how SQLite drops a check constraint
        table_kwargs={"sqlite_autoincrement": True},  # which a new table would lose
    )


def upgrade() -> None:
    with _match_table() as batch:  # type: ignore[attr-defined]
        batch.drop_constraint("ck_match_dealer", type_="check")
        batch.drop_column("tallied_at")
        for name in COLUMNS:
            batch.drop_column(name)


def downgrade() -> None:
    # The release before works a tally out afresh from the deals where tallied_at is empty.
    with _match_table() as batch:  # type: ignore[attr-defined]
        for name, default in COLUMNS.items():
            column = sa.Column(name, sa.SmallInteger(), nullable=False, server_default=default)
            batch.add_column(column)
        batch.add_column(sa.Column("tallied_at", sa.DateTime(), nullable=True))
        batch.create_check_constraint("ck_match_dealer", "dealer IN (1, 2)")

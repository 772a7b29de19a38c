"""Each match keeps its tally (both totals, how many deals, who deals next), and when it
was kept (``tallied_at``: the ``played_at`` of the change that wrote it).

No tally is worked out here: ``tallied_at`` starts empty, which the release that read
tallies took for a tally to work out afresh from the deals. Migration 0015 drops them.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

COLUMNS = {"score1": "0", "score2": "0", "deal_count": "0", "dealer": "1"}


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

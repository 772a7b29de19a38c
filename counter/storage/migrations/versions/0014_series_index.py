"""An index of each browser's won matches by their names, in which the games of a
series are counted without reading the browser's other matches.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    won = sa.text("won_by IS NOT NULL")
    op.create_index(
        "ix_match_series",
        "match",
        ["owner", "player1", "player2", "id", "won_by"],
        sqlite_where=won,
        postgresql_where=won,
    )


def downgrade() -> None:
    op.drop_index("ix_match_series", table_name="match")

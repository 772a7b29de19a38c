"""House rules per match, and who dealt first.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.add_column(
            sa.Column("failed_close", sa.String(16), nullable=False, server_default="by_tricks")
        )
        batch.add_column(
            sa.Column("wrong_claim", sa.String(16), nullable=False, server_default="always_2")
        )
        batch.add_column(
            sa.Column("next_dealer", sa.String(16), nullable=False, server_default="winner")
        )
        batch.add_column(
            sa.Column("first_dealer", sa.SmallInteger(), nullable=False, server_default="1")
        )
        batch.create_check_constraint("ck_match_first_dealer", "first_dealer IN (1, 2)")


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("ck_match_first_dealer", type_="check")
        for column in ("first_dealer", "next_dealer", "wrong_claim", "failed_close"):
            batch.drop_column(column)

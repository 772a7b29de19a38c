"""Tied deals (65:65), where a match's house rules record them: no receiving player.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.add_column(
            sa.Column("ties", sa.String(16), nullable=False, server_default="not_recorded")
        )
    with op.batch_alter_table("deal") as batch:
        batch.alter_column("player", existing_type=sa.SmallInteger(), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM deal WHERE player IS NULL")
    with op.batch_alter_table("deal") as batch:
        batch.alter_column("player", existing_type=sa.SmallInteger(), nullable=False)
    with op.batch_alter_table("match") as batch:
        batch.drop_column("ties")

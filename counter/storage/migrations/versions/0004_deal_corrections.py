"""Remember when a deal was corrected, so the deal list can say so.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deal") as batch:
        batch.add_column(sa.Column("corrected_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deal") as batch:
        batch.drop_column("corrected_at")

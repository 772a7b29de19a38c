"""Each device remembers the match it showed when it started the one it shows now, so
that another phone still showing that match is offered the new one when it comes back
(counter/web/live.py), not only while its page was open.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("device") as batch:
        batch.add_column(sa.Column("left_match_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_device_left_match", "match", ["left_match_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("device") as batch:
        batch.drop_constraint("fk_device_left_match", type_="foreignkey")
        batch.drop_column("left_match_id")

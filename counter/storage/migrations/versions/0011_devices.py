"""Each device that holds a key, and the match on its screen.

The key moves from the cookie to this table: the cookie only names the device,
so that it never has to change again. A browser whose cookie still carries a key
gets its device row the first time it is seen (counter.web.browser).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "device",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("home", sa.String(length=64), nullable=True),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("label", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["match.id"], name="fk_device_match", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token", name="uq_device_token"),
    )
    op.create_index("ix_device_owner", "device", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_device_owner", table_name="device")
    op.drop_table("device")

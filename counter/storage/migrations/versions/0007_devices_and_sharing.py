"""One-time links to continue on another device, and read-only share links to a match.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "device_link",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("share_token", sa.String(length=32), nullable=True))
        batch.create_unique_constraint("uq_match_share_token", ["share_token"])


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("uq_match_share_token", type_="unique")
        batch.drop_column("share_token")
    op.drop_table("device_link")

"""Uids and request ids that stay used after an undo or a delete (hashes only).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "spent",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("owner_digest", sa.String(length=64), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("settings_digest", sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("digest"),
    )
    op.create_index("ix_spent_owner_digest", "spent", ["owner_digest"])
    op.create_index("ix_spent_match_id", "spent", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_spent_match_id", table_name="spent")
    op.drop_index("ix_spent_owner_digest", table_name="spent")
    op.drop_table("spent")

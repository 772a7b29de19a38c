"""Check constraints: the database itself refuses a seat, target or number out of range.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Batch mode: SQLite adds constraints by copying the table, rows included.
    with op.batch_alter_table("match") as batch:
        batch.create_check_constraint("ck_match_target", "target IN (7, 11, 15)")
    with op.batch_alter_table("deal") as batch:
        batch.create_check_constraint("ck_deal_player", "player IN (1, 2)")
        batch.create_check_constraint("ck_deal_number", "number >= 1")
        batch.create_check_constraint("ck_deal_points", "points >= 0")


def downgrade() -> None:
    with op.batch_alter_table("deal") as batch:
        batch.drop_constraint("ck_deal_points", type_="check")
        batch.drop_constraint("ck_deal_number", type_="check")
        batch.drop_constraint("ck_deal_player", type_="check")
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("ck_match_target", type_="check")

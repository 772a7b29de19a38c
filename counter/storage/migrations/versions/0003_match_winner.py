"""Keep each match's winner on its row, so games are counted without summing deals.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

# The seat whose total reached the target, for every finished match.
BACKFILL = """
UPDATE match SET won_by = (
    SELECT CASE
        WHEN SUM(CASE WHEN deal.player = 1 THEN deal.points ELSE 0 END) >= match.target THEN 1
        WHEN SUM(CASE WHEN deal.player = 2 THEN deal.points ELSE 0 END) >= match.target THEN 2
    END
    FROM deal WHERE deal.match_id = match.id
)
"""


def upgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("won_by", sa.SmallInteger(), nullable=True))
        batch.create_check_constraint("ck_match_won_by", "won_by IN (1, 2)")
    op.execute(BACKFILL)


def downgrade() -> None:
    with op.batch_alter_table("match") as batch:
        batch.drop_constraint("ck_match_won_by", type_="check")
        batch.drop_column("won_by")
